//! `tokensmith._core.train_unigram`: sentencepiece's Unigram, BPE, char and word trainers
//! (`model_type`), GIL released while Rust works.
//!
//! Texts are pulled from any Python iterable in chunks; each chunk is borrowed while the GIL is
//! held and counted on the thread pool with the GIL released, while the next chunk is pulled,
//! then dropped. With `lines=True` the items are `bytes` blocks of whole lines read from text
//! files, split into sentences in Rust as sentencepiece reads a file's lines. Training runs on a
//! worker thread while this (the calling, usually main) thread waits with the GIL released,
//! waking for each progress event and every 100 ms to run Python's signal handlers: Ctrl-C
//! (or an exception from the progress callback) stops training at the end of the current EM
//! round, and the exception is raised here.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyDict;
use tokensmith_core::sentencepiece::SentencePieceProcessor;
use tokensmith_core::trainers::unigram::{
    train, Event, Normalization, SentenceCounter, UnigramConfig, WordTable,
};
use tokensmith_core::trainers::{sp_bpe, sp_char, sp_word};

use crate::errors::{new_error, IntoPyResult};
use crate::pipelined::for_each_chunk_pipelined;
use crate::sentencepiece::CoreSentencePiece;

/// Trains a Unigram SentencePiece model; returns the loaded model.
///
/// `progress(kind, info)` is called with kind "counted", "seeded", "em_round", "pruned" or
/// "finished" and a dict of numbers; an exception it raises stops training.
#[pyfunction]
#[pyo3(signature = (
    texts, *, vocab_size, character_coverage=0.9995, required_chars="", byte_fallback=false,
    split_digits=false,
    max_piece_length=16, user_defined_symbols=Vec::new(), control_symbols=Vec::new(),
    input_sentence_size=0, shuffle_input_sentence=true, seed=0, shrinking_factor=0.75,
    num_sub_iterations=2, seed_sentencepiece_size=1_000_000, max_sentence_length=4192,
    split_by_whitespace=true, split_by_unicode_script=true, split_by_number=true,
    treat_whitespace_as_suffix=false, add_dummy_prefix=true, remove_extra_whitespaces=true,
    normalization_rule_name="nmt_nfkc", num_threads=0, progress=None, chunk_size=4096,
    weighted=false, model_type="unigram", use_all_vocab=false, hard_vocab_limit=true,
    seeds_per_distinct_word=false, lines=false
))]
#[allow(clippy::too_many_arguments)]
pub fn train_unigram(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    vocab_size: usize,
    character_coverage: f64,
    required_chars: &str,
    byte_fallback: bool,
    split_digits: bool,
    max_piece_length: usize,
    user_defined_symbols: Vec<String>,
    control_symbols: Vec<String>,
    input_sentence_size: usize,
    shuffle_input_sentence: bool,
    seed: u64,
    shrinking_factor: f64,
    num_sub_iterations: usize,
    seed_sentencepiece_size: usize,
    max_sentence_length: usize,
    split_by_whitespace: bool,
    split_by_unicode_script: bool,
    split_by_number: bool,
    treat_whitespace_as_suffix: bool,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    normalization_rule_name: &str,
    num_threads: usize,
    progress: Option<Py<PyAny>>,
    chunk_size: usize,
    weighted: bool,
    model_type: &str,
    use_all_vocab: bool,
    hard_vocab_limit: bool,
    seeds_per_distinct_word: bool,
    lines: bool,
) -> PyResult<CoreSentencePiece> {
    let kind = match model_type {
        "unigram" => Kind::Unigram,
        "bpe" => Kind::Bpe,
        "char" => Kind::Char,
        "word" => Kind::Word,
        other => {
            return Err(new_error(
                py,
                "UnsupportedFeatureError",
                format!(
                    "model_type={other:?} is not supported; use \"unigram\", \"bpe\", \"char\" \
                     or \"word\""
                ),
            ))
        }
    };
    let config = UnigramConfig {
        vocab_size,
        character_coverage,
        required_chars: required_chars.chars().collect(),
        byte_fallback,
        split_digits,
        max_piece_length,
        user_defined_symbols,
        control_symbols,
        input_sentence_size,
        shuffle_input_sentence,
        seed,
        shrinking_factor,
        num_sub_iterations,
        seed_sentencepiece_size,
        max_sentence_length,
        split_by_whitespace,
        split_by_unicode_script,
        split_by_number,
        treat_whitespace_as_suffix,
        add_dummy_prefix,
        remove_extra_whitespaces,
        normalization: Normalization::parse(normalization_rule_name).py_err(py)?,
        num_threads,
        use_all_vocab,
        hard_vocab_limit,
        seeds_per_distinct_word,
        ..UnigramConfig::new(vocab_size)
    };
    config.validate().py_err(py)?;
    // Building the charsmap takes seconds; do it once here with the GIL released.
    py.detach(|| config.normalization.precompiled_charsmap())
        .py_err(py)?;
    let counting = match kind {
        Kind::Word => sp_word::counting_config(&config),
        _ => config.clone(),
    };
    let input = if lines {
        Input::LineBlocks
    } else if weighted {
        Input::Weighted
    } else {
        Input::Texts
    };
    let words = count(py, texts, &counting, chunk_size, input)?;
    report(
        py,
        progress.as_ref(),
        "counted",
        &[
            ("sentences", words.sentences as f64),
            ("skipped", words.skipped as f64),
            ("replaced", words.replaced as f64),
            ("words", words.words.len() as f64),
        ],
    )?;
    let proto = match kind {
        Kind::Unigram | Kind::Bpe => {
            run_training(py, &config, words, progress.as_ref(), kind == Kind::Bpe)?
        }
        // Counting is the whole of the work; what remains is a sort.
        Kind::Char => py.detach(|| sp_char::train(&config, words)).py_err(py)?,
        Kind::Word => py.detach(|| sp_word::train(&config, words)).py_err(py)?,
    };
    let processor = py
        .detach(|| SentencePieceProcessor::from_proto(proto))
        .py_err(py)?;
    Ok(CoreSentencePiece::from_processor(processor))
}

/// The trainer `model_type` names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unigram,
    Bpe,
    Char,
    Word,
}

/// What the items of `texts` are.
#[derive(Clone, Copy, PartialEq)]
enum Input {
    /// `str` sentences.
    Texts,
    /// `(str, count)` pairs: sentencepiece's `input_format=tsv`.
    Weighted,
    /// `bytes` blocks of whole lines of text files.
    LineBlocks,
}

/// Blocks of lines per chunk (the blocks are about 1 MiB each).
const BLOCKS_PER_CHUNK: usize = 4;

/// The word table of every item of `texts` (see [`Input`]), one chunk at a time; or, for
/// `texts` = `(word-count buffer, sentences, skipped)`, the table counted elsewhere.
fn count(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    config: &UnigramConfig,
    chunk_size: usize,
    input: Input,
) -> PyResult<WordTable> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.num_threads)
        .build()
        .map_err(|e| {
            new_error(
                py,
                "InternalError",
                format!("cannot start the thread pool: {e}"),
            )
        })?;
    if let Ok((blob, sentences, skipped)) = texts.extract::<(PyBackedBytes, u64, u64)>() {
        // Counts made elsewhere (`count_unigram_words`, summed by `merge_word_counts`).
        let mut words = py
            .detach(|| crate::unigram_counts::word_table(&blob))
            .py_err(py)?;
        (words.sentences, words.skipped) = (sentences, skipped);
        return Ok(words);
    }
    let mut counter = SentenceCounter::new(config).py_err(py)?;
    match input {
        Input::Weighted => {
            let pair = "a (str, int >= 0) pair";
            for_each_chunk_pipelined(texts, chunk_size, pair, |chunk: &[(PyBackedStr, u64)]| {
                pool.install(|| counter.add_weighted(chunk));
                !counter.is_full()
            })?;
        }
        Input::Texts => {
            for_each_chunk_pipelined(texts, chunk_size, "a str", |chunk: &[PyBackedStr]| {
                pool.install(|| counter.add_texts(chunk));
                !counter.is_full()
            })?;
        }
        Input::LineBlocks => {
            let size = BLOCKS_PER_CHUNK;
            for_each_chunk_pipelined(texts, size, "bytes", |chunk: &[PyBackedBytes]| {
                pool.install(|| counter.add_line_blocks(chunk));
                !counter.is_full()
            })?;
        }
    }
    Ok(py.detach(|| pool.install(|| counter.finish())))
}

/// Trains on a worker thread; this thread relays progress and watches for signals.
fn run_training(
    py: Python<'_>,
    config: &UnigramConfig,
    words: WordTable,
    progress: Option<&Py<PyAny>>,
    bpe: bool,
) -> PyResult<tokensmith_core::formats::sentencepiece_model::ModelProto> {
    let (tx, rx) = channel::<Progress>();
    // A receiver is not Sync; the lock lets the GIL-free wait borrow it.
    let rx = Mutex::new(rx);
    let stop = AtomicBool::new(false);
    let mut pending: Option<PyErr> = None;
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let tx = tx;
            let go_on = || {
                if stop.load(Ordering::Relaxed) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            if bpe {
                sp_bpe::train(config, words, &mut |event: &sp_bpe::Event| {
                    let _ = tx.send(Progress::Bpe(event.clone()));
                    go_on()
                })
            } else {
                train(config, words, &mut |event: &Event| {
                    let _ = tx.send(Progress::Unigram(event.clone()));
                    go_on()
                })
            }
        });
        loop {
            match py.detach(|| {
                rx.lock()
                    .map_err(|_| RecvTimeoutError::Disconnected)?
                    .recv_timeout(Duration::from_millis(100))
            }) {
                Ok(event) if pending.is_none() => {
                    if let Err(e) = deliver(py, progress, &event) {
                        pending = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if pending.is_none() {
                if let Err(e) = py.check_signals() {
                    pending = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        py.detach(|| worker.join())
    });
    if let Some(e) = pending {
        return Err(e);
    }
    let result = outcome.map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        new_error(
            py,
            "InternalError",
            format!(
                "the trainer stopped on an internal error ({what}); this is a bug in \
                 tokensmith: please report it with the options and, if you can, the corpus"
            ),
        )
    })?;
    match result.py_err(py)? {
        Some(proto) => Ok(proto),
        None => Err(new_error(
            py,
            "InternalError",
            "the trainer stopped without a result or an error".into(),
        )),
    }
}

/// A progress event of either trainer.
enum Progress {
    Unigram(Event),
    Bpe(sp_bpe::Event),
}

fn deliver(py: Python<'_>, progress: Option<&Py<PyAny>>, event: &Progress) -> PyResult<()> {
    let (kind, values) = describe(event);
    report(py, progress, kind, &values)
}

/// The kind and numbers the progress callback gets for `event`.
fn describe(event: &Progress) -> (&'static str, Vec<(&'static str, f64)>) {
    use sp_bpe::Event as Bpe;
    match *event {
        Progress::Unigram(Event::Seeded {
            words,
            required_chars,
            pieces,
            rounds,
        }) => (
            "seeded",
            vec![
                ("words", words as f64),
                ("required_chars", required_chars as f64),
                ("pieces", pieces as f64),
                ("rounds", rounds as f64),
            ],
        ),
        Progress::Unigram(Event::EmRound {
            round,
            pieces,
            objective,
            tokens,
        }) => (
            "em_round",
            vec![
                ("round", round as f64),
                ("pieces", pieces as f64),
                ("objective", objective),
                ("tokens", tokens as f64),
            ],
        ),
        Progress::Unigram(Event::Pruned { pieces }) => ("pruned", vec![("pieces", pieces as f64)]),
        Progress::Bpe(Bpe::Started {
            words,
            required_chars,
        }) => (
            "started",
            vec![
                ("words", words as f64),
                ("required_chars", required_chars as f64),
            ],
        ),
        Progress::Bpe(Bpe::Merged { pieces }) => ("merged", vec![("pieces", pieces as f64)]),
        Progress::Unigram(Event::Finished { pieces }) | Progress::Bpe(Bpe::Finished { pieces }) => {
            ("finished", vec![("pieces", pieces as f64)])
        }
    }
}

fn report(
    py: Python<'_>,
    progress: Option<&Py<PyAny>>,
    kind: &str,
    values: &[(&str, f64)],
) -> PyResult<()> {
    let Some(callback) = progress else {
        return Ok(());
    };
    let info = PyDict::new(py);
    for (key, value) in values {
        // Counts go to Python as ints, the objective as a float.
        if value.fract() == 0.0 && *key != "objective" {
            info.set_item(key, *value as i64)?;
        } else {
            info.set_item(key, value)?;
        }
    }
    callback.call1(py, (kind, info))?;
    Ok(())
}
