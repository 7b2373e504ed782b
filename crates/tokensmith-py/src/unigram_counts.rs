//! `tokensmith._core.count_unigram_words`: the Unigram trainer's counting stage on its own, so
//! that it can run on other processes or machines (`train_unigram(..., engine="ray")`).
//!
//! The word table travels in the portable word-count format (`TSWC`, see
//! `tokensmith_core::trainers::counts_format`); partial tables are summed with
//! `merge_word_counts`, and `train_unigram` accepts `(buffer, sentences, skipped)` in place of
//! texts. Counts
//! are sums, so the table (and hence the model) is the one local counting makes.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokensmith_core::trainers::unigram::{
    Normalization, SentenceCounter, UnigramConfig, WordTable,
};
use tokensmith_core::trainers::WordCounts;
use tokensmith_core::Error;

use crate::chunks::for_each_chunk;
use crate::errors::IntoPyResult;

/// Counts the words of `texts` as `train_unigram` does with the same options; returns the
/// table as a word-count buffer, the sentences counted and the sentences skipped.
#[pyfunction]
#[pyo3(signature = (
    texts, *, byte_fallback=false, user_defined_symbols=Vec::new(), control_symbols=Vec::new(),
    max_sentence_length=4192, split_by_whitespace=true, treat_whitespace_as_suffix=false,
    add_dummy_prefix=true, remove_extra_whitespaces=true, normalization="nmt_nfkc",
    num_threads=0, chunk_size=4096
))]
#[allow(clippy::too_many_arguments)]
pub fn count_unigram_words<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    byte_fallback: bool,
    user_defined_symbols: Vec<String>,
    control_symbols: Vec<String>,
    max_sentence_length: usize,
    split_by_whitespace: bool,
    treat_whitespace_as_suffix: bool,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    normalization: &str,
    num_threads: usize,
    chunk_size: usize,
) -> PyResult<(Bound<'py, PyBytes>, u64, u64)> {
    let config = UnigramConfig {
        byte_fallback,
        user_defined_symbols,
        control_symbols,
        max_sentence_length,
        split_by_whitespace,
        treat_whitespace_as_suffix,
        add_dummy_prefix,
        remove_extra_whitespaces,
        normalization: Normalization::parse(normalization).py_err(py)?,
        num_threads,
        ..UnigramConfig::new(1 << 20)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(num_threads)
        .build()
        .map_err(|e| {
            crate::errors::new_error(py, "InternalError", format!("no thread pool: {e}"))
        })?;
    let mut counter = SentenceCounter::new(&config).py_err(py)?;
    for_each_chunk(texts, chunk_size, |chunk| {
        py.detach(|| pool.install(|| counter.add_texts(chunk)));
        py.check_signals()?;
        Ok(true)
    })?;
    let (blob, sentences, skipped) = py.detach(|| {
        let table = pool.install(|| counter.finish());
        let counts: WordCounts = table.words.iter().map(|(w, n)| (w, *n)).collect();
        (counts.to_bytes(), table.sentences, table.skipped)
    });
    Ok((PyBytes::new(py, &blob), sentences, skipped))
}

/// The word table held in a word-count buffer made by [`count_unigram_words`] (and summed by
/// `merge_word_counts`).
pub fn word_table(blob: &[u8]) -> tokensmith_core::Result<WordTable> {
    let counts = WordCounts::from_bytes(blob)?;
    let mut pairs = Vec::with_capacity(counts.len());
    for (word, n) in counts.iter() {
        let word = std::str::from_utf8(word).map_err(|_| {
            Error::InvalidOption(
                "a Unigram word-count buffer holds a word that is not UTF-8".into(),
            )
        })?;
        pairs.push((word, n));
    }
    Ok(WordTable::from_counts(pairs))
}
