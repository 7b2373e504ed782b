//! The single-pass Viterbi (over characters, with the character trie) against the lattice's
//! Viterbi (built from the byte trie, node by node, as sentencepiece's `Lattice`): the same
//! spans on random vocabularies of characters of 1 to 4 bytes, with exact ties (scores whose
//! sums never round), on texts that hold characters no piece covers and characters that are
//! only inside longer pieces.

use super::lattice::Lattice;
use super::model::{Unigram, UnigramPiece};
use super::test_pieces::with_unk_first;
use crate::formats::sentencepiece_model::PieceType;
use proptest::prelude::*;

/// One character of each UTF-8 length, and two sharing the lead bytes of a kanji pair.
const ALPHABET: [char; 7] = ['a', 'é', '吾', '輩', '猫', '😀', '▁'];

fn vocabulary() -> impl Strategy<Value = Vec<UnigramPiece>> {
    // Quarters, so that every path sum is exact: the lattice compares a predecessor's score
    // plus the next node's, the single pass compares at the position, and with rounding a
    // near tie can go different ways in the two (as in sentencepiece's two code paths).
    let score = prop_oneof![
        prop::sample::select(vec![-1.0f32, -2.0, -3.0, -0.5]),
        (1..48u8).prop_map(|k| -f32::from(k) / 4.0)
    ];
    let kind = prop::sample::select(vec![
        PieceType::Normal,
        PieceType::Normal,
        PieceType::Normal,
        PieceType::Unused,
    ]);
    let piece = (
        prop::collection::vec(prop::sample::select(ALPHABET.to_vec()), 1..5),
        score,
        kind,
    )
        .prop_map(|(cs, score, kind)| UnigramPiece {
            piece: cs.into_iter().collect(),
            score,
            kind,
        });
    prop::collection::vec(piece, 1..60).prop_map(with_unk_first)
}

/// Texts over the alphabet and two characters in no piece ('z', 'の').
fn text() -> impl Strategy<Value = String> {
    let mut chars = ALPHABET.to_vec();
    chars.extend(['z', 'の']);
    prop::collection::vec(prop::sample::select(chars), 0..60).prop_map(String::from_iter)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn viterbi_equals_the_lattice(pieces in vocabulary(), text in text()) {
        let model = Unigram::new(pieces, 0);
        let fast = model.encode(&text);
        let mut lattice = Lattice::new(&model, &text);
        let (path, _) = lattice.viterbi();
        let want: Vec<_> = path.iter().map(|&n| lattice.span(n)).collect();
        prop_assert_eq!(fast, want);
    }
}

/// Unknown characters of every length each become one unknown span of their own bytes.
#[test]
fn unknown_characters_of_every_length() {
    let model = Unigram::from_probabilities(&[("<unk>", 0.0), ("a", 0.5), ("吾輩", 0.4)], 0);
    assert_eq!(
        model.encode("aé吾😀吾輩"),
        vec![(0, 1, 1), (1, 3, 0), (3, 6, 0), (6, 10, 0), (10, 16, 2)]
    );
}
