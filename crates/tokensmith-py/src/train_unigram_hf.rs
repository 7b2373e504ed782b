//! `tokensmith._core.train_unigram_hf`: HF's Unigram training on counted words, for the HF
//! face's `Tokenizer.train` with a `UnigramTrainer`.

use pyo3::prelude::*;
use tokensmith_core::trainers::unigram::hf_trainer::{hf_train, HfUnigramOptions};

use crate::errors::IntoPyResult;

/// HF's pieces for `words` (`(word, count)`): `required` characters first, then the learned
/// pieces, `keep` in all, by falling score (`tokensmith_core::trainers::unigram::hf_trainer`).
#[pyfunction]
#[pyo3(signature = (
    words, *, vocab_size, keep, required="", n_sub_iterations=2, shrinking_factor=0.75,
    max_piece_length=16, seed_size=1_000_000
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
) -> PyResult<Vec<(String, f64)>> {
    let opts = HfUnigramOptions {
        vocab_size,
        n_sub_iterations,
        shrinking_factor,
        max_piece_length,
        seed_size,
    };
    let required: Vec<char> = required.chars().collect();
    py.detach(|| hf_train(&opts, &words, &required, keep))
        .py_err(py)
}
