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
use tokensmith_core::hf::truncation::{truncate, Direction};
use tokensmith_core::hf::HfEncoding;

use crate::errors::IntoPyResult;
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
        };
        Self {
            inner,
            pending: Some(pending),
        }
    }

    /// The whole encoding, computed first if only the ids are known.
    fn full(&mut self, py: Python<'_>) -> PyResult<&mut HfEncoding> {
        if let Some(p) = self.pending.take() {
            let core = p.tokenizer.get().core();
            let pair = p.pair.as_deref();
            // The GIL stays held: a result is one input's worth of work, and no other thread
            // can then find the result mutably borrowed while it is computed.
            let full = core
                .encode(&p.text, pair, p.add_special_tokens)
                .py_err(py)?;
            debug_assert_eq!(full.ids, self.inner.ids);
            self.inner = full;
        }
        Ok(&mut self.inner)
    }
}

#[pymethods]
impl EncodingResult {
    #[new]
    #[pyo3(signature = (ids, tokens, offsets, type_ids, attention_mask, special_tokens_mask, word_ids, overflowing=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ids: Vec<u32>,
        tokens: Vec<String>,
        offsets: Vec<(usize, usize)>,
        type_ids: Vec<u32>,
        attention_mask: Vec<u32>,
        special_tokens_mask: Vec<u32>,
        word_ids: Vec<Option<u32>>,
        overflowing: Option<Vec<Bound<'_, EncodingResult>>>,
    ) -> PyResult<Self> {
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

    /// The seven lists and the overflowing results, in constructor order (so `pickle` and
    /// `copy` rebuild the result).
    fn __getnewargs__<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let overflowing = self.overflowing(py)?;
        let e = &self.inner;
        (
            e.ids.clone(),
            e.tokens(),
            e.offsets.clone(),
            e.type_ids.clone(),
            e.attention_mask.clone(),
            e.special_tokens_mask.clone(),
            e.word_ids.clone(),
            overflowing,
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

    /// Pads to `length` tokens in place, its overflowing parts too, as HF's `Encoding.pad`.
    #[pyo3(signature = (length, *, direction="right", pad_id=0, pad_type_id=0, pad_token="[PAD]".to_string()))]
    fn pad(
        &mut self,
        py: Python<'_>,
        length: i64,
        direction: &str,
        pad_id: i64,
        pad_type_id: i64,
        pad_token: String,
    ) -> PyResult<()> {
        let direction = parse_direction("pad", direction, Error::Padding).py_err(py)?;
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
        let number = |option: &str, value: i64| {
            usize::try_from(value).map_err(|_| {
                Error::Truncation(format!(
                    "truncate: {option} must not be negative, got {value}"
                ))
            })
        };
        let max_length = number("max_length", max_length).py_err(py)?;
        let stride = number("stride", stride).py_err(py)?;
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
