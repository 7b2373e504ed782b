//! The end of training: the final `vocab_size` pieces, and the `ModelProto` that holds them
//! behind the meta pieces.
//!
//! Facts kept from sentencepiece's `FinalizeSentencePieces`, `InitMetaPieces` and `Serialize`:
//! - every required character is in the vocabulary; one the model lost gets the model's
//!   lowest score plus 0.0001 for each such character before it (by frequency);
//! - the learned pieces with the highest scores fill the rest; the result is ordered by
//!   score (descending), ties by the piece's bytes;
//! - meta pieces take their ids first: `<unk>` (UNKNOWN), `<s>`, `</s>`, `<pad>` (CONTROL) at
//!   their configured ids, then the control and user-defined symbols and the 256 byte pieces
//!   at the lowest free ids, all scored 0; the learned pieces fill the remaining ids in order.

use rustc_hash::{FxHashMap, FxHashSet};

use super::config::UnigramConfig;
use super::lattice::TrainerModel;
use super::sentences::normalizer_spec;
use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::{ModelProto, ModelType, Piece, PieceType, TrainerSpec};
use crate::sentencepiece::byte_piece;

pub(super) const MIN_SCORE_PENALTY_DELTA: f64 = 0.0001;

/// At most `size` pieces: the required characters, then the best-scoring pieces.
pub fn final_pieces(
    model: &TrainerModel,
    required: &[(char, u64)],
    size: usize,
) -> Vec<(String, f64)> {
    let scores: FxHashMap<&str, f64> = model
        .pieces()
        .iter()
        .map(|(p, s)| (p.as_str(), *s))
        .collect();
    let mut out: Vec<(String, f64)> = Vec::with_capacity(size);
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let mut penalty = 0.0;
    for &(c, _) in required {
        let s = c.to_string();
        let score = match scores.get(s.as_str()) {
            Some(&score) => score,
            None => {
                let score = model.min_score() + penalty;
                penalty += MIN_SCORE_PENALTY_DELTA;
                score
            }
        };
        taken.insert(s.clone());
        out.push((s, score));
    }
    for (piece, score) in sorted_by_score(model.pieces().to_vec()) {
        if out.len() >= size {
            break;
        }
        if taken.insert(piece.clone()) {
            out.push((piece, score));
        }
    }
    sorted_by_score(out)
}

/// Descending score, then ascending bytes.
pub fn sorted_by_score(mut pieces: Vec<(String, f64)>) -> Vec<(String, f64)> {
    pieces.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    pieces
}

/// The meta pieces by id.
pub fn meta_pieces(config: &UnigramConfig) -> FxHashMap<usize, (String, PieceType)> {
    let mut meta: FxHashMap<usize, (String, PieceType)> = FxHashMap::default();
    let specials = [
        (config.unk_id, "<unk>", PieceType::Unknown),
        (config.bos_id, "<s>", PieceType::Control),
        (config.eos_id, "</s>", PieceType::Control),
        (config.pad_id, "<pad>", PieceType::Control),
    ];
    for (id, piece, kind) in specials {
        if id >= 0 {
            meta.insert(id as usize, (piece.to_string(), kind));
        }
    }
    let mut next = 0usize;
    let mut add = |meta: &mut FxHashMap<usize, (String, PieceType)>, piece: String, kind| {
        if let Some((id, _, _)) = specials
            .iter()
            .find(|(id, name, _)| *id >= 0 && *name == piece)
        {
            meta.insert(*id as usize, (piece, kind));
            return;
        }
        while meta.contains_key(&next) {
            next += 1;
        }
        meta.insert(next, (piece, kind));
    };
    for s in &config.control_symbols {
        add(&mut meta, s.clone(), PieceType::Control);
    }
    for s in &config.user_defined_symbols {
        add(&mut meta, s.clone(), PieceType::UserDefined);
    }
    if config.byte_fallback {
        for b in 0..=255u8 {
            add(&mut meta, byte_piece(b), PieceType::Byte);
        }
    }
    meta
}

/// The model: meta pieces at their ids, learned pieces in the other ids, and the specs.
pub fn build_proto(config: &UnigramConfig, learned: Vec<(String, f64)>) -> Result<ModelProto> {
    build_proto_as(config, learned, ModelType::Unigram)
}

/// [`build_proto`] for a model of type `model_type`.
pub fn build_proto_as(
    config: &UnigramConfig,
    learned: Vec<(String, f64)>,
    model_type: ModelType,
) -> Result<ModelProto> {
    let meta = meta_pieces(config);
    let total = meta.len() + learned.len();
    // Too few pieces (a char model, or a word model without hard_vocab_limit) can leave a
    // meta piece's id past the end; sentencepiece refuses that model too.
    if let Some(id) = meta.keys().copied().filter(|&id| id >= total).max() {
        return Err(Error::InvalidOption(format!(
            "the corpus yields {total} pieces (meta pieces included), but the meta piece \
             {:?} has id {id}; give it an id below {total}, or more text",
            meta[&id].0
        )));
    }
    let mut learned = learned.into_iter();
    let mut pieces = Vec::with_capacity(total);
    for id in 0..total {
        match meta.get(&id) {
            Some((piece, kind)) => pieces.push(Piece {
                piece: piece.clone(),
                score: 0.0,
                kind: *kind,
            }),
            None => {
                if let Some((piece, score)) = learned.next() {
                    pieces.push(Piece {
                        piece,
                        score: score as f32,
                        kind: PieceType::Normal,
                    });
                }
            }
        }
    }
    let trainer_spec = TrainerSpec {
        model_type,
        vocab_size: pieces.len() as i32,
        byte_fallback: config.byte_fallback,
        split_digits: config.split_digits,
        treat_whitespace_as_suffix: config.treat_whitespace_as_suffix,
        max_sentencepiece_length: config.max_piece_length as i32,
        unk_id: config.unk_id,
        bos_id: config.bos_id,
        eos_id: config.eos_id,
        pad_id: config.pad_id,
        ..TrainerSpec::default()
    };
    Ok(ModelProto {
        pieces,
        trainer_spec,
        normalizer_spec: normalizer_spec(config)?,
        denormalizer_spec: None,
        ..ModelProto::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_ids_follow_sentencepiece() {
        let config = UnigramConfig {
            control_symbols: vec!["<ctl>".into()],
            user_defined_symbols: vec!["<sep>".into(), "</s>".into()],
            byte_fallback: true,
            ..UnigramConfig::new(1000)
        };
        let meta = meta_pieces(&config);
        assert_eq!(meta[&0], ("<unk>".to_string(), PieceType::Unknown));
        assert_eq!(meta[&1], ("<s>".to_string(), PieceType::Control));
        assert_eq!(meta[&2], ("</s>".to_string(), PieceType::UserDefined));
        assert_eq!(meta[&3], ("<ctl>".to_string(), PieceType::Control));
        assert_eq!(meta[&4], ("<sep>".to_string(), PieceType::UserDefined));
        assert_eq!(meta[&5], ("<0x00>".to_string(), PieceType::Byte));
        assert_eq!(meta.len(), config.meta_piece_count());
        let proto = build_proto(&config, vec![("▁a".into(), -1.0)]).unwrap();
        assert_eq!(proto.pieces.len(), meta.len() + 1);
        assert_eq!(proto.pieces.last().unwrap().piece, "▁a");
    }

    #[test]
    fn meta_ids_past_the_end_are_refused() {
        let config = UnigramConfig {
            pad_id: 40,
            ..UnigramConfig::new(50)
        };
        let learned = vec![("a".to_string(), -1.0)];
        let err = build_proto_as(&config, learned.clone(), ModelType::Char).unwrap_err();
        assert!(err.to_string().contains("<pad>"), "{err}");
        let proto = build_proto_as(&UnigramConfig::new(50), learned, ModelType::Char);
        assert_eq!(proto.unwrap().pieces.len(), 4);
    }

    #[test]
    fn required_characters_are_always_kept() {
        let model = TrainerModel::new(vec![("▁ab".into(), -1.0), ("a".into(), -2.0)]);
        let required = [('a', 10), ('b', 5), ('▁', 4)];
        let out = final_pieces(&model, &required, 4);
        // "b" is the first missing character: min score + 0; "▁" the second: + 0.0001.
        let want: Vec<(String, f64)> = vec![
            ("▁ab".into(), -1.0),
            ("▁".into(), -2.0 + 0.0001),
            ("a".into(), -2.0),
            ("b".into(), -2.0),
        ];
        assert_eq!(out, want);
    }
}
