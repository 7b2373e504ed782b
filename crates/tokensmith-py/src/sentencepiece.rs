//! `tokensmith._core.CoreSentencePiece`: a loaded `.model` behind
//! `tokensmith.SentencePieceProcessor`. Frozen, and encode/decode release the GIL.

use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

use crate::errors::IntoPyResult;

#[pyclass(frozen, name = "CoreSentencePiece", module = "tokensmith._core")]
pub struct CoreSentencePiece {
    inner: Arc<SentencePieceProcessor>,
}

#[pymethods]
impl CoreSentencePiece {
    /// Loads a `.model` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py
            .detach(|| SentencePieceProcessor::open(&path))
            .py_err(py)?;
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// Loads the bytes of a `.model` file.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<Self> {
        let inner = py
            .detach(|| SentencePieceProcessor::from_bytes(&data))
            .py_err(py)?;
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    fn encode_ids(&self, py: Python<'_>, text: &str) -> Vec<u32> {
        py.detach(|| self.inner.encode_ids(text))
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

    fn normalize(&self, py: Python<'_>, text: &str) -> String {
        py.detach(|| self.inner.normalize(text))
    }

    fn decode(&self, py: Python<'_>, ids: Vec<u32>) -> PyResult<String> {
        py.detach(|| self.inner.decode(&ids)).py_err(py)
    }

    fn piece_size(&self) -> usize {
        self.inner.piece_size()
    }

    fn id_to_piece(&self, py: Python<'_>, id: u32) -> PyResult<String> {
        self.inner.id_to_piece(id).map(str::to_string).py_err(py)
    }

    fn piece_to_id(&self, piece: &str) -> u32 {
        self.inner.piece_to_id(piece)
    }

    fn get_score(&self, py: Python<'_>, id: u32) -> PyResult<f32> {
        self.inner.score(id).py_err(py)
    }

    /// One of "normal", "unknown", "control", "user_defined", "unused", "byte".
    fn piece_type(&self, py: Python<'_>, id: u32) -> PyResult<&'static str> {
        use tokensmith_core::formats::sentencepiece_model::PieceType;
        Ok(match self.inner.piece_type(id).py_err(py)? {
            PieceType::Normal => "normal",
            PieceType::Unknown => "unknown",
            PieceType::Control => "control",
            PieceType::UserDefined => "user_defined",
            PieceType::Unused => "unused",
            PieceType::Byte => "byte",
        })
    }

    /// `(unk, bos, eos, pad)` ids from the trainer spec; -1 means absent.
    fn special_ids(&self) -> (i32, i32, i32, i32) {
        let spec = &self.inner.proto().trainer_spec;
        (spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id)
    }
}

impl CoreSentencePiece {
    /// Wraps a processor built in Rust (a trained model).
    pub(crate) fn from_processor(inner: SentencePieceProcessor) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }
}
