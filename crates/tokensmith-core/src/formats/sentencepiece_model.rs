//! Reader for SentencePiece `.model` files: a `ModelProto` protobuf message.
//!
//! Hand-written so that the core needs no protobuf dependency. Only the fields that running a
//! model needs are kept; every other field is skipped by wire type. Field numbers follow
//! sentencepiece's `sentencepiece_model.proto`. Unknown fields are skipped, as protobuf does.
//!
//! Not handled yet: writing `.model` files, and `self_test_data` (skipped).
//!
//! A damaged file gives [`Error::ModelFormat`] naming the message, the field and the byte
//! offset; the reader never panics and never allocates more than the input's size.

use crate::error::{Error, Result};

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
    /// True when the file carries a `normalization_rule_tsv` (field 6).
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

/// A parsed `.model` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelProto {
    pub pieces: Vec<Piece>,
    pub trainer_spec: TrainerSpec,
    pub normalizer_spec: NormalizerSpec,
    /// Present only in models trained with a denormalization rule.
    pub denormalizer_spec: Option<NormalizerSpec>,
}

/// Reads a `.model` file from disk.
pub fn read(path: &std::path::Path) -> Result<ModelProto> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes)
}

/// Parses the bytes of a `.model` file.
///
/// ```
/// use tokensmith_core::formats::sentencepiece_model::parse;
/// // One piece "a" with score -1.0 and type NORMAL.
/// let bytes = [0x0a, 0x0a, 0x0a, 0x01, b'a', 0x15, 0, 0, 0x80, 0xbf, 0x18, 0x01];
/// let model = parse(&bytes).unwrap();
/// assert_eq!(model.pieces[0].piece, "a");
/// assert!(parse(&bytes[..5]).is_err());
/// ```
pub fn parse(bytes: &[u8]) -> Result<ModelProto> {
    let mut model = ModelProto::default();
    let mut r = Reader::new(bytes, "ModelProto", 0);
    while let Some((field, wire)) = r.tag()? {
        match (field, wire) {
            (1, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                let index = model.pieces.len();
                model.pieces.push(parse_piece(sub, offset, index)?);
            }
            (2, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                parse_trainer_spec(sub, offset, &mut model.trainer_spec)?;
            }
            (3, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                parse_normalizer_spec(sub, offset, &mut model.normalizer_spec)?;
            }
            (5, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                let mut spec = NormalizerSpec::default();
                parse_normalizer_spec(sub, offset, &mut spec)?;
                model.denormalizer_spec = Some(spec);
            }
            (1..=3 | 5, _) => return Err(r.wrong_wire(field, wire)),
            _ => r.skip(field, wire)?,
        }
    }
    if model.pieces.is_empty() {
        return Err(Error::ModelFormat(
            "the file holds no pieces: it is not a SentencePiece .model file, or it is empty"
                .into(),
        ));
    }
    Ok(model)
}

fn parse_piece(bytes: &[u8], base: usize, index: usize) -> Result<Piece> {
    let mut r = Reader::new(bytes, "SentencePiece", base);
    let mut piece = Piece {
        piece: String::new(),
        score: 0.0,
        kind: PieceType::Normal,
    };
    while let Some((field, wire)) = r.tag()? {
        match (field, wire) {
            (1, WireType::Len) => piece.piece = r.string(field)?,
            (2, WireType::Fixed32) => piece.score = f32::from_bits(r.fixed32(field)?),
            (3, WireType::Varint) => {
                let at = r.pos;
                let value = r.varint(field)?;
                piece.kind = PieceType::from_wire(value).ok_or_else(|| {
                    Error::ModelFormat(format!(
                        "piece {index} has an unknown type {value} (byte offset {})",
                        base + at
                    ))
                })?;
            }
            (1..=3, _) => return Err(r.wrong_wire(field, wire)),
            _ => r.skip(field, wire)?,
        }
    }
    Ok(piece)
}

fn parse_trainer_spec(bytes: &[u8], base: usize, spec: &mut TrainerSpec) -> Result<()> {
    let mut r = Reader::new(bytes, "TrainerSpec", base);
    while let Some((field, wire)) = r.tag()? {
        match (field, wire) {
            (3, WireType::Varint) => {
                let value = r.varint(field)?;
                spec.model_type = match value {
                    1 => ModelType::Unigram,
                    2 => ModelType::Bpe,
                    3 => ModelType::Word,
                    4 => ModelType::Char,
                    _ => {
                        return Err(Error::ModelFormat(format!(
                            "TrainerSpec.model_type has an unknown value {value}"
                        )));
                    }
                }
            }
            (4, WireType::Varint) => spec.vocab_size = r.varint(field)? as i32,
            (20, WireType::Varint) => spec.max_sentencepiece_length = r.varint(field)? as i32,
            (24, WireType::Varint) => spec.treat_whitespace_as_suffix = r.varint(field)? != 0,
            (25, WireType::Varint) => spec.split_digits = r.varint(field)? != 0,
            (35, WireType::Varint) => spec.byte_fallback = r.varint(field)? != 0,
            // int32 fields are sign-extended to 64 bits on the wire, so -1 round-trips.
            (40, WireType::Varint) => spec.unk_id = r.varint(field)? as i32,
            (41, WireType::Varint) => spec.bos_id = r.varint(field)? as i32,
            (42, WireType::Varint) => spec.eos_id = r.varint(field)? as i32,
            (43, WireType::Varint) => spec.pad_id = r.varint(field)? as i32,
            (44, WireType::Len) => spec.unk_surface = r.string(field)?,
            (3 | 4 | 20 | 24 | 25 | 35 | 40..=44, _) => return Err(r.wrong_wire(field, wire)),
            _ => r.skip(field, wire)?,
        }
    }
    Ok(())
}

fn parse_normalizer_spec(bytes: &[u8], base: usize, spec: &mut NormalizerSpec) -> Result<()> {
    let mut r = Reader::new(bytes, "NormalizerSpec", base);
    while let Some((field, wire)) = r.tag()? {
        match (field, wire) {
            (1, WireType::Len) => spec.name = r.string(field)?,
            (2, WireType::Len) => spec.precompiled_charsmap = r.bytes(field)?.0.to_vec(),
            (3, WireType::Varint) => spec.add_dummy_prefix = r.varint(field)? != 0,
            (4, WireType::Varint) => spec.remove_extra_whitespaces = r.varint(field)? != 0,
            (5, WireType::Varint) => spec.escape_whitespaces = r.varint(field)? != 0,
            (6, WireType::Len) => {
                r.bytes(field)?;
                spec.has_rule_tsv = true;
            }
            (1..=6, _) => return Err(r.wrong_wire(field, wire)),
            _ => r.skip(field, wire)?,
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WireType {
    Varint,
    Fixed64,
    Len,
    Fixed32,
}

/// A cursor over one message's bytes. `base` is the message's offset in the file, so errors
/// can name absolute offsets.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: usize,
    message: &'static str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], message: &'static str, base: usize) -> Self {
        Self {
            bytes,
            pos: 0,
            base,
            message,
        }
    }

    fn error(&self, what: String) -> Error {
        Error::ModelFormat(format!(
            "{} at byte offset {}: {what} (the file is truncated or is not a SentencePiece .model)",
            self.message,
            self.base + self.pos
        ))
    }

    fn wrong_wire(&self, field: u32, wire: WireType) -> Error {
        self.error(format!("field {field} has the wrong wire type {wire:?}"))
    }

    fn raw_varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in 0..10 {
            let byte = *self.bytes.get(self.pos)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (7 * shift);
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn tag(&mut self) -> Result<Option<(u32, WireType)>> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        let start = self.pos;
        let key = self.raw_varint().ok_or_else(|| {
            self.pos = start;
            self.error("a field key is cut off".into())
        })?;
        let field = key >> 3;
        let wire = match key & 7 {
            0 => WireType::Varint,
            1 => WireType::Fixed64,
            2 => WireType::Len,
            5 => WireType::Fixed32,
            other => {
                self.pos = start;
                return Err(self.error(format!("unsupported wire type {other}")));
            }
        };
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            self.pos = start;
            return Err(self.error(format!("invalid field number {field}")));
        }
        Ok(Some((field as u32, wire)))
    }

    fn varint(&mut self, field: u32) -> Result<u64> {
        let start = self.pos;
        self.raw_varint().ok_or_else(|| {
            self.pos = start;
            self.error(format!("the varint of field {field} is cut off"))
        })
    }

    fn fixed32(&mut self, field: u32) -> Result<u32> {
        let chunk = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error(format!("the 4-byte value of field {field} is cut off")))?;
        self.pos += 4;
        Ok(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
    }

    /// A length-delimited payload and its absolute offset.
    fn bytes(&mut self, field: u32) -> Result<(&'a [u8], usize)> {
        let len = self.varint(field)?;
        let remaining = (self.bytes.len() - self.pos) as u64;
        if len > remaining {
            return Err(self.error(format!(
                "field {field} claims {len} bytes but only {remaining} remain"
            )));
        }
        let start = self.pos;
        self.pos += len as usize;
        Ok((&self.bytes[start..self.pos], self.base + start))
    }

    fn string(&mut self, field: u32) -> Result<String> {
        let start = self.pos;
        let (raw, _) = self.bytes(field)?;
        String::from_utf8(raw.to_vec()).map_err(|_| {
            self.pos = start;
            self.error(format!("field {field} is not valid UTF-8"))
        })
    }

    fn skip(&mut self, field: u32, wire: WireType) -> Result<()> {
        match wire {
            WireType::Varint => {
                self.varint(field)?;
            }
            WireType::Fixed32 => {
                self.fixed32(field)?;
            }
            WireType::Fixed64 => {
                if self.bytes.len() - self.pos < 8 {
                    return Err(self.error(format!("the 8-byte value of field {field} is cut off")));
                }
                self.pos += 8;
            }
            WireType::Len => {
                self.bytes(field)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn len_field(field: u64, payload: &[u8], out: &mut Vec<u8>) {
        varint(field << 3 | 2, out);
        varint(payload.len() as u64, out);
        out.extend_from_slice(payload);
    }

    fn piece(text: &str, score: f32, kind: u64) -> Vec<u8> {
        let mut p = Vec::new();
        len_field(1, text.as_bytes(), &mut p);
        p.push(2 << 3 | 5);
        p.extend_from_slice(&score.to_le_bytes());
        varint(3 << 3, &mut p);
        varint(kind, &mut p);
        p
    }

    fn sample() -> Vec<u8> {
        let mut out = Vec::new();
        len_field(1, &piece("<unk>", 0.0, 2), &mut out);
        len_field(1, &piece("ab", -0.5, 1), &mut out);
        let mut trainer = Vec::new();
        varint(3 << 3, &mut trainer);
        varint(2, &mut trainer);
        varint(35 << 3, &mut trainer);
        varint(1, &mut trainer);
        varint(43 << 3, &mut trainer);
        varint(-1i64 as u64, &mut trainer);
        // An unknown field (99, varint) that must be skipped.
        varint(99 << 3, &mut trainer);
        varint(7, &mut trainer);
        len_field(2, &trainer, &mut out);
        let mut norm = Vec::new();
        len_field(1, b"identity", &mut norm);
        varint(3 << 3, &mut norm);
        varint(0, &mut norm);
        len_field(3, &norm, &mut out);
        out
    }

    #[test]
    fn reads_pieces_and_specs() {
        let model = parse(&sample()).unwrap();
        assert_eq!(model.pieces.len(), 2);
        assert_eq!(model.pieces[0].kind, PieceType::Unknown);
        assert_eq!(model.pieces[1].piece, "ab");
        assert_eq!(model.pieces[1].score, -0.5);
        assert_eq!(model.trainer_spec.model_type, ModelType::Bpe);
        assert!(model.trainer_spec.byte_fallback);
        assert_eq!(model.trainer_spec.pad_id, -1);
        assert_eq!(model.trainer_spec.unk_id, 0);
        assert_eq!(model.normalizer_spec.name, "identity");
        assert!(!model.normalizer_spec.add_dummy_prefix);
        assert!(model.normalizer_spec.remove_extra_whitespaces);
    }

    #[test]
    fn truncation_is_an_error_that_names_the_problem() {
        let bytes = sample();
        let err = parse(&bytes[..bytes.len() - 3]).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        assert!(parse(&[]).unwrap_err().to_string().contains("no pieces"));
    }

    proptest! {
        #[test]
        fn never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn every_truncation_fails_or_parses(cut in 0usize..200, flip in 0usize..200, bit in 0u8..8) {
            let mut bytes = sample();
            let cut = cut % (bytes.len() + 1);
            let _ = parse(&bytes[..cut]);
            let at = flip % bytes.len();
            bytes[at] ^= 1 << bit;
            let _ = parse(&bytes);
        }
    }
}
