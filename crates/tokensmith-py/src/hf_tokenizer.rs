//! `tokensmith._core.CoreHfTokenizer`: the `tokenizer.json` pipeline behind
//! `tokensmith.Tokenizer`. Decoding, batches and encoding inputs of 1 KiB or more release the
//! GIL; the class is frozen.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use tokensmith_core::error::Error;
use tokensmith_core::hf::padding::{padding_id, padding_number, Padding};
use tokensmith_core::hf::tokenizer::AddedToken;
use tokensmith_core::hf::truncation::{Direction, Strategy, Truncation};
use tokensmith_core::hf::HfTokenizer;
use tokensmith_core::parallel;

use crate::errors::IntoPyResult;
use crate::hf_encoding::EncodingResult;
use crate::signal_slices::{self, HF_SLICE_BYTES};

/// Inputs shorter than this (in bytes, text and pair) are encoded without releasing the GIL:
/// releasing and taking it back is a fixed cost per call (a few percent of encoding a
/// 60-byte line), and so short a call ends before another thread could make use of it.
const DETACH_AT: usize = 1024;

/// A pre-tokenized input: its words, and its pair's.
type Words = (Vec<String>, Option<Vec<String>>);

/// The bytes of text of a `(text, pair)` input, as the batch slices count them.
fn text_bytes((text, pair): &(PyBackedStr, Option<PyBackedStr>)) -> usize {
    text.len() + pair.as_ref().map_or(0, |p| p.len())
}

/// The bytes of text of a pre-tokenized input (a byte per word for the gap).
fn words_bytes((words, pair): &Words) -> usize {
    let sum = |w: &Vec<String>| w.iter().map(|s| s.len() + 1).sum::<usize>();
    sum(words) + pair.as_ref().map_or(0, sum)
}

/// Encodes one pre-tokenized input (as `encode_batch_fast` does when `blank`).
fn encode_words(
    inner: &HfTokenizer,
    (words, pair): &Words,
    add_special_tokens: bool,
    blank: bool,
) -> tokensmith_core::Result<tokensmith_core::hf::HfEncoding> {
    let first: Vec<&str> = words.iter().map(String::as_str).collect();
    let second: Option<Vec<&str>> = pair
        .as_ref()
        .map(|p| p.iter().map(String::as_str).collect());
    if blank {
        inner.encode_pretokenized_fast(&first, second.as_deref(), add_special_tokens)
    } else {
        inner.encode_pretokenized(&first, second.as_deref(), add_special_tokens)
    }
}

/// One input's encoding in a batch: its ids alone, or everything.
enum Built {
    Ids(Vec<u32>),
    Full(tokensmith_core::hf::HfEncoding),
}

#[pyclass(frozen, name = "CoreHfTokenizer", module = "tokensmith._core")]
pub struct CoreHfTokenizer {
    inner: HfTokenizer,
}

impl CoreHfTokenizer {
    /// The pipeline this tokenizer runs.
    pub fn core(&self) -> &HfTokenizer {
        &self.inner
    }
}

#[pymethods]
impl CoreHfTokenizer {
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| HfTokenizer::from_file(&path)).py_err(py)?;
        Ok(Self { inner })
    }

    #[staticmethod]
    fn from_str(py: Python<'_>, json: &str) -> PyResult<Self> {
        let inner = py.detach(|| HfTokenizer::from_json_str(json)).py_err(py)?;
        Ok(Self { inner })
    }

    /// Parses the text once: the tokenizer, and the file's outline (the JSON without
    /// `model.vocab` and `model.merges`).
    #[staticmethod]
    fn from_str_outlined(py: Python<'_>, json: &str) -> PyResult<(Self, String)> {
        let (inner, outline) = py
            .detach(|| HfTokenizer::from_json_str_outlined(json))
            .py_err(py)?;
        Ok((Self { inner }, outline))
    }

    /// `({token bytes: id}, other ids)` for a byte-level BPE whose ids are in merge order
    /// (the 256 bytes and the merged tokens; the ids of the other vocabulary entries), else
    /// `None`.
    fn byte_level_ranks<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyDict>, Vec<u32>)>> {
        let Some((ranks, others)) = py.detach(|| self.inner.byte_level_ranks()) else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        for (bytes, id) in ranks {
            dict.set_item(pyo3::types::PyBytes::new(py, &bytes), id)?;
        }
        Ok(Some((dict, others)))
    }

    /// Whether this file's ids come from an ids-only engine (byte-level BPE or BERT-style,
    /// [`EncodingResult::lazy`]).
    #[getter]
    fn fast_ids(&self) -> bool {
        self.inner.has_fast_ids()
    }

    /// The ids of this call from the ids-only engine, or `None` when the call takes the
    /// character pipeline (the configuration, or a text the engine does not handle).
    #[pyo3(signature = (text, pair, add_special_tokens))]
    fn ids_only(
        &self,
        py: Python<'_>,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> PyResult<Option<Vec<u32>>> {
        let ids = self.inner.encode_ids(text, pair, add_special_tokens);
        ids.transpose().py_err(py)
    }

    /// Byte-level BPE and BERT-style files give a result that holds its ids alone until
    /// anything else is read ([`EncodingResult::lazy`]).
    #[pyo3(signature = (text, pair, add_special_tokens))]
    fn encode(
        slf: &Bound<'_, Self>,
        text: PyBackedStr,
        pair: Option<PyBackedStr>,
        add_special_tokens: bool,
    ) -> PyResult<EncodingResult> {
        let py = slf.py();
        let inner = &slf.get().inner;
        let short = text.len() + pair.as_ref().map_or(0, |p| p.len()) < DETACH_AT;
        let fast = || inner.encode_ids(&text, pair.as_deref(), add_special_tokens);
        if let Some(ids) = if short { fast() } else { py.detach(fast) } {
            let ids = ids.py_err(py)?;
            let tokenizer = slf.clone().unbind();
            return Ok(EncodingResult::lazy(
                ids,
                tokenizer,
                text,
                pair,
                add_special_tokens,
                false,
            ));
        }
        let run = || inner.encode(&text, pair.as_deref(), add_special_tokens);
        let enc = if short { run() } else { py.detach(run) }.py_err(py)?;
        Ok(enc.into())
    }

    /// Encodes input already cut into words (HF's `is_pretokenized`), the GIL released
    /// for long inputs.
    #[pyo3(signature = (words, pair, add_special_tokens))]
    fn encode_pretokenized(
        &self,
        py: Python<'_>,
        words: Vec<String>,
        pair: Option<Vec<String>>,
        add_special_tokens: bool,
    ) -> PyResult<EncodingResult> {
        let size: usize = words
            .iter()
            .chain(pair.iter().flatten())
            .map(String::len)
            .sum();
        let input = (words, pair);
        let run = || encode_words(&self.inner, &input, add_special_tokens, false);
        let enc = if size < DETACH_AT {
            run()
        } else {
            py.detach(run)
        }
        .py_err(py)?;
        Ok(enc.into())
    }

    /// Encodes each `(words, pair words)` input as `encode_pretokenized` does (or with
    /// `blank`, as HF's `encode_batch_fast` does), on `threads` threads with the GIL
    /// released; with padding, the batch is padded as `encode_batch` pads it.
    #[pyo3(signature = (inputs, add_special_tokens, threads, blank=false))]
    fn encode_batch_pretokenized<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<Words>,
        add_special_tokens: bool,
        threads: usize,
        blank: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let encode = |input: &Words| encode_words(&self.inner, input, add_special_tokens, blank);
        let encodings = signal_slices::map_in_slices(
            py,
            &inputs,
            threads,
            HF_SLICE_BYTES,
            words_bytes,
            encode,
        )?;
        let mut encodings = encodings
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .py_err(py)?;
        if self.inner.padding().is_some() {
            py.detach(|| self.inner.pad_batch(&mut encodings));
        }
        PyList::new(py, encodings.into_iter().map(EncodingResult::from))
    }

    /// A copy with truncation set (`strategy`: `longest_first`, `only_first` or
    /// `only_second`; `direction`: `right` or `left`), or removed when `max_length` is None.
    #[pyo3(signature = (max_length, stride, strategy, direction))]
    fn with_truncation(
        &self,
        py: Python<'_>,
        max_length: Option<usize>,
        stride: usize,
        strategy: &str,
        direction: &str,
    ) -> PyResult<Self> {
        let bad = |what: &str, value: &str, known: &str| {
            Error::Truncation(format!("unknown truncation {what} {value:?} (use {known})"))
        };
        let truncation = match max_length {
            None => None,
            Some(max_length) => Some(Truncation {
                max_length,
                stride,
                strategy: match strategy {
                    "longest_first" => Strategy::LongestFirst,
                    "only_first" => Strategy::OnlyFirst,
                    "only_second" => Strategy::OnlySecond,
                    other => {
                        let known = "longest_first, only_first or only_second";
                        return Err(bad("strategy", other, known)).py_err(py);
                    }
                },
                direction: match direction {
                    "right" => Direction::Right,
                    "left" => Direction::Left,
                    other => return Err(bad("direction", other, "right or left")).py_err(py),
                },
            }),
        };
        let mut inner = self.inner.clone();
        inner.set_truncation(truncation).py_err(py)?;
        Ok(Self { inner })
    }

    /// The truncation in force as `(max_length, stride, strategy, direction)`, HF's names.
    fn truncation(&self) -> Option<(usize, usize, &'static str, &'static str)> {
        self.inner.truncation().map(|t| {
            let strategy = match t.strategy {
                Strategy::LongestFirst => "longest_first",
                Strategy::OnlyFirst => "only_first",
                Strategy::OnlySecond => "only_second",
            };
            let direction = match t.direction {
                Direction::Right => "right",
                Direction::Left => "left",
            };
            (t.max_length, t.stride, strategy, direction)
        })
    }

    /// A copy with padding set (`direction`: `right` or `left`; `length` None pads to the
    /// longest of a batch), or removed when `enabled` is false. A negative number or an
    /// unknown direction raises `PaddingError` naming the option.
    #[pyo3(signature = (enabled, length, direction, pad_id, pad_type_id, pad_token, pad_to_multiple_of))]
    #[allow(clippy::too_many_arguments)]
    fn with_padding(
        &self,
        py: Python<'_>,
        enabled: bool,
        length: Option<i64>,
        direction: &str,
        pad_id: i64,
        pad_type_id: i64,
        pad_token: String,
        pad_to_multiple_of: Option<i64>,
    ) -> PyResult<Self> {
        let padding = if enabled {
            let direction = match direction {
                "right" => Direction::Right,
                "left" => Direction::Left,
                other => {
                    let message =
                        format!("unknown padding direction {other:?} (use right or left)");
                    return Err(Error::Padding(message)).py_err(py);
                }
            };
            Some(Padding {
                fixed: length
                    .map(|n| padding_number("length", n))
                    .transpose()
                    .py_err(py)?,
                direction,
                pad_to_multiple_of: pad_to_multiple_of
                    .map(|n| padding_number("pad_to_multiple_of", n))
                    .transpose()
                    .py_err(py)?,
                pad_id: padding_id("pad_id", pad_id).py_err(py)?,
                pad_type_id: padding_id("pad_type_id", pad_type_id).py_err(py)?,
                pad_token,
            })
        } else {
            None
        };
        let mut inner = self.inner.clone();
        inner.set_padding(padding);
        Ok(Self { inner })
    }

    /// The padding in force as `(length, pad_to_multiple_of, pad_id, pad_token, pad_type_id,
    /// direction)`, HF's names and order; `length` is None for the longest of a batch.
    #[allow(clippy::type_complexity)]
    fn padding(&self) -> Option<(Option<usize>, Option<usize>, u32, String, u32, &'static str)> {
        self.inner.padding().map(|p| {
            let direction = match p.direction {
                Direction::Right => "right",
                Direction::Left => "left",
            };
            let token = p.pad_token.clone();
            (
                p.fixed,
                p.pad_to_multiple_of,
                p.pad_id,
                token,
                p.pad_type_id,
                direction,
            )
        })
    }

    /// Encodes every `(text, pair)` on up to `threads` threads, in input order; with
    /// `blank`, as HF's `encode_batch_fast` does ([`HfTokenizer::encode_fast`]).
    ///
    /// Without batch padding, the calling thread is one of the `threads` workers and makes
    /// the Python results of finished chunks while the others go on encoding
    /// ([`parallel::map_streamed`]); with it, every encoding must be known before any is
    /// padded, so the results are made at the end.
    #[pyo3(signature = (inputs, add_special_tokens, threads, blank=false))]
    fn encode_batch<'py>(
        slf: &Bound<'py, Self>,
        inputs: Vec<(PyBackedStr, Option<PyBackedStr>)>,
        add_special_tokens: bool,
        threads: usize,
        blank: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let inner = &slf.get().inner;
        let encode = |(text, pair): &(PyBackedStr, Option<PyBackedStr>)| {
            if blank {
                inner.encode_fast(text, pair.as_deref(), add_special_tokens)
            } else {
                inner.encode(text, pair.as_deref(), add_special_tokens)
            }
        };
        if inner.padding().is_some() {
            let encodings = signal_slices::map_in_slices(
                py,
                &inputs,
                threads,
                HF_SLICE_BYTES,
                text_bytes,
                encode,
            )?;
            let mut encodings = encodings
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
                .py_err(py)?;
            py.detach(|| inner.pad_batch(&mut encodings));
            return PyList::new(py, encodings.into_iter().map(EncodingResult::from));
        }
        // Ids alone where the file allows (see `encode`), else the whole encoding.
        let encode = |input: &(PyBackedStr, Option<PyBackedStr>)| {
            let (text, pair) = input;
            match inner.encode_ids(text, pair.as_deref(), add_special_tokens) {
                Some(ids) => ids.map(Built::Ids),
                None => encode(input).map(Built::Full),
            }
        };
        let out = PyList::new(py, (0..inputs.len()).map(|_| py.None()))?;
        let mut failure: Option<PyErr> = None;
        // Slice by slice, so that Ctrl-C stops the batch within one slice: inside one, the
        // threads finish their current ranges first.
        for range in signal_slices::slices_by(&inputs, HF_SLICE_BYTES, text_bytes) {
            if failure.is_some() {
                break;
            }
            if let Err(e) = py.check_signals() {
                failure = Some(e);
                break;
            }
            let offset = range.start;
            parallel::map_streamed(&inputs[range], threads, encode, |results| {
                while let Some((start, chunk)) = py.detach(|| results.next_chunk()) {
                    if let Err(e) = py.check_signals() {
                        failure = Some(e);
                        break;
                    }
                    for (i, r) in (offset + start..).zip(chunk) {
                        if failure.is_some() {
                            break;
                        }
                        let result = r.py_err(py).map(|built| match built {
                            Built::Full(enc) => EncodingResult::from(enc),
                            Built::Ids(ids) => {
                                let (text, pair) = &inputs[i];
                                let pair = pair.as_ref().map(|p| p.clone_ref(py));
                                let tokenizer = slf.clone().unbind();
                                let text = text.clone_ref(py);
                                EncodingResult::lazy(
                                    ids,
                                    tokenizer,
                                    text,
                                    pair,
                                    add_special_tokens,
                                    blank,
                                )
                            }
                        });
                        let item = result.and_then(|r| Bound::new(py, r));
                        if let Err(e) = item.and_then(|obj| out.set_item(i, obj)) {
                            failure = Some(e);
                        }
                    }
                }
            });
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Truncates, post-processes and pads finished results as configured, as HF's
    /// `Tokenizer.post_process` does (see [`HfTokenizer::post_process_encodings`]).
    #[pyo3(signature = (encoding, pair, add_special_tokens))]
    fn post_process(
        &self,
        py: Python<'_>,
        encoding: Bound<'_, EncodingResult>,
        pair: Option<Bound<'_, EncodingResult>>,
        add_special_tokens: bool,
    ) -> PyResult<EncodingResult> {
        let first = encoding.borrow_mut().full_clone(py)?;
        let second = match pair {
            Some(p) => Some(p.borrow_mut().full_clone(py)?),
            None => None,
        };
        let run = || {
            self.inner
                .post_process_encodings(first, second, add_special_tokens)
        };
        Ok(py.detach(run).py_err(py)?.into())
    }

    /// Decodes every id list on up to `threads` threads, in input order.
    #[pyo3(signature = (sequences, skip_special_tokens, threads))]
    fn decode_batch(
        &self,
        py: Python<'_>,
        sequences: Vec<Vec<u32>>,
        skip_special_tokens: bool,
        threads: usize,
    ) -> Vec<String> {
        py.detach(|| {
            parallel::map(&sequences, threads, |ids| {
                self.inner.decode(ids, skip_special_tokens)
            })
        })
    }

    fn decode(&self, py: Python<'_>, ids: Vec<u32>, skip_special_tokens: bool) -> String {
        py.detach(|| self.inner.decode(&ids, skip_special_tokens))
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id).map(String::from)
    }

    #[pyo3(signature = (with_added_tokens=true))]
    fn get_vocab<'py>(
        &self,
        py: Python<'py>,
        with_added_tokens: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (token, id) in self.inner.get_vocab(with_added_tokens) {
            dict.set_item(token, id)?;
        }
        Ok(dict)
    }

    #[pyo3(signature = (with_added_tokens=true))]
    fn get_vocab_size(&self, with_added_tokens: bool) -> usize {
        self.inner.get_vocab_size(with_added_tokens)
    }

    /// A copy with `tokens` added, each `(content, single_word, lstrip, rstrip, normalized,
    /// special)`, and how many count as added (HF's `add_tokens` semantics).
    fn with_added_tokens(
        &self,
        py: Python<'_>,
        tokens: Vec<(String, bool, bool, bool, bool, bool)>,
    ) -> (Self, usize) {
        let tokens = tokens
            .into_iter()
            .map(
                |(content, single_word, lstrip, rstrip, normalized, special)| AddedToken {
                    id: 0,
                    content,
                    single_word,
                    lstrip,
                    rstrip,
                    normalized,
                    special,
                },
            )
            .collect();
        let mut inner = self.inner.clone();
        let n = py.detach(|| inner.add_tokens(tokens));
        (Self { inner }, n)
    }

    /// The added tokens by ascending id, each `(id, content, single_word, lstrip, rstrip,
    /// normalized, special)`, as HF saves them.
    #[allow(clippy::type_complexity)]
    fn added_tokens(&self) -> Vec<(u32, String, bool, bool, bool, bool, bool)> {
        self.inner
            .added_tokens()
            .into_iter()
            .map(|a| {
                (
                    a.id,
                    a.content,
                    a.single_word,
                    a.lstrip,
                    a.rstrip,
                    a.normalized,
                    a.special,
                )
            })
            .collect()
    }

    /// A copy that encodes special added tokens in the input as plain text, or not (HF's
    /// `encode_special_tokens`).
    fn with_encode_special_tokens(&self, py: Python<'_>, value: bool) -> Self {
        let mut inner = self.inner.clone();
        py.detach(|| inner.set_encode_special_tokens(value));
        Self { inner }
    }

    /// Whether special added tokens in the input are encoded as plain text.
    fn encode_special_tokens(&self) -> bool {
        self.inner.encode_special_tokens()
    }

    /// A copy whose Unigram model samples with HF's `alpha` and `nbest_size` (None or 0:
    /// the best segmentation); another model is left as it is.
    #[pyo3(signature = (alpha, nbest_size))]
    fn with_unigram_sampling(&self, alpha: Option<f64>, nbest_size: Option<usize>) -> Self {
        let mut inner = self.inner.clone();
        inner.set_unigram_sampling(alpha, nbest_size);
        Self { inner }
    }

    /// The Unigram model's `(alpha, nbest_size)` when it samples, else None.
    fn unigram_sampling(&self) -> Option<(f64, Option<usize>)> {
        self.inner.unigram_sampling()
    }
}
