//! `tokensmith._core.train_unigram_hf`: HF's Unigram training on counted words, for the HF
//! face's `Tokenizer.train` with a `UnigramTrainer`.

use pyo3::prelude::*;
use tokensmith_core::trainers::unigram::hf_trainer::{hf_train_with_progress, HfUnigramOptions};

use crate::errors::IntoPyResult;
use crate::train::Progress;

/// HF's pieces for `words` (`(word, count)`): `required` characters first, then the learned
/// pieces, `keep` in all, by falling score (`tokensmith_core::trainers::unigram::hf_trainer`).
/// `progress(done, total)` is called after each round of EM and pruning, and `(n, n)` at the
/// end; an exception from it (or Ctrl-C) stops training after that round and is raised.
#[pyfunction]
#[pyo3(signature = (
    words, *, vocab_size, keep, required="", n_sub_iterations=2, shrinking_factor=0.75,
    max_piece_length=16, seed_size=1_000_000, progress=None
))]
#[allow(clippy::too_many_arguments)]
pub fn train_unigram_hf(
    py: Python<'_>,
    words: Vec<(String, u64)>,
    vocab_size: usize,
    keep: usize,
    required: &str,
    n_sub_iterations: usize,
    shrinking_factor: f64,
    max_piece_length: usize,
    seed_size: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<Vec<(String, f64)>> {
    let opts = HfUnigramOptions {
        vocab_size,
        n_sub_iterations,
        shrinking_factor,
        max_piece_length,
        seed_size,
    };
    let required: Vec<char> = required.chars().collect();
    let mut ticker = Progress::new(progress, 1);
    let pieces = py
        .detach(|| {
            hf_train_with_progress(&opts, &words, &required, keep, |d, t| ticker.tick_of(d, t))
        })
        .py_err(py)?;
    ticker.finish()?;
    Ok(pieces)
}
