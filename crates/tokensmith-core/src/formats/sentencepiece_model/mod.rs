//! SentencePiece `.model` files: the `ModelProto` protobuf message, read and written by hand so
//! that the core needs no protobuf dependency.
//!
//! Field numbers follow sentencepiece's `sentencepiece_model.proto`. The typed structs hold the
//! fields that running a model needs; everything else a loaded file carries (the other
//! `TrainerSpec` options, `self_test_data`, the normalization rule TSV, fields this reader does
//! not know) is kept as raw bytes in [`Preserved`], so that [`write::serialize`] gives back the
//! same bytes for an unmodified model, and keeps those fields when a model is edited.
//!
//! A damaged file gives [`crate::error::Error::ModelFormat`] naming the message, the field and
//! the byte offset; the reader never panics and never allocates more than the input's size.

mod read;
mod wire;
mod write;

pub use read::{parse, read};
pub use write::serialize;

use rustc_hash::FxHashMap;

/// What a piece is for (`ModelProto.SentencePiece.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceType {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

impl PieceType {
    fn from_wire(value: u64) -> Option<Self> {
        Some(match value {
            1 => Self::Normal,
            2 => Self::Unknown,
            3 => Self::Control,
            4 => Self::UserDefined,
            5 => Self::Unused,
            6 => Self::Byte,
            _ => return None,
        })
    }

    fn to_wire(self) -> u64 {
        match self {
            Self::Normal => 1,
            Self::Unknown => 2,
            Self::Control => 3,
            Self::UserDefined => 4,
            Self::Unused => 5,
            Self::Byte => 6,
        }
    }
}

/// One vocabulary entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub piece: String,
    pub score: f32,
    pub kind: PieceType,
}

/// `TrainerSpec.model_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelType {
    Unigram,
    Bpe,
    Word,
    Char,
}

/// The fields of `TrainerSpec` that encoding and decoding depend on, with proto2 defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainerSpec {
    pub model_type: ModelType,
    pub vocab_size: i32,
    pub byte_fallback: bool,
    pub split_digits: bool,
    pub treat_whitespace_as_suffix: bool,
    pub max_sentencepiece_length: i32,
    pub unk_id: i32,
    pub bos_id: i32,
    pub eos_id: i32,
    pub pad_id: i32,
    pub unk_surface: String,
    /// The pieces whose ids sentencepiece reports as `unk_id()`, `bos_id()`, `eos_id()` and
    /// `pad_id()` (fields 45-48).
    pub unk_piece: String,
    pub bos_piece: String,
    pub eos_piece: String,
    pub pad_piece: String,
}

impl Default for TrainerSpec {
    fn default() -> Self {
        Self {
            model_type: ModelType::Unigram,
            vocab_size: 8000,
            byte_fallback: false,
            split_digits: false,
            treat_whitespace_as_suffix: false,
            max_sentencepiece_length: 16,
            unk_id: 0,
            bos_id: 1,
            eos_id: 2,
            pad_id: -1,
            unk_surface: " \u{2047} ".to_string(),
            unk_piece: "<unk>".to_string(),
            bos_piece: "<s>".to_string(),
            eos_piece: "</s>".to_string(),
            pad_piece: "<pad>".to_string(),
        }
    }
}

/// `NormalizerSpec`, with proto2 defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct NormalizerSpec {
    pub name: String,
    pub precompiled_charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
    /// True when the file carries a `normalization_rule_tsv` (field 6, kept in [`Preserved`]).
    pub has_rule_tsv: bool,
}

impl Default for NormalizerSpec {
    fn default() -> Self {
        Self {
            name: String::new(),
            precompiled_charsmap: Vec::new(),
            add_dummy_prefix: true,
            remove_extra_whitespaces: true,
            escape_whitespaces: true,
            has_rule_tsv: false,
        }
    }
}

/// A `.model` file: pieces, the two specs, and what the reader kept without parsing.
///
/// Build a new one with `..Default::default()`; `preserved` stays empty then.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelProto {
    pub pieces: Vec<Piece>,
    pub trainer_spec: TrainerSpec,
    pub normalizer_spec: NormalizerSpec,
    /// Present only in files that carry one (sentencepiece's trainer always writes it).
    pub denormalizer_spec: Option<NormalizerSpec>,
    /// The loaded file's bytes that the typed fields above do not capture.
    pub preserved: Preserved,
}

impl ModelProto {
    /// This model's normalizer spec alone (its unparsed fields kept), as sentencepiece's
    /// `SentencePieceNormalizer` serializes a model: no pieces and no trainer spec.
    pub fn normalizer_only(&self) -> ModelProto {
        ModelProto {
            normalizer_spec: self.normalizer_spec.clone(),
            preserved: Preserved {
                normalizer_spec: self.preserved.normalizer_spec.clone(),
                lacks_trainer_spec: true,
                ..Preserved::default()
            },
            ..ModelProto::default()
        }
    }
}

/// Raw bytes a loaded `.model` carried, written back by [`serialize`].
///
/// The spec messages are kept whole: their known fields are re-encoded from the typed structs
/// (so edits take effect), and their other fields are copied, all in field-number order as
/// protobuf writes them. A piece whose bytes are not what [`serialize`] would write for it is
/// kept too, and written back as long as the piece is unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Preserved {
    pub(crate) trainer_spec: Vec<u8>,
    pub(crate) normalizer_spec: Vec<u8>,
    pub(crate) denormalizer_spec: Vec<u8>,
    /// Top-level fields other than pieces and specs (e.g. `self_test_data`): field number and
    /// the field's whole encoding, key included.
    pub(crate) fields: Vec<(u32, Vec<u8>)>,
    /// Pieces (by index) whose encoding differs from the canonical one: the piece as read, and
    /// its message bytes.
    pub(crate) pieces: FxHashMap<usize, (Piece, Vec<u8>)>,
    /// The loaded file had no trainer spec / no normalizer spec: an unchanged (all-default)
    /// one is not written back.
    pub(crate) lacks_trainer_spec: bool,
    pub(crate) lacks_normalizer_spec: bool,
}
