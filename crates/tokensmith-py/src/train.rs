//! `tokensmith._core.train_bpe_bytes`: byte-level BPE training, GIL released while Rust works.
//!
//! The texts are pulled from any Python iterable in chunks: each chunk is borrowed (no copy)
//! while the GIL is held, then counted on the rayon pool with the GIL released, then dropped,
//! so memory holds one chunk of text plus the distinct words, never the whole corpus.

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyBytes;
use tokensmith_core::pre_tokenizers::PreTokenizer;
use tokensmith_core::trainers::{extend_bpe, BpeTrainer, Compat, TrainedBpe, WordCounts};

use crate::chunks::for_each_chunk;
use crate::encoding::CoreEncoding;

use crate::errors::{new_error, IntoPyResult};

type Ranks<'py> = Vec<(Bound<'py, PyBytes>, u32)>;
type Merges<'py> = Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>;
type Trained<'py> = (Ranks<'py>, Vec<(String, u32)>, Merges<'py>);

/// Trains a byte-level BPE vocabulary. Returns `(ranks, special_tokens, merges)`.
///
/// The words come from `texts` (pre-tokenized with `pattern`), or, when `texts` is None, from
/// `counts`: a buffer made by `count_words` / `merge_word_counts` (for distributed counting).
/// Texts are counted `chunk_size` at a time: large chunks fold fewer partial maps.
#[pyfunction]
#[pyo3(signature = (
    texts, *, pattern, vocab_size, min_frequency=0, special_tokens=Vec::new(),
    max_token_length=None, compat="hf", chunk_size=65536, counts=None, progress=None,
    progress_every=100
))]
#[allow(clippy::too_many_arguments)]
pub fn train_bpe_bytes<'py>(
    py: Python<'py>,
    texts: Option<&Bound<'py, PyAny>>,
    pattern: String,
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    max_token_length: Option<usize>,
    compat: &str,
    chunk_size: usize,
    counts: Option<PyBackedBytes>,
    progress: Option<Py<PyAny>>,
    progress_every: usize,
) -> PyResult<Trained<'py>> {
    let compat = parse_compat(py, compat)?;
    let trainer = BpeTrainer::new(vocab_size)
        .min_frequency(min_frequency)
        .special_tokens(special_tokens)
        .max_token_length(max_token_length)
        .compat(compat);
    trainer.validate().py_err(py)?;
    let counts = match (texts, counts) {
        (Some(texts), _) => {
            let pre = PreTokenizer::new(&pattern).py_err(py)?;
            count_texts(py, texts, chunk_size, |counts, chunk| {
                counts.add_texts(&pre, chunk)
            })?
        }
        (None, Some(blob)) => py.detach(|| WordCounts::from_bytes(&blob)).py_err(py)?,
        (None, None) => {
            return Err(crate::errors::type_error(
                py,
                "train_bpe_bytes needs texts or counts".into(),
            ))
        }
    };
    let mut ticker = Progress::new(progress, progress_every);
    let trained = py
        .detach(|| trainer.train_with_progress(&counts, |n| ticker.tick(n)))
        .py_err(py)?;
    ticker.finish()?;
    Ok(to_python(py, &trained))
}

/// The `compat=` option of the trainers.
pub(crate) fn parse_compat(py: Python<'_>, compat: &str) -> PyResult<Compat> {
    match compat {
        "hf" => Ok(Compat::Hf),
        "ranks" => Ok(Compat::Ranks),
        other => Err(new_error(
            py,
            "InvalidTrainerOptionError",
            format!("compat={other:?} is not known; use \"hf\" or \"ranks\""),
        )),
    }
}

/// The merge loop's link to Python: every `every` merges it takes the GIL briefly, lets
/// Python handle pending signals (Ctrl-C raises KeyboardInterrupt there) and calls the
/// callback with the number of merges so far. An exception stops training; [`finish`]
/// then raises it.
pub(crate) struct Progress {
    callback: Option<Py<PyAny>>,
    every: usize,
    error: Option<PyErr>,
}

impl Progress {
    pub(crate) fn new(callback: Option<Py<PyAny>>, every: usize) -> Self {
        Self {
            callback,
            every: every.max(1),
            error: None,
        }
    }

    /// Called after the n-th merge, without the GIL; false stops the loop.
    pub(crate) fn tick(&mut self, n: usize) -> bool {
        if !n.is_multiple_of(self.every) {
            return true;
        }
        self.call(|py, cb| cb.call1(py, (n,)).map(drop))
    }

    /// Called after a step with `(done, total)` for the callback (`every` is not used);
    /// false stops the loop.
    pub(crate) fn tick_of(&mut self, done: usize, total: usize) -> bool {
        self.call(|py, cb| cb.call1(py, (done, total)).map(drop))
    }

    /// Checks for signals and runs `call` on the callback, if any, with the GIL; keeps the
    /// exception (returning false) if either raises.
    fn call(&mut self, call: impl FnOnce(Python<'_>, &Py<PyAny>) -> PyResult<()>) -> bool {
        let result = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            match &self.callback {
                Some(cb) => call(py, cb),
                None => Ok(()),
            }
        });
        match result {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    /// Raises the exception that stopped training, if any.
    pub(crate) fn finish(self) -> PyResult<()> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Extends the vocabulary of `base` with merges learned on `texts` (pre-tokenized with the
/// base's pattern). Returns `(ranks, special_tokens, merges)` like `train_bpe_bytes`.
#[pyfunction]
#[pyo3(signature = (texts, *, base, vocab_size, min_frequency=0, chunk_size=4096))]
pub fn extend_bpe_bytes<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    base: &Bound<'py, CoreEncoding>,
    vocab_size: usize,
    min_frequency: u64,
    chunk_size: usize,
) -> PyResult<Trained<'py>> {
    let base = base.get().encoding();
    let counts = count_texts(py, texts, chunk_size, |counts, chunk| {
        counts.add_texts(base.pre_tokenizer(), chunk)
    })?;
    let trained = py
        .detach(|| extend_bpe(base, &counts, vocab_size, min_frequency))
        .py_err(py)?;
    Ok(to_python(py, &trained))
}

/// Counts the pieces of `texts` under `pattern`; returns the counts as a portable buffer.
#[pyfunction]
#[pyo3(signature = (texts, *, pattern, chunk_size=4096))]
pub fn count_words<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    pattern: String,
    chunk_size: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let pre = PreTokenizer::new(&pattern).py_err(py)?;
    let counts = count_texts(py, texts, chunk_size, |counts, chunk| {
        counts.add_texts(&pre, chunk)
    })?;
    let blob = py.detach(|| counts.to_bytes());
    Ok(PyBytes::new(py, &blob))
}

/// Sums count buffers made by `count_words` into one (the reduce step of distributed counting).
#[pyfunction]
pub fn merge_word_counts<'py>(
    py: Python<'py>,
    blobs: Vec<PyBackedBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = py
        .detach(|| -> tokensmith_core::Result<Vec<u8>> {
            let mut total = WordCounts::new();
            for blob in &blobs {
                total.merge(WordCounts::from_bytes(blob)?);
            }
            Ok(total.to_bytes())
        })
        .py_err(py)?;
    Ok(PyBytes::new(py, &merged))
}

/// Counts the pieces of every text of a Python iterable, one chunk at a time: each chunk is
/// borrowed while the GIL is held and counted by `add` with the GIL released.
pub(crate) fn count_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    chunk_size: usize,
    add: impl Fn(&mut WordCounts, &[PyBackedStr]) -> tokensmith_core::Result<()> + Sync,
) -> PyResult<WordCounts> {
    let mut counts = WordCounts::new();
    for_each_chunk(texts, chunk_size, |chunk| {
        py.detach(|| add(&mut counts, chunk)).py_err(py)?;
        Ok(true)
    })?;
    Ok(counts)
}

fn to_python<'py>(py: Python<'py>, trained: &TrainedBpe) -> Trained<'py> {
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
    (ranks, trained.specials.clone(), merges)
}
