//! `tokensmith._core.CoreSentencePiece`: a loaded `.model` behind
//! `tokensmith.SentencePieceProcessor` and the SentencePiece backend of `tokensmith.Tokenizer`.
//! Frozen, and every call that scales with the input releases the GIL.

use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyInt, PyList, PyString};
use pyo3::PyTraverseError;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokensmith_core::error::Error;
use tokensmith_core::formats::sentencepiece_model::{
    ModelProto, ModelType, NormalizerSpec, Piece, PieceType, TrainerSpec,
};
use tokensmith_core::sentencepiece::{OffsetPiece, SentencePieceProcessor};

use crate::errors::{new_error, to_py};
use crate::int_cache::IntCache;
use crate::numpy_array::vec_array;
use crate::spm_batch::{self, with_texts};

/// One segmentation: its pieces and their ids.
type Segmentation = (Vec<String>, Vec<u32>);
/// One segmentation with each piece's `(begin, end)` in characters of the input.
type OffsetSegmentation = (Vec<String>, Vec<u32>, Vec<(usize, usize)>);
/// One n-best entry: pieces, ids and the score.
type ScoredSegmentation = (Vec<String>, Vec<u32>, f32);
/// `(piece, id, begin, end, has_surface)` with byte offsets: what a `SentencePieceText`
/// holds (see `OffsetPiece`).
type ProtoPieces = Vec<(String, u32, usize, usize, bool)>;

fn proto_pieces(pieces: Vec<OffsetPiece>) -> ProtoPieces {
    pieces
        .into_iter()
        .map(|p| (p.piece, p.id, p.begin, p.end, p.has_surface))
        .collect()
}
/// A text with the `(begin, end)` byte span of each piece in it.
type SpannedText = (String, Vec<(usize, usize)>);

/// Core errors as the sentencepiece face raises them: a bad id is also an `IndexError`, and an
/// option the processor refuses also a `RuntimeError`, as in sentencepiece.
trait SpmResult<T> {
    fn spm_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> SpmResult<T> for Result<T, Error> {
    fn spm_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| match e {
            Error::UnknownTokenId { .. } => new_error(py, "PieceIdOutOfRangeError", e.to_string()),
            Error::InvalidOption(_) => new_error(py, "SentencePieceOptionError", e.to_string()),
            e => to_py(py, e),
        })
    }
}

#[pyclass(frozen, name = "CoreSentencePiece", module = "tokensmith._core")]
pub struct CoreSentencePiece {
    inner: Arc<SentencePieceProcessor>,
    /// The Python ints of the ids, one per piece.
    ints: IntCache,
}

fn split(pairs: Vec<(String, u32)>) -> Segmentation {
    pairs.into_iter().unzip()
}

/// Texts shorter than this (in bytes) are encoded without releasing the GIL: releasing and
/// taking it back is a fixed cost per call (about 0.1 us, a tenth of encoding a 76-byte line),
/// and a short call ends before another thread could make use of it.
pub(crate) const DETACH_AT: usize = 1024;

/// For each byte offset of `text` (and its end), the number of characters before it; offsets
/// inside a character get that character's index.
fn char_index_of_bytes(text: &str) -> Vec<usize> {
    let mut index = Vec::with_capacity(text.len() + 1);
    for (i, c) in text.chars().enumerate() {
        index.extend(std::iter::repeat_n(i, c.len_utf8()));
    }
    index.push(text.chars().count());
    index
}

fn kind_name(kind: PieceType) -> &'static str {
    match kind {
        PieceType::Normal => "normal",
        PieceType::Unknown => "unknown",
        PieceType::Control => "control",
        PieceType::UserDefined => "user_defined",
        PieceType::Unused => "unused",
        PieceType::Byte => "byte",
    }
}

fn kind_from_name(name: &str) -> Result<PieceType, Error> {
    Ok(match name {
        "normal" => PieceType::Normal,
        "unknown" => PieceType::Unknown,
        "control" => PieceType::Control,
        "user_defined" => PieceType::UserDefined,
        "unused" => PieceType::Unused,
        "byte" => PieceType::Byte,
        other => {
            return Err(Error::InvalidVocab(format!(
                "unknown piece type {other:?}; use one of normal, unknown, control, \
                 user_defined, unused, byte"
            )))
        }
    })
}

fn to_pieces(pieces: Vec<(String, f32, String)>) -> Result<Vec<Piece>, Error> {
    pieces
        .into_iter()
        .map(|(piece, score, kind)| {
            Ok(Piece {
                piece,
                score,
                kind: kind_from_name(&kind)?,
            })
        })
        .collect()
}

impl CoreSentencePiece {
    fn wrap(inner: SentencePieceProcessor) -> Self {
        Self {
            ints: IntCache::new(inner.piece_size()),
            inner: Arc::new(inner),
        }
    }

    /// The ids of `text` as a Python list.
    fn ids_of<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
        if text.len() < DETACH_AT {
            // The list comes out of the closure as one pointer (an error waits aside): a
            // `PyResult` moved out whole was copied through memory in wider loads than the
            // stores that wrote it, a store-forwarding stall on every call.
            let mut failed = None;
            let list = self.inner.with_ids(text, |ids| match self.list(py, ids) {
                Ok(list) => Some(list),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            list.ok_or_else(|| failed.unwrap_or_else(|| PyErr::fetch(py)))
        } else {
            let ids = py.detach(|| self.inner.encode_ids(text));
            self.list(py, &ids)
        }
    }

    /// `ids` as a Python list of the cached ints.
    fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        self.ints.list(py, ids)
    }

    fn ids(&self, ids: &[i64]) -> Result<Vec<u32>, Error> {
        ids.iter().map(|&i| self.id(i)).collect()
    }

    fn id(&self, id: i64) -> Result<u32, Error> {
        u32::try_from(id)
            .ok()
            .filter(|&i| (i as usize) < self.inner.piece_size())
            .ok_or_else(|| Error::UnknownTokenId {
                id,
                valid: format!("0..{}", self.inner.piece_size()),
            })
    }
}

#[pymethods]
impl CoreSentencePiece {
    /// Loads a `.model` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        py.detach(|| SentencePieceProcessor::open(&path))
            .map(Self::wrap)
            .spm_err(py)
    }

    /// Loads the bytes of a `.model` file.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: PyBackedBytes) -> PyResult<Self> {
        py.detach(|| SentencePieceProcessor::from_bytes(&data))
            .map(Self::wrap)
            .spm_err(py)
    }

    /// A new model from `(piece, score, type)` triples, with identity normalization.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn from_pieces(
        py: Python<'_>,
        pieces: Vec<(String, f32, String)>,
        model_type: &str,
        byte_fallback: bool,
        add_dummy_prefix: bool,
        remove_extra_whitespaces: bool,
        treat_whitespace_as_suffix: bool,
    ) -> PyResult<Self> {
        let build = || {
            let model_type = match model_type {
                "unigram" => ModelType::Unigram,
                "bpe" => ModelType::Bpe,
                "char" => ModelType::Char,
                "word" => ModelType::Word,
                other => {
                    return Err(Error::InvalidOption(format!(
                        "model_type={other:?} is not known; use \"unigram\", \"bpe\", \
                         \"char\" or \"word\""
                    )))
                }
            };
            let pieces = to_pieces(pieces)?;
            let id_of = |kind: PieceType, name: &str| {
                pieces
                    .iter()
                    .position(|p| p.kind == kind && p.piece == name)
                    .map_or(-1, |i| i as i32)
            };
            let trainer_spec = TrainerSpec {
                model_type,
                vocab_size: pieces.len() as i32,
                byte_fallback,
                treat_whitespace_as_suffix,
                unk_id: pieces
                    .iter()
                    .position(|p| p.kind == PieceType::Unknown)
                    .map_or(0, |i| i as i32),
                bos_id: id_of(PieceType::Control, "<s>"),
                eos_id: id_of(PieceType::Control, "</s>"),
                pad_id: id_of(PieceType::Control, "<pad>"),
                ..TrainerSpec::default()
            };
            let normalizer_spec = NormalizerSpec {
                name: "identity".into(),
                add_dummy_prefix,
                remove_extra_whitespaces,
                ..NormalizerSpec::default()
            };
            SentencePieceProcessor::from_proto(ModelProto {
                pieces,
                trainer_spec,
                normalizer_spec,
                denormalizer_spec: Some(NormalizerSpec::default()),
                ..ModelProto::default()
            })
        };
        build().map(Self::wrap).spm_err(py)
    }

    /// The same model with another vocabulary of `(piece, score, type)` triples.
    fn with_pieces(&self, py: Python<'_>, pieces: Vec<(String, f32, String)>) -> PyResult<Self> {
        py.detach(|| self.inner.with_pieces(to_pieces(pieces)?))
            .map(Self::wrap)
            .spm_err(py)
    }

    /// Every piece as `(piece, score, type)`.
    fn pieces(&self) -> Vec<(String, f32, &'static str)> {
        self.inner
            .proto()
            .pieces
            .iter()
            .map(|p| (p.piece.clone(), p.score, kind_name(p.kind)))
            .collect()
    }

    /// The bytes of the `.model` file.
    fn serialize<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        let bytes = py.detach(|| self.inner.to_bytes());
        pyo3::types::PyBytes::new(py, &bytes)
    }

    fn model_type(&self) -> &'static str {
        match self.inner.proto().trainer_spec.model_type {
            ModelType::Bpe => "bpe",
            ModelType::Unigram => "unigram",
            ModelType::Word => "word",
            ModelType::Char => "char",
        }
    }

    fn encode_ids<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
        self.ids_of(py, text)
    }

    fn encode_pieces(&self, py: Python<'_>, text: &str) -> Vec<String> {
        py.detach(|| {
            self.inner
                .encode(text)
                .into_iter()
                .map(|(piece, _)| piece)
                .collect()
        })
    }

    /// `SentencePieceProcessor.encode` for a facade whose defaults ask for nothing but the
    /// ids (`as_ids`) or pieces of a text: see [`PlainEncode`]. `slow` is the `_encode` of
    /// the facade's twin, which takes the same arguments.
    /// `threads` is the facade's default `num_threads` (resolved: at least 1).
    fn plain_encode(slf: Py<Self>, slow: Py<PyAny>, as_ids: bool, threads: usize) -> PlainEncode {
        PlainEncode {
            core: slf,
            slow: Mutex::new(Some(slow)),
            as_ids,
            threads,
        }
    }

    /// Pieces and ids of one text.
    fn encode(&self, py: Python<'_>, text: &str) -> Segmentation {
        py.detach(|| split(self.inner.encode(text)))
    }

    /// Pieces, ids and `(begin, end)` offsets in characters of `text` (sentencepiece's byte
    /// offsets, counted in characters as Python indexes strings).
    fn encode_offsets(&self, py: Python<'_>, text: &str) -> OffsetSegmentation {
        py.detach(|| {
            let pieces = self.inner.encode_with_offsets(text);
            let chars = char_index_of_bytes(text);
            let total = chars.last().copied().unwrap_or(0);
            let at = |byte: usize| chars.get(byte).copied().unwrap_or(total);
            let mut out: OffsetSegmentation = (
                Vec::with_capacity(pieces.len()),
                Vec::with_capacity(pieces.len()),
                Vec::with_capacity(pieces.len()),
            );
            for p in pieces {
                out.0.push(p.piece);
                out.1.push(p.id);
                out.2.push((at(p.begin), at(p.end)));
            }
            out
        })
    }

    /// Ids, begins and ends (byte offsets in `text`, as [`Self::encode_proto`] gives them) as
    /// three `numpy.uint32` arrays: the offsets of a long text without a Python object per
    /// piece.
    fn encode_byte_offsets<'py>(
        &self,
        py: Python<'py>,
        text: &str,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let too_long = || {
            new_error(
                py,
                "LimitError",
                "a text over 4 GiB has no u32 offsets".into(),
            )
        };
        let columns = py.detach(|| {
            let found = self.inner.encode_offset_ids(text);
            let narrow = |column: Vec<usize>| -> Option<Vec<u32>> {
                column.into_iter().map(|x| u32::try_from(x).ok()).collect()
            };
            Some([found.ids, narrow(found.begins)?, narrow(found.ends)?])
        });
        let [ids, begins, ends] = columns.ok_or_else(too_long)?;
        Ok((
            vec_array(py, ids)?,
            vec_array(py, begins)?,
            vec_array(py, ends)?,
        ))
    }

    /// Pieces, ids and `(begin, end)` byte offsets in `text`, as sentencepiece's proto.
    fn encode_proto(&self, py: Python<'_>, text: &str) -> ProtoPieces {
        py.detach(|| proto_pieces(self.inner.encode_with_offsets(text)))
    }

    /// The `n` best segmentations with byte offsets and scores, best first.
    fn nbest_proto(
        &self,
        py: Python<'_>,
        text: &str,
        n: usize,
    ) -> PyResult<Vec<(ProtoPieces, f32)>> {
        py.detach(|| {
            self.inner.nbest_with_offsets(text, n).map(|list| {
                list.into_iter()
                    .map(|(pieces, score)| (proto_pieces(pieces), score))
                    .collect()
            })
        })
        .spm_err(py)
    }

    /// One sampled segmentation with byte offsets; the same `seed` gives the same result.
    fn sample_proto(
        &self,
        py: Python<'_>,
        text: &str,
        alpha: f32,
        nbest_size: i64,
        seed: u64,
    ) -> PyResult<ProtoPieces> {
        py.detach(|| {
            self.inner
                .sample_with_offsets(text, alpha, nbest_size, seed)
                .map(proto_pieces)
        })
        .spm_err(py)
    }

    /// The normalized text and, for each of its bytes and its end, the byte offset in
    /// `text` it came from.
    fn normalize_offsets(&self, py: Python<'_>, text: &str) -> (String, Vec<usize>) {
        py.detach(|| self.inner.normalize_with_offsets(text))
    }

    /// The decoded text and the byte span each id wrote in it.
    fn decode_spans(&self, py: Python<'_>, ids: Vec<i64>) -> PyResult<SpannedText> {
        py.detach(|| self.inner.decode_with_spans(&self.ids(&ids)?))
            .spm_err(py)
    }

    /// The text decoded from pieces and the byte span each piece wrote in it.
    fn decode_pieces_spans(&self, py: Python<'_>, pieces: Vec<String>) -> PyResult<SpannedText> {
        py.detach(|| self.inner.decode_pieces_with_spans(&pieces))
            .spm_err(py)
    }

    /// Ids of many texts (any iterable of `str`), on `num_threads` threads. This thread
    /// builds the Python lists of finished texts while the others encode the rest.
    fn encode_ids_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        with_texts(texts, |texts| {
            spm_batch::ids_batch(py, &self.inner, &self.ints, texts, num_threads)
        })?
    }

    /// Pieces of many texts (any iterable of `str`), on `num_threads` threads.
    fn encode_pieces_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        num_threads: usize,
    ) -> PyResult<Vec<Vec<String>>> {
        with_texts(texts, |texts| {
            spm_batch::pieces_batch(py, &self.inner, texts, num_threads)
        })
    }

    /// The `n` best segmentations with their scores, best first.
    fn nbest(&self, py: Python<'_>, text: &str, n: usize) -> PyResult<Vec<ScoredSegmentation>> {
        py.detach(|| {
            self.inner.nbest(text, n).map(|list| {
                list.into_iter()
                    .map(|(pairs, score)| {
                        let (pieces, ids) = split(pairs);
                        (pieces, ids, score)
                    })
                    .collect()
            })
        })
        .spm_err(py)
    }

    /// One sampled segmentation; the same `seed` gives the same result.
    fn sample(
        &self,
        py: Python<'_>,
        text: &str,
        alpha: f32,
        nbest_size: i64,
        seed: u64,
    ) -> PyResult<Segmentation> {
        py.detach(|| self.inner.sample(text, alpha, nbest_size, seed).map(split))
            .spm_err(py)
    }

    fn entropy(&self, py: Python<'_>, text: &str, alpha: f32) -> PyResult<f32> {
        py.detach(|| self.inner.entropy(text, alpha)).spm_err(py)
    }

    fn normalize(&self, py: Python<'_>, text: &str) -> String {
        py.detach(|| self.inner.normalize(text))
    }

    fn decode(&self, py: Python<'_>, ids: Vec<i64>) -> PyResult<String> {
        py.detach(|| self.inner.decode(&self.ids(&ids)?))
            .spm_err(py)
    }

    /// Decodes pieces; a piece not in the vocabulary is written as it is.
    fn decode_pieces(&self, py: Python<'_>, pieces: Vec<String>) -> PyResult<String> {
        py.detach(|| self.inner.decode_pieces(&pieces)).spm_err(py)
    }

    fn piece_size(&self) -> usize {
        self.inner.piece_size()
    }

    fn id_to_piece(&self, py: Python<'_>, id: i64) -> PyResult<String> {
        self.id(id)
            .and_then(|id| self.inner.id_to_piece(id).map(str::to_string))
            .spm_err(py)
    }

    fn piece_to_id(&self, piece: &str) -> u32 {
        self.inner.piece_to_id(piece)
    }

    /// The id of `piece`, or `None` when the vocabulary does not hold it.
    fn piece_id(&self, piece: &str) -> Option<u32> {
        let id = self.inner.piece_to_id(piece);
        (self.inner.id_to_piece(id).ok() == Some(piece)).then_some(id)
    }

    fn get_score(&self, py: Python<'_>, id: i64) -> PyResult<f32> {
        self.id(id).and_then(|id| self.inner.score(id)).spm_err(py)
    }

    /// One of "normal", "unknown", "control", "user_defined", "unused", "byte".
    fn piece_type(&self, py: Python<'_>, id: i64) -> PyResult<&'static str> {
        self.id(id)
            .and_then(|id| self.inner.piece_type(id))
            .map(kind_name)
            .spm_err(py)
    }

    /// `(unk, bos, eos, pad)` ids as sentencepiece reports them; -1 means absent.
    fn special_ids(&self) -> (i64, i64, i64, i64) {
        let [u, b, e, p] = self.inner.special_ids();
        (u, b, e, p)
    }
}

impl CoreSentencePiece {
    /// Wraps a processor built in Rust (a trained model).
    pub(crate) fn from_processor(inner: SentencePieceProcessor) -> Self {
        Self::wrap(inner)
    }
}

/// The bound method that a `SentencePieceProcessor` with plain defaults uses as its `encode`:
/// one text with no options (or only `out_type=int|str`) is encoded here, with no Python
/// frame in between; any other call goes on to the facade's `_encode` with every argument.
///
/// Frozen, so that a call takes no borrow of it (a borrow flag costs two atomic operations per
/// call, about a tenth of encoding a short text); the one field the collector clears sits
/// behind a lock that no Python code ever runs under.
#[pyclass(frozen, name = "PlainEncode", module = "tokensmith._core")]
pub struct PlainEncode {
    core: Py<CoreSentencePiece>,
    /// The `_encode` of the facade's twin (see `SentencePieceProcessor._twin`), which does
    /// not hold the facade; a subclass's attributes copied into the twin might, so the
    /// collector can still break a cycle through it.
    slow: Mutex<Option<Py<PyAny>>>,
    /// Whether the facade's default `out_type` is `int`.
    as_ids: bool,
    /// The facade's default `num_threads` for a list of texts.
    threads: usize,
}

#[pymethods]
impl PlainEncode {
    /// `encode` as a builtin method bound to this object, for the facade to store as its own
    /// `encode`: a call with one `str` and nothing else skips the parsing of the options.
    fn method<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        crate::plain_call::bound_encode(slf)
    }

    /// Encodes a text (or a list of texts) as `SentencePieceProcessor.encode` does.
    #[pyo3(signature = (
        input, out_type=None, add_bos=None, add_eos=None, reverse=None, emit_unk_piece=None,
        enable_sampling=None, nbest_size=None, alpha=None, num_threads=None, return_type=None,
        thread_pool=None, return_bytes=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        input: Bound<'py, PyAny>,
        out_type: Option<Bound<'py, PyAny>>,
        add_bos: Option<Bound<'py, PyAny>>,
        add_eos: Option<Bound<'py, PyAny>>,
        reverse: Option<Bound<'py, PyAny>>,
        emit_unk_piece: Option<Bound<'py, PyAny>>,
        enable_sampling: Option<Bound<'py, PyAny>>,
        nbest_size: Option<Bound<'py, PyAny>>,
        alpha: Option<Bound<'py, PyAny>>,
        num_threads: Option<Bound<'py, PyAny>>,
        return_type: Option<Bound<'py, PyAny>>,
        thread_pool: Option<Bound<'py, PyAny>>,
        return_bytes: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let plain = add_bos.is_none()
            && return_bytes.is_none()
            && add_eos.is_none()
            && reverse.is_none()
            && emit_unk_piece.is_none()
            && enable_sampling.is_none();
        // `out_type` and `return_type` are two names for one option.
        let as_ids = match (&out_type, &return_type) {
            (None, None) => Some(self.as_ids),
            (Some(t), None) | (None, Some(t)) => output_is_ids(py, t),
            _ => None,
        };
        // A text, or a list of texts with the default number of threads (the batch, with no
        // Python frame in between, which costs as much as encoding a few short texts).
        if let (true, Some(as_ids)) = (plain, as_ids) {
            let lists = num_threads.is_none() && thread_pool.is_none();
            if let Some(done) = self.encode_plain(py, &input, as_ids, lists) {
                return done;
            }
        }
        // A new reference, taken under the lock and used after it is released.
        let slow = self.slow_lock().as_ref().map(|s| s.clone_ref(py));
        let Some(slow) = slow else {
            return Err(pyo3::exceptions::PyReferenceError::new_err(
                "the SentencePieceProcessor of this encode method is gone",
            ));
        };
        let given = |o: Option<Bound<'py, PyAny>>| o.unwrap_or_else(|| py.None().into_bound(py));
        let args = pyo3::types::PyTuple::new(
            py,
            [
                input,
                given(out_type),
                given(add_bos),
                given(add_eos),
                given(reverse),
                given(emit_unk_piece),
                given(enable_sampling),
                given(nbest_size),
                given(alpha),
                given(num_threads),
                given(return_type),
                given(thread_pool),
                given(return_bytes),
            ],
        )?;
        slow.bind(py).call1(args)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // The lock is free whenever the collector runs: it is only held to copy or take the
        // reference, which runs no Python code and allocates nothing.
        match self.slow.try_lock() {
            Ok(slow) => visit.call(&*slow),
            Err(_) => Ok(()),
        }
    }

    fn __clear__(&self) {
        // Dropped after the lock is released: dropping may run Python code.
        let slow = self.slow_lock().take();
        drop(slow);
    }
}

/// `Some(true)` for the output type `int`, `Some(false)` for `str`, `None` for any other.
pub(crate) fn output_is_ids(py: Python<'_>, kind: &Bound<'_, PyAny>) -> Option<bool> {
    if kind.is(py.get_type::<PyInt>()) {
        Some(true)
    } else if kind.is(py.get_type::<PyString>()) {
        Some(false)
    } else {
        None
    }
}

impl PlainEncode {
    /// Whether the facade's default `out_type` is `int`.
    pub(crate) fn as_ids(&self) -> bool {
        self.as_ids
    }

    /// A call with no options: the ids (`as_ids`) or pieces of one text (an exact `str`), or,
    /// when `lists`, of a list of texts (an exact `list`) on the facade's default number of
    /// threads. `None` for any other input, which the general path handles.
    pub(crate) fn encode_plain<'py>(
        &self,
        py: Python<'py>,
        input: &Bound<'py, PyAny>,
        as_ids: bool,
        lists: bool,
    ) -> Option<PyResult<Bound<'py, PyAny>>> {
        let core = self.core.get();
        if let Ok(text) = input.cast_exact::<PyString>() {
            return Some(text.to_str().and_then(|text| {
                if as_ids {
                    core.ids_of(py, text).map(Bound::into_any)
                } else {
                    core.encode_pieces(py, text)
                        .into_pyobject(py)
                        .map(Bound::into_any)
                }
            }));
        }
        let list = input.cast_exact::<PyList>().ok().filter(|_| lists)?;
        // A list holding anything but `str` (bytes, read as UTF-8) goes the general way.
        if !list.iter().all(|t| t.is_exact_instance_of::<PyString>()) {
            return None;
        }
        Some(if as_ids {
            core.encode_ids_batch(py, input, self.threads)
                .map(Bound::into_any)
        } else {
            core.encode_pieces_batch(py, input, self.threads)
                .and_then(|pieces| pieces.into_pyobject(py).map(Bound::into_any))
        })
    }

    /// The facade's `_encode`, locked (a panic while locked cannot leave it half-written).
    fn slow_lock(&self) -> MutexGuard<'_, Option<Py<PyAny>>> {
        self.slow.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
