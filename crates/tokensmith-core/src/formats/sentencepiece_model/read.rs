//! The reader: bytes of a `.model` file to a [`ModelProto`].
//!
//! Only the fields that running a model needs are parsed; the rest is kept raw in
//! [`Preserved`] for the writer, or skipped by wire type inside pieces.

use super::wire::{Reader, WireType};
use super::write::put_piece_message;
use super::{ModelProto, ModelType, NormalizerSpec, Piece, PieceType, Preserved, TrainerSpec};
use crate::error::{Error, Result};

/// Reads a `.model` file from disk.
pub fn read(path: &std::path::Path) -> Result<ModelProto> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&bytes).map_err(|e| match e {
        Error::ModelFormat(message) => Error::ModelFormat(format!("{}: {message}", path.display())),
        other => other,
    })
}

/// Parses the bytes of a `.model` file.
///
/// ```
/// use tokensmith_core::formats::sentencepiece_model::{parse, serialize};
/// // One piece "a" with score -1.0 and type NORMAL.
/// let bytes = [0x0a, 0x0a, 0x0a, 0x01, b'a', 0x15, 0, 0, 0x80, 0xbf, 0x18, 0x01];
/// let model = parse(&bytes).unwrap();
/// assert_eq!(model.pieces[0].piece, "a");
/// assert!(parse(&bytes[..5]).is_err());
/// assert_eq!(serialize(&model), bytes);
/// ```
pub fn parse(bytes: &[u8]) -> Result<ModelProto> {
    let mut model = ModelProto::default();
    let mut preserved = Preserved::default();
    let (mut seen_trainer, mut seen_normalizer) = (false, false);
    let mut r = Reader::new(bytes, "ModelProto", 0);
    // Each piece's canonical bytes, to tell pieces that would not be written back as read.
    let mut canonical = Vec::new();
    loop {
        let start = r.pos;
        let Some((field, wire)) = r.tag()? else { break };
        match (field, wire) {
            (1, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                let index = model.pieces.len();
                let piece = parse_piece(sub, offset, index)?;
                canonical.clear();
                put_piece_message(&piece, &mut canonical);
                if canonical != sub {
                    preserved
                        .pieces
                        .insert(index, (piece.clone(), sub.to_vec()));
                }
                model.pieces.push(piece);
            }
            (2, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                parse_trainer_spec(sub, offset, &mut model.trainer_spec)?;
                seen_trainer = true;
                preserved.trainer_spec = sub.to_vec();
            }
            (3, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                parse_normalizer_spec(sub, offset, &mut model.normalizer_spec)?;
                seen_normalizer = true;
                preserved.normalizer_spec = sub.to_vec();
            }
            (5, WireType::Len) => {
                let (sub, offset) = r.bytes(field)?;
                let mut spec = NormalizerSpec::default();
                parse_normalizer_spec(sub, offset, &mut spec)?;
                model.denormalizer_spec = Some(spec);
                preserved.denormalizer_spec = sub.to_vec();
            }
            (1..=3 | 5, _) => return Err(r.wrong_wire(field, wire)),
            _ => {
                r.skip(field, wire)?;
                preserved.fields.push((field, r.span_from(start).to_vec()));
            }
        }
    }
    preserved.lacks_trainer_spec = !seen_trainer;
    preserved.lacks_normalizer_spec = !seen_normalizer;
    model.preserved = preserved;
    if model.pieces.is_empty() {
        return Err(Error::ModelFormat(
            "the file holds no pieces: it is not a SentencePiece .model file, or it is empty"
                .into(),
        ));
    }
    Ok(model)
}

/// sentencepiece refuses to load a model with a piece of this many bytes or more ("piece is
/// too long"); so does tokensmith, which also keeps a long piece's encode from being quadratic.
const MAX_PIECE_BYTES: usize = 8000;

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
    if piece.piece.len() >= MAX_PIECE_BYTES {
        return Err(Error::ModelFormat(format!(
            "piece {index} is {} bytes long; pieces must be shorter than {MAX_PIECE_BYTES} \
             bytes (sentencepiece refuses such a file too)",
            piece.piece.len()
        )));
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
            (45, WireType::Len) => spec.unk_piece = r.string(field)?,
            (46, WireType::Len) => spec.bos_piece = r.string(field)?,
            (47, WireType::Len) => spec.eos_piece = r.string(field)?,
            (48, WireType::Len) => spec.pad_piece = r.string(field)?,
            (3 | 4 | 20 | 24 | 25 | 35 | 40..=48, _) => return Err(r.wrong_wire(field, wire)),
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

#[cfg(test)]
mod tests {
    use super::super::wire::put_varint as varint;
    use super::*;
    use proptest::prelude::*;

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
