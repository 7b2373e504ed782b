//! `tokensmith.EncodingResult`: one encoded sequence (or pair), kept as Rust vectors.
//!
//! Each property builds its Python list when it is read, so a caller that keeps only `ids`
//! never pays for the tokens, offsets and masks, and a kept result holds no Python objects
//! for the garbage collector to traverse. A result of a byte-level BPE file may hold its ids
//! alone ([`tokensmith_core::hf::fast_ids`]): the rest is computed by the tokenizer's full
//! pipeline, from the same input, the first time anything but `ids` or the length is read.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyTuple};
use std::sync::OnceLock;
use tokensmith_core::error::Error;
use tokensmith_core::hf::padding::Padding;
use tokensmith_core::hf::truncation::{truncate, truncation_number, Direction};
use tokensmith_core::hf::HfEncoding;

use crate::errors::{new_error, value_error, IntoPyResult};
use crate::hf_tokenizer::CoreHfTokenizer;
use crate::int_cache::IntCache;

/// Ids below this take their Python int from one cache shared by every result (16 bytes a
/// slot, 4 MiB in all); the largest vocabularies in use have about 256k tokens.
const CACHED_IDS: usize = 1 << 18;

/// `ids` as a Python list of cached ints.
fn ids_list<'py>(py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
    static INTS: OnceLock<IntCache> = OnceLock::new();
    INTS.get_or_init(|| IntCache::new(CACHED_IDS)).list(py, ids)
}

/// One encoded sequence (or pair): every list has one entry per token.
///
/// `offsets` are `(start, end)` in characters of the sequence the token came from, and
/// `(0, 0)` for special tokens; `word_ids` is `None` for special tokens.
// Not frozen: `pad` and `truncate` change it in place, as HF's do.
#[pyclass(name = "EncodingResult", module = "tokensmith")]
pub struct EncodingResult {
    /// Only `ids` is filled while `pending` is set.
    inner: HfEncoding,
    pending: Option<Pending>,
}

/// What a result of ids alone needs to compute the rest: the tokenizer (frozen, so its
/// configuration is the one the ids came from) and the call's input.
struct Pending {
    tokenizer: Py<CoreHfTokenizer>,
    text: PyBackedStr,
    pair: Option<PyBackedStr>,
    add_special_tokens: bool,
    /// Computed as HF's `encode_batch_fast` leaves it
    /// ([`tokensmith_core::hf::HfTokenizer::encode_fast`]).
    blank: bool,
}

impl From<HfEncoding> for EncodingResult {
    fn from(inner: HfEncoding) -> Self {
        Self {
            inner,
            pending: None,
        }
    }
}

impl EncodingResult {
    /// A result that knows its ids; the rest is computed from the input when read.
    pub fn lazy(
        ids: Vec<u32>,
        tokenizer: Py<CoreHfTokenizer>,
        text: PyBackedStr,
        pair: Option<PyBackedStr>,
        add_special_tokens: bool,
        blank: bool,
    ) -> Self {
        let inner = HfEncoding {
            ids,
            ..HfEncoding::default()
        };
        let pending = Pending {
            tokenizer,
            text,
            pair,
            add_special_tokens,
            blank,
        };
        Self {
            inner,
            pending: Some(pending),
        }
    }

    /// A copy of the whole encoding (computed first if only the ids are known).
    pub fn full_clone(&mut self, py: Python<'_>) -> PyResult<HfEncoding> {
        Ok(self.full(py)?.clone())
    }

    /// The whole encoding, computed first if only the ids are known.
    fn full(&mut self, py: Python<'_>) -> PyResult<&mut HfEncoding> {
        if let Some(p) = self.pending.take() {
            let core = p.tokenizer.get().core();
            let pair = p.pair.as_deref();
            // The GIL stays held: a result is one input's worth of work, and no other thread
            // can then find the result mutably borrowed while it is computed.
            let full = if p.blank {
                core.encode_fast(&p.text, pair, p.add_special_tokens)
            } else {
                core.encode(&p.text, pair, p.add_special_tokens)
            };
            let full = full.py_err(py)?;
            debug_assert_eq!(full.ids, self.inner.ids);
            self.inner = full;
        }
        Ok(&mut self.inner)
    }
}

#[pymethods]
impl EncodingResult {
    #[new]
    #[pyo3(signature = (ids, tokens, offsets, type_ids, attention_mask, special_tokens_mask, word_ids, overflowing=None, sequence_ranges=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        ids: Vec<u32>,
        tokens: Vec<String>,
        offsets: Vec<(usize, usize)>,
        type_ids: Vec<u32>,
        attention_mask: Vec<u32>,
        special_tokens_mask: Vec<u32>,
        word_ids: Vec<Option<u32>>,
        overflowing: Option<Vec<Bound<'_, EncodingResult>>>,
        sequence_ranges: Option<Vec<(usize, (usize, usize))>>,
    ) -> PyResult<Self> {
        let n = ids.len();
        let lengths = [
            ("tokens", tokens.len()),
            ("offsets", offsets.len()),
            ("type_ids", type_ids.len()),
            ("attention_mask", attention_mask.len()),
            ("special_tokens_mask", special_tokens_mask.len()),
            ("word_ids", word_ids.len()),
        ];
        // A list may be left empty (as the core's slicing treats one of another length).
        if let Some((name, len)) = lengths.into_iter().find(|&(_, len)| len != n && len != 0) {
            let message =
                format!("EncodingResult: {name} has {len} entries, ids has {n} (give {n} or none)");
            return Err(value_error(py, message));
        }
        let mut inner = HfEncoding::from_parts(
            ids,
            tokens,
            offsets,
            type_ids,
            attention_mask,
            special_tokens_mask,
            word_ids,
        );
        let mut parts = Vec::new();
        for o in overflowing.unwrap_or_default() {
            parts.push(o.borrow_mut().full(o.py())?.clone());
        }
        inner.overflowing = parts;
        for (id, (start, end)) in sequence_ranges.unwrap_or_default() {
            if start > end || end > n {
                let message = format!(
                    "EncodingResult: sequence {id}'s range {start}..{end} is not within the {n} tokens"
                );
                return Err(value_error(py, message));
            }
            inner.set_sequence_range(id, start..end);
        }
        Ok(Self::from(inner))
    }

    /// The parts truncation cut off, as complete results (HF's `overflowing`); empty when
    /// nothing was cut or truncation has no stride to keep them.
    #[getter]
    fn overflowing(&mut self, py: Python<'_>) -> PyResult<Vec<EncodingResult>> {
        let full = self.full(py)?;
        Ok(full
            .overflowing
            .iter()
            .map(|o| EncodingResult::from(o.clone()))
            .collect())
    }

    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        ids_list(py, &self.inner.ids)
    }

    /// Built from the tokenizer's shared id-to-token table when read (see `HfEncoding`).
    #[getter]
    fn tokens<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.full(py)?.iter_tokens())
    }

    #[getter]
    fn offsets<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.full(py)?.offsets)
    }

    #[getter]
    fn type_ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.full(py)?.type_ids)
    }

    #[getter]
    fn attention_mask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.full(py)?.attention_mask)
    }

    #[getter]
    fn special_tokens_mask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.full(py)?.special_tokens_mask)
    }

    #[getter]
    fn word_ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.full(py)?.word_ids)
    }

    fn __len__(&self) -> usize {
        self.inner.ids.len()
    }

    /// Equal when every list is equal; anything that is not an `EncodingResult` is not equal.
    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<Self>() else {
            return Ok(false);
        };
        if other.is(slf) {
            return Ok(true);
        }
        let py = slf.py();
        let mut other = other.borrow_mut();
        let mut this = slf.borrow_mut();
        Ok(*this.full(py)? == *other.full(py)?)
    }

    /// The seven lists, the overflowing results and the sequence ranges, in constructor
    /// order (so `pickle` and `copy` rebuild the result).
    fn __getnewargs__<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let overflowing = self.overflowing(py)?;
        let e = &self.inner;
        let ranges: Vec<(usize, (usize, usize))> = e
            .sequence_ranges
            .iter()
            .map(|(id, r)| (*id, (r.start, r.end)))
            .collect();
        (
            e.ids.clone(),
            e.tokens(),
            e.offsets.clone(),
            e.type_ids.clone(),
            e.attention_mask.clone(),
            e.special_tokens_mask.clone(),
            e.word_ids.clone(),
            overflowing,
            ranges,
        )
            .into_pyobject(py)
    }

    /// `EncodingResult(ids=[...], tokens=[...], ...)`, every field with its Python repr.
    fn __repr__(&mut self, py: Python<'_>) -> PyResult<String> {
        let e = &*self.full(py)?;
        let fields: [(&str, Bound<'_, PyAny>); 7] = [
            ("ids", PyList::new(py, &e.ids)?.into_any()),
            ("tokens", PyList::new(py, e.iter_tokens())?.into_any()),
            ("offsets", PyList::new(py, &e.offsets)?.into_any()),
            ("type_ids", PyList::new(py, &e.type_ids)?.into_any()),
            (
                "attention_mask",
                PyList::new(py, &e.attention_mask)?.into_any(),
            ),
            (
                "special_tokens_mask",
                PyList::new(py, &e.special_tokens_mask)?.into_any(),
            ),
            ("word_ids", PyList::new(py, &e.word_ids)?.into_any()),
        ];
        let mut parts = Vec::with_capacity(fields.len());
        for (name, value) in fields {
            parts.push(format!("{name}={}", value.repr()?));
        }
        Ok(format!("EncodingResult({})", parts.join(", ")))
    }

    /// The sequence of each token (0 or 1), `None` for tokens of no sequence (special
    /// tokens, padding), as HF's `Encoding.sequence_ids`.
    #[getter]
    fn sequence_ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.full(py)?.sequence_ids())
    }

    /// How many sequences the result holds (1 or 2), as HF's `Encoding.n_sequences`.
    #[getter]
    fn n_sequences(&mut self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.full(py)?.n_sequences())
    }

    /// Marks every token as one of sequence `sequence_id`, as HF's
    /// `Encoding.set_sequence_id`.
    fn set_sequence_id(&mut self, py: Python<'_>, sequence_id: i64) -> PyResult<()> {
        let id = index(py, "set_sequence_id", "sequence_id", sequence_id)?;
        self.full(py)?.set_sequence_id(id);
        Ok(())
    }

    /// `word_ids` under HF's deprecated name; reading it warns, as HF's does.
    #[getter]
    fn words<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let warning = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        let message = c"EncodingResult.words is deprecated, please use word_ids instead";
        PyErr::warn(py, &warning, message, 1)?;
        self.word_ids(py)
    }

    /// The index of the token of sequence `sequence_index` holding character `char_pos`,
    /// or None.
    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_token(
        &mut self,
        py: Python<'_>,
        char_pos: i64,
        sequence_index: i64,
    ) -> PyResult<Option<usize>> {
        let pos = index(py, "char_to_token", "char_pos", char_pos)?;
        let seq = index(py, "char_to_token", "sequence_index", sequence_index)?;
        Ok(self.full(py)?.char_to_token(pos, seq))
    }

    /// The word of sequence `sequence_index` holding character `char_pos`, or None.
    #[pyo3(signature = (char_pos, sequence_index=0))]
    fn char_to_word(
        &mut self,
        py: Python<'_>,
        char_pos: i64,
        sequence_index: i64,
    ) -> PyResult<Option<u32>> {
        let pos = index(py, "char_to_word", "char_pos", char_pos)?;
        let seq = index(py, "char_to_word", "sequence_index", sequence_index)?;
        Ok(self.full(py)?.char_to_word(pos, seq))
    }

    /// The offsets `(start, end)` of token `token_index` in its sequence, or None.
    fn token_to_chars(
        &mut self,
        py: Python<'_>,
        token_index: i64,
    ) -> PyResult<Option<(usize, usize)>> {
        let token = index(py, "token_to_chars", "token_index", token_index)?;
        Ok(self.full(py)?.token_to_chars(token))
    }

    /// The sequence (0 or 1) of token `token_index`, or None.
    fn token_to_sequence(&mut self, py: Python<'_>, token_index: i64) -> PyResult<Option<usize>> {
        let token = index(py, "token_to_sequence", "token_index", token_index)?;
        Ok(self.full(py)?.token_to_sequence(token))
    }

    /// The word (in its sequence) of token `token_index`, or None.
    fn token_to_word(&mut self, py: Python<'_>, token_index: i64) -> PyResult<Option<u32>> {
        let token = index(py, "token_to_word", "token_index", token_index)?;
        Ok(self.full(py)?.token_to_word(token))
    }

    /// The tokens `(first, last + 1)` of word `word_index` of sequence `sequence_index`,
    /// or None.
    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_tokens(
        &mut self,
        py: Python<'_>,
        word_index: i64,
        sequence_index: i64,
    ) -> PyResult<Option<(usize, usize)>> {
        let word = word(py, "word_to_tokens", word_index)?;
        let seq = index(py, "word_to_tokens", "sequence_index", sequence_index)?;
        Ok(self.full(py)?.word_to_tokens(word, seq))
    }

    /// The characters `(first, last + 1)` word `word_index` of sequence `sequence_index`
    /// spans, or None.
    #[pyo3(signature = (word_index, sequence_index=0))]
    fn word_to_chars(
        &mut self,
        py: Python<'_>,
        word_index: i64,
        sequence_index: i64,
    ) -> PyResult<Option<(usize, usize)>> {
        let word = word(py, "word_to_chars", word_index)?;
        let seq = index(py, "word_to_chars", "sequence_index", sequence_index)?;
        Ok(self.full(py)?.word_to_chars(word, seq))
    }

    /// The results joined into one, as HF's `Encoding.merge`: each one's sequence ranges
    /// move with its tokens, overflowing results combine, and with `growing_offsets` each
    /// one's offsets count on from the end of the last offset before it.
    #[staticmethod]
    #[pyo3(signature = (encodings, growing_offsets=true))]
    fn merge(
        py: Python<'_>,
        encodings: Vec<Bound<'_, EncodingResult>>,
        growing_offsets: bool,
    ) -> PyResult<EncodingResult> {
        let mut parts = Vec::with_capacity(encodings.len());
        for e in &encodings {
            parts.push(e.borrow_mut().full(py)?.clone());
        }
        Ok(HfEncoding::merge(parts, growing_offsets).into())
    }

    /// Pads to `length` tokens in place, its overflowing parts too, as HF's `Encoding.pad`.
    #[pyo3(signature = (length, direction="right", pad_id=0, pad_type_id=0, pad_token="[PAD]"))]
    fn pad(
        &mut self,
        py: Python<'_>,
        length: i64,
        direction: &str,
        pad_id: i64,
        pad_type_id: i64,
        pad_token: &str,
    ) -> PyResult<()> {
        let direction = parse_direction("pad", direction, Error::Padding).py_err(py)?;
        let pad_token = pad_token.to_string();
        let padding = Padding::to_length(length, direction, pad_id, pad_type_id, pad_token);
        let padding = padding.py_err(py)?;
        padding.pad(self.full(py)?);
        Ok(())
    }

    /// Truncates to `max_length` tokens in place, as HF's `Encoding.truncate`.
    #[pyo3(signature = (max_length, stride=0, direction="right"))]
    fn truncate(
        &mut self,
        py: Python<'_>,
        max_length: i64,
        stride: i64,
        direction: &str,
    ) -> PyResult<()> {
        let direction = parse_direction("truncate", direction, Error::Truncation).py_err(py)?;
        let max_length = truncation_number("max_length", max_length).py_err(py)?;
        let stride = truncation_number("stride", stride).py_err(py)?;
        truncate(self.full(py)?, max_length, stride, direction).py_err(py)
    }
}

/// `"left"` or `"right"`; anything else is the error `kind` makes, naming the method and
/// the option.
fn parse_direction(
    method: &str,
    value: &str,
    kind: fn(String) -> Error,
) -> Result<Direction, Error> {
    match value {
        "left" => Ok(Direction::Left),
        "right" => Ok(Direction::Right),
        other => Err(kind(format!(
            "{method}: unknown direction {other:?} (use right or left)"
        ))),
    }
}

/// `value` as an index, or the error naming `method`'s `argument` when it is negative (an
/// `IndexRangeError`, an `OverflowError` too, as HF raises).
fn index(py: Python<'_>, method: &str, argument: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value).map_err(|_| {
        new_error(
            py,
            "IndexRangeError",
            format!("{method}: {argument} must not be negative, got {value}"),
        )
    })
}

/// `value` as a word index, or the error naming `method` when it is not a `u32`.
fn word(py: Python<'_>, method: &str, value: i64) -> PyResult<u32> {
    u32::try_from(value).map_err(|_| {
        new_error(
            py,
            "IndexRangeError",
            format!(
                "{method}: word_index must be from 0 to {}, got {value}",
                u32::MAX
            ),
        )
    })
}
