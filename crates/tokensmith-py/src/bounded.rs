//! `tokensmith._core.count_words_bounded`: word counting within a memory budget, GIL released
//! while Rust counts, spills, prunes and merges.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokensmith_core::pre_tokenizers::PreTokenizer;
use tokensmith_core::trainers::{BoundedCounter, CountMode};

use crate::errors::{new_error, IntoPyResult};

/// Counts the pieces of `texts` under `pattern`, keeping the table under `max_memory` bytes:
/// `mode="exact"` spills sorted runs into `spill_dir` and merges them, `mode="approximate"`
/// cuts rare words in two. Returns `(counts buffer, spills, prunes, lost_pairs, total)`.
#[pyfunction]
#[pyo3(signature = (texts, *, pattern, max_memory, mode="exact", spill_dir, chunk_size=4096))]
pub fn count_words_bounded<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    pattern: String,
    max_memory: usize,
    mode: &str,
    spill_dir: PathBuf,
    chunk_size: usize,
) -> PyResult<(Bound<'py, PyBytes>, usize, usize, u64, u64)> {
    let mode = match mode {
        "exact" => CountMode::Exact,
        "approximate" => CountMode::Approximate,
        other => {
            return Err(new_error(
                py,
                "InvalidTrainerOptionError",
                format!("count mode {other:?} is not known; use \"exact\" or \"approximate\""),
            ))
        }
    };
    let pre = PreTokenizer::new(&pattern).py_err(py)?;
    let mut counter = BoundedCounter::new(max_memory, mode, &spill_dir);
    crate::chunks::for_each_chunk(texts, chunk_size, |chunk| {
        py.detach(|| counter.add_texts(&pre, chunk)).py_err(py)?;
        Ok(true)
    })?;
    let (spills, prunes) = (counter.spills(), counter.prunes());
    let (lost, total) = (counter.lost_pairs(), counter.total());
    let blob = py.detach(|| counter.finish()).py_err(py)?;
    Ok((PyBytes::new(py, &blob), spills, prunes, lost, total))
}
