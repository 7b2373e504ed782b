//! The processor's piece-to-id lookup (a [`crate::text_index::TextIndex`] over the model's own
//! pieces) against a plain map of the same pieces, and the error for a piece defined twice.

use proptest::prelude::*;

use super::ids_tests::test_processor;
use super::SentencePieceProcessor;
use crate::error::Error;
use crate::formats::sentencepiece_model::{ModelProto, ModelType, Piece, PieceType};

proptest! {
    /// Every piece finds its id, anything else the unknown id; `special_ids` finds `<unk>`.
    #[test]
    fn piece_to_id_agrees_with_a_map(
        pieces in prop::collection::vec("[ab▁é語]{1,4}", 0..60),
        probes in prop::collection::vec("[ab▁é語]{0,5}", 0..30),
        model_type in prop::sample::select(vec![ModelType::Bpe, ModelType::Unigram]),
    ) {
        let items: Vec<(&str, f32, PieceType)> =
            pieces.iter().map(|p| (p.as_str(), -1.0, PieceType::Normal)).collect();
        let sp = test_processor(model_type, &items, false);
        let mut map = std::collections::HashMap::new();
        for id in 0..sp.piece_size() as u32 {
            map.insert(sp.id_to_piece(id).unwrap().to_string(), id);
        }
        prop_assert_eq!(map.len(), sp.piece_size());
        for text in pieces.iter().chain(&probes).map(String::as_str).chain(["<unk>"]) {
            prop_assert_eq!(sp.piece_to_id(text), map.get(text).copied().unwrap_or(0));
        }
        prop_assert_eq!(sp.special_ids()[0], 0);
    }
}

#[test]
fn a_piece_defined_twice_is_an_error() {
    let piece = |text: &str, kind| Piece {
        piece: text.into(),
        score: 0.0,
        kind,
    };
    let mut proto = ModelProto {
        pieces: vec![
            piece("<unk>", PieceType::Unknown),
            piece("a", PieceType::Normal),
            piece("b", PieceType::Normal),
        ],
        ..Default::default()
    };
    proto.trainer_spec.model_type = ModelType::Bpe;
    assert!(SentencePieceProcessor::from_proto(proto.clone()).is_ok());
    proto.pieces.push(piece("a", PieceType::UserDefined));
    match SentencePieceProcessor::from_proto(proto) {
        Err(Error::ModelFormat(message)) => assert!(message.contains("piece 3"), "{message}"),
        other => panic!("expected a format error, got {:?}", other.map(|_| ())),
    }
}
