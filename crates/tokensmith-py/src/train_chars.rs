//! `tokensmith._core.train_bpe_chars`: character-level BPE training (`</w>`, `##`, Metaspace),
//! with the corpus cut by an HF pre-tokenizer given as JSON, so that training and the saved
//! `tokenizer.json` cut text the same way. The GIL is released while Rust counts and merges.

use pyo3::prelude::*;
use tokensmith_core::hf::json::{normalizer_from_json, pre_tokenizer_from_json};
use tokensmith_core::hf::NormalizedString;
use tokensmith_core::trainers::{CharBpeTrainer, Scoring};

use crate::errors::{new_error, IntoPyResult};
use crate::train::{count_texts, parse_compat, Progress};

/// Every token by id, and the merges in order.
type Trained = (Vec<String>, Vec<(String, String)>);

/// Trains a character-level BPE vocabulary. Returns `(vocab, merges)`: every token by id,
/// and the merges in order.
#[pyfunction]
#[pyo3(signature = (
    texts, *, pre_tokenizer, vocab_size, min_frequency=0, special_tokens=Vec::new(),
    reserved=Vec::new(), limit_alphabet=None, initial_alphabet=Vec::new(),
    max_token_length=None, continuing_subword_prefix=None, end_of_word_suffix=None,
    variant_order=Vec::new(), compat="hf", chunk_size=4096, progress=None, progress_every=100,
    normalizer=None, scoring="frequency", keep_alphabet=false
))]
#[allow(clippy::too_many_arguments)]
pub fn train_bpe_chars(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    pre_tokenizer: &str,
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    reserved: Vec<String>,
    limit_alphabet: Option<usize>,
    initial_alphabet: Vec<char>,
    max_token_length: Option<usize>,
    continuing_subword_prefix: Option<String>,
    end_of_word_suffix: Option<String>,
    variant_order: Vec<String>,
    compat: &str,
    chunk_size: usize,
    progress: Option<Py<PyAny>>,
    progress_every: usize,
    normalizer: Option<&str>,
    scoring: &str,
    keep_alphabet: bool,
) -> PyResult<Trained> {
    let compat = parse_compat(py, compat)?;
    let scoring = parse_scoring(py, scoring)?;
    let mut trainer = CharBpeTrainer::new(vocab_size)
        .min_frequency(min_frequency)
        .special_tokens(special_tokens)
        .reserved(reserved)
        .limit_alphabet(limit_alphabet)
        .initial_alphabet(initial_alphabet)
        .max_token_length(max_token_length)
        .variant_order(variant_order)
        .compat(compat)
        .scoring(scoring)
        .keep_alphabet(keep_alphabet);
    if let Some(p) = continuing_subword_prefix {
        trainer = trainer.continuing_subword_prefix(p);
    }
    if let Some(s) = end_of_word_suffix {
        trainer = trainer.end_of_word_suffix(s);
    }
    trainer.validate().py_err(py)?;
    let pre = pre_tokenizer_from_json(pre_tokenizer).py_err(py)?;
    let norm = normalizer
        .map(normalizer_from_json)
        .transpose()
        .py_err(py)?;
    let counts = count_texts(py, texts, chunk_size, |counts, chunk| {
        // The first text the normalizer or pre-tokenizer refuses fails the whole count.
        let failed = std::sync::Mutex::new(None);
        counts.add_texts_with(chunk, |text, emit| {
            let mut text = NormalizedString::new(text);
            let words = match &norm {
                Some(n) => n.normalize(&mut text).and_then(|()| pre.pre_tokenize(text)),
                None => pre.pre_tokenize(text),
            };
            match words {
                Ok(words) => words.iter().for_each(|w| emit(&w.text())),
                Err(e) => {
                    failed
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                }
            }
        })?;
        failed
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .map_or(Ok(()), Err)
    })?;
    let mut ticker = Progress::new(progress, progress_every);
    let trained = py
        .detach(|| trainer.train_with_progress(&counts, |n| ticker.tick(n)))
        .py_err(py)?;
    ticker.finish()?;
    Ok((trained.vocab, trained.merges))
}

fn parse_scoring(py: Python<'_>, scoring: &str) -> PyResult<Scoring> {
    match scoring {
        "frequency" => Ok(Scoring::Frequency),
        "likelihood" => Ok(Scoring::Likelihood),
        other => Err(new_error(
            py,
            "InvalidTrainerOptionError",
            format!("scoring={other:?} is not known; use \"frequency\" or \"likelihood\""),
        )),
    }
}
