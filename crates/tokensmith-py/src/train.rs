//! `tokensmith._core.train_bpe_bytes`: byte-level BPE training, GIL released while Rust works.
//!
//! The texts are pulled from any Python iterable in chunks: each chunk is borrowed (no copy)
//! while the GIL is held, then counted on the rayon pool with the GIL released, then dropped,
//! so memory holds one chunk of text plus the distinct words, never the whole corpus.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use tokensmith_core::pre_tokenizers::PreTokenizer;
use tokensmith_core::trainers::{BpeTrainer, Compat, WordCounts};

use crate::errors::{new_error, IntoPyResult};

type Ranks<'py> = Vec<(Bound<'py, PyBytes>, u32)>;
type Merges<'py> = Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>;
type Trained<'py> = (Ranks<'py>, Vec<(String, u32)>, Merges<'py>);

/// Trains a byte-level BPE vocabulary. Returns `(ranks, special_tokens, merges)`.
#[pyfunction]
#[pyo3(signature = (
    texts, *, pattern, vocab_size, min_frequency=0, special_tokens=Vec::new(),
    max_token_length=None, compat="hf", chunk_size=4096
))]
#[allow(clippy::too_many_arguments)]
pub fn train_bpe_bytes<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    pattern: String,
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    max_token_length: Option<usize>,
    compat: &str,
    chunk_size: usize,
) -> PyResult<Trained<'py>> {
    let compat = match compat {
        "hf" => Compat::Hf,
        "ranks" => Compat::Ranks,
        other => {
            return Err(new_error(
                py,
                "InvalidTrainerOptionError",
                format!("compat={other:?} is not known; use \"hf\" or \"ranks\""),
            ))
        }
    };
    let trainer = BpeTrainer::new(vocab_size)
        .min_frequency(min_frequency)
        .special_tokens(special_tokens)
        .max_token_length(max_token_length)
        .compat(compat);
    trainer.validate().py_err(py)?;
    let pre = PreTokenizer::new(&pattern).py_err(py)?;

    let mut counts = WordCounts::new();
    let mut chunk: Vec<PyBackedStr> = Vec::with_capacity(chunk_size.max(1));
    for (index, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        let text: PyBackedStr = item.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "texts[{index}] is a {}, not a str",
                item.get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            ))
        })?;
        chunk.push(text);
        if chunk.len() >= chunk_size.max(1) {
            py.detach(|| counts.add_texts(&pre, &chunk)).py_err(py)?;
            chunk.clear();
        }
    }
    py.detach(|| counts.add_texts(&pre, &chunk)).py_err(py)?;
    drop(chunk);

    let trained = py.detach(|| trainer.train(&counts)).py_err(py)?;
    let ranks = trained
        .ranks
        .iter()
        .map(|(t, r)| (PyBytes::new(py, t), *r))
        .collect();
    let merges = trained
        .merges
        .iter()
        .map(|(a, b)| (PyBytes::new(py, a), PyBytes::new(py, b)))
        .collect();
    Ok((ranks, trained.specials, merges))
}
