//! The SentencePiece pipeline: a `.model` file loaded into normalizer + model + the
//! processor's own rules for unknown pieces and byte fallback.
//!
//! ```text
//! text ─► SentencePieceNormalizer ─► Unigram | SentencePieceBpe ─► unknowns merged or
//!         split into <0xNN> bytes ─► (piece, id)
//! ```
//!
//! Facts kept from sentencepiece's `sentencepiece_processor.cc`:
//! - without byte fallback, a run of consecutive unknown pieces becomes one unknown piece whose
//!   text is the run's text;
//! - with byte fallback, each unknown piece becomes one `<0xNN>` piece per UTF-8 byte;
//! - decoding drops control pieces, writes `unk_surface` for the unknown id, turns runs of byte
//!   pieces back into text (each byte that is not valid UTF-8 becomes U+FFFD), turns `▁` into a
//!   space and drops the `▁` that the dummy prefix put at the start.
//!
//! Not handled yet (the loader refuses such files with [`Error::Unsupported`]): `word` and
//! `char` models, and denormalization.
//! Also missing: n-best, sampling, BPE dropout, writing `.model` files.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::{self, ModelProto, ModelType, PieceType};
use crate::models::sentencepiece_bpe::SentencePieceBpe;
use crate::models::unigram::{Unigram, UnigramPiece};
use crate::normalizers::sentencepiece::{SentencePieceNormalizer, SPACE_SYMBOL};

#[derive(Debug, Clone)]
enum Model {
    Unigram(Unigram),
    Bpe(SentencePieceBpe),
}

/// A loaded `.model`: immutable and `Sync`, so one instance serves every thread.
#[derive(Debug, Clone)]
pub struct SentencePieceProcessor {
    proto: ModelProto,
    ids: FxHashMap<String, u32>,
    model: Model,
    normalizer: SentencePieceNormalizer,
    unk_id: u32,
    byte_ids: Option<Box<[u32; 256]>>,
}

/// The `<0xNN>` piece of a byte, as sentencepiece spells it.
pub fn byte_piece(byte: u8) -> String {
    format!("<0x{byte:02X}>")
}

impl SentencePieceProcessor {
    /// Loads a `.model` file.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        Self::from_proto(sentencepiece_model::read(path)?)
    }

    /// Loads the bytes of a `.model` file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_proto(sentencepiece_model::parse(bytes)?)
    }

    /// Checks a parsed model and builds the pipeline.
    pub fn from_proto(proto: ModelProto) -> Result<Self> {
        let spec = &proto.trainer_spec;
        let unsupported = |what: &str| {
            Err(Error::Unsupported(format!(
                "this .model uses {what}, which tokensmith does not support yet"
            )))
        };
        if matches!(spec.model_type, ModelType::Word | ModelType::Char) {
            return unsupported(&format!("model_type={:?}", spec.model_type).to_lowercase());
        }
        if proto
            .denormalizer_spec
            .as_ref()
            .is_some_and(|d| !d.precompiled_charsmap.is_empty())
        {
            return unsupported("a denormalization rule");
        }
        let mut ids = FxHashMap::default();
        let mut unk_id = None;
        for (id, p) in proto.pieces.iter().enumerate() {
            let bad = |what: String| Err(Error::ModelFormat(format!("piece {id}: {what}")));
            if p.piece.is_empty() {
                return bad("the piece is empty".into());
            }
            if ids.insert(p.piece.clone(), id as u32).is_some() {
                return bad(format!("{:?} is defined twice", p.piece));
            }
            match p.kind {
                PieceType::Unknown if unk_id.is_some() => {
                    return bad("a second unknown piece".into());
                }
                PieceType::Unknown => unk_id = Some(id as u32),
                _ => {}
            }
        }
        let unk_id = unk_id.ok_or_else(|| {
            Error::ModelFormat("the model has no unknown piece (type UNKNOWN)".into())
        })?;
        let byte_ids = if spec.byte_fallback {
            let mut table = Box::new([0u32; 256]);
            for (byte, slot) in table.iter_mut().enumerate() {
                let piece = byte_piece(byte as u8);
                *slot = match ids.get(&piece) {
                    Some(&id) if proto.pieces[id as usize].kind == PieceType::Byte => id,
                    _ => {
                        return Err(Error::ModelFormat(format!(
                            "byte_fallback is on but the byte piece {piece} is missing"
                        )));
                    }
                };
            }
            Some(table)
        } else {
            None
        };
        let model = match spec.model_type {
            ModelType::Bpe => Model::Bpe(SentencePieceBpe::new(
                proto
                    .pieces
                    .iter()
                    .map(|p| (p.piece.as_str(), p.score, p.kind)),
                unk_id,
            )),
            _ => Model::Unigram(Unigram::new(
                proto
                    .pieces
                    .iter()
                    .map(|p| UnigramPiece {
                        piece: p.piece.clone(),
                        score: p.score,
                        kind: p.kind,
                    })
                    .collect(),
                unk_id,
            )),
        };
        let user_defined: Vec<&str> = proto
            .pieces
            .iter()
            .filter(|p| p.kind == PieceType::UserDefined)
            .map(|p| p.piece.as_str())
            .collect();
        let normalizer = SentencePieceNormalizer::new(
            &proto.normalizer_spec,
            spec.treat_whitespace_as_suffix,
            &user_defined,
        )?;
        Ok(Self {
            proto,
            ids,
            model,
            normalizer,
            unk_id,
            byte_ids,
        })
    }

    /// The normalized text that the model segments.
    pub fn normalize(&self, text: &str) -> String {
        self.normalizer.normalize(text)
    }

    /// Encodes `text` into `(piece, id)` pairs, exactly as `SentencePieceProcessor::Encode`.
    pub fn encode(&self, text: &str) -> Vec<(String, u32)> {
        let normalized = self.normalizer.normalize(text);
        let spans = match &self.model {
            Model::Unigram(m) => m.encode(&normalized),
            Model::Bpe(m) => m.encode(&normalized),
        };
        let mut out: Vec<(String, u32)> = Vec::with_capacity(spans.len());
        let mut is_prev_unk = false;
        for (start, end, id) in spans {
            let w = &normalized[start..end];
            let is_unk = id == self.unk_id;
            match &self.byte_ids {
                Some(table) if is_unk => {
                    out.extend(w.bytes().map(|b| (byte_piece(b), table[usize::from(b)])));
                }
                _ if is_unk && is_prev_unk => {
                    if let Some(last) = out.last_mut() {
                        last.0.push_str(w);
                    }
                }
                _ => out.push((w.to_string(), id)),
            }
            is_prev_unk = is_unk;
        }
        out
    }

    /// Encodes `text` into ids.
    pub fn encode_ids(&self, text: &str) -> Vec<u32> {
        self.encode(text).into_iter().map(|(_, id)| id).collect()
    }

    /// Decodes ids into text, exactly as `SentencePieceProcessor::DecodeIds`.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        let strip_bos_space = self.proto.normalizer_spec.add_dummy_prefix
            || self.proto.normalizer_spec.remove_extra_whitespaces;
        let mut text = String::new();
        let mut bytes: Vec<u8> = Vec::new();
        let remove_extra = self.proto.normalizer_spec.remove_extra_whitespaces;
        // Leading `▁`s are dropped while nothing visible has been written: only the first one
        // without remove_extra_whitespaces, all of them with it (sentencepiece 0.2).
        let mut is_bos_ws = true;
        let mut bos_ws_seen = false;
        for &id in ids {
            let piece = self.piece(id)?;
            if piece.kind == PieceType::Byte {
                bytes.push(piece_to_byte(&piece.piece).ok_or_else(|| {
                    Error::ModelFormat(format!("byte piece {:?} is not <0xNN>", piece.piece))
                })?);
                continue;
            }
            flush_bytes(&mut bytes, &mut text);
            if bos_ws_seen || !text.is_empty() {
                is_bos_ws = false;
            }
            bos_ws_seen = false;
            match piece.kind {
                PieceType::Control => {}
                PieceType::Unknown => text.push_str(&self.proto.trainer_spec.unk_surface),
                _ => {
                    let mut s = piece.piece.as_str();
                    if is_bos_ws && strip_bos_space {
                        if let Some(rest) = s.strip_prefix(SPACE_SYMBOL) {
                            s = rest;
                            bos_ws_seen = !remove_extra;
                        }
                    }
                    text.push_str(&s.replace(SPACE_SYMBOL, " "));
                }
            }
        }
        flush_bytes(&mut bytes, &mut text);
        Ok(text)
    }

    fn piece(&self, id: u32) -> Result<&sentencepiece_model::Piece> {
        self.proto
            .pieces
            .get(id as usize)
            .ok_or_else(|| Error::UnknownTokenId {
                id: i64::from(id),
                valid: format!("0..{}", self.proto.pieces.len()),
            })
    }

    /// The number of pieces.
    pub fn piece_size(&self) -> usize {
        self.proto.pieces.len()
    }

    /// The piece with `id`.
    pub fn id_to_piece(&self, id: u32) -> Result<&str> {
        Ok(&self.piece(id)?.piece)
    }

    /// The id of `piece`, or the unknown id when it is not in the vocabulary (as sentencepiece).
    pub fn piece_to_id(&self, piece: &str) -> u32 {
        self.ids.get(piece).copied().unwrap_or(self.unk_id)
    }

    /// The score of the piece with `id`.
    pub fn score(&self, id: u32) -> Result<f32> {
        Ok(self.piece(id)?.score)
    }

    /// The piece's type.
    pub fn piece_type(&self, id: u32) -> Result<PieceType> {
        Ok(self.piece(id)?.kind)
    }

    /// The parsed file.
    pub fn proto(&self) -> &ModelProto {
        &self.proto
    }

    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }
}

fn piece_to_byte(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// Appends byte pieces as text; each byte that does not start a valid UTF-8 character
/// becomes U+FFFD on its own, as sentencepiece does.
fn flush_bytes(bytes: &mut Vec<u8>, text: &mut String) {
    let mut rest: &[u8] = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                break;
            }
            Err(e) => {
                let valid = e.valid_up_to();
                // `valid` bytes were just checked to be UTF-8.
                text.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                text.push('\u{FFFD}');
                rest = &rest[valid + 1..];
            }
        }
    }
    bytes.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_become_one_replacement_each() {
        let mut text = String::new();
        flush_bytes(&mut vec![b'a', 0xE2, 0x96, b'b'], &mut text);
        assert_eq!(text, "a\u{FFFD}\u{FFFD}b");
    }

    #[test]
    fn byte_piece_names() {
        assert_eq!(byte_piece(0x0a), "<0x0A>");
        assert_eq!(piece_to_byte("<0xFF>"), Some(0xff));
        assert_eq!(piece_to_byte("<0xFFF>"), None);
    }
}
