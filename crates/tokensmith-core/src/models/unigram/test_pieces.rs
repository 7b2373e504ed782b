//! Vocabulary helpers shared by the Unigram property tests.

use proptest::prelude::*;

use super::model::UnigramPiece;
use crate::formats::sentencepiece_model::PieceType;

/// A piece of 1 to 3 characters of `alphabet`, half of them after the mark, scored by `score`;
/// most are NORMAL, some USER_DEFINED or UNUSED.
pub(crate) fn piece(
    alphabet: Vec<char>,
    score: impl Strategy<Value = f32>,
) -> impl Strategy<Value = UnigramPiece> {
    let kind = prop::sample::select(vec![
        PieceType::Normal,
        PieceType::Normal,
        PieceType::Normal,
        PieceType::UserDefined,
        PieceType::Unused,
    ]);
    (
        any::<bool>(),
        prop::collection::vec(prop::sample::select(alphabet), 1..4),
        score,
        kind,
    )
        .prop_map(|(mark, cs, score, kind)| {
            let mut piece: String = cs.into_iter().collect();
            if mark {
                piece.insert(0, '\u{2581}');
            }
            UnigramPiece { piece, score, kind }
        })
}

/// `pieces` with `<unk>` put first (id 0) and every later repeat of a piece left out, as a
/// model's vocabulary must be.
pub(crate) fn with_unk_first(mut pieces: Vec<UnigramPiece>) -> Vec<UnigramPiece> {
    pieces.insert(
        0,
        UnigramPiece {
            piece: "<unk>".into(),
            score: 0.0,
            kind: PieceType::Unknown,
        },
    );
    let mut seen = std::collections::HashSet::new();
    pieces.retain(|p| seen.insert(p.piece.clone()));
    pieces
}
