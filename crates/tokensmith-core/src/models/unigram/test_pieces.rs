//! Vocabulary helpers shared by the Unigram property tests.

use super::model::UnigramPiece;
use crate::formats::sentencepiece_model::PieceType;

/// `pieces` with `<unk>` put first (id 0) and every later repeat of a piece left out, as a
/// model's vocabulary must be.
pub(super) fn with_unk_first(mut pieces: Vec<UnigramPiece>) -> Vec<UnigramPiece> {
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
