//! The ids a BPE model's words give straight from its word cache (`bpe_ids_by_words`) against
//! the ids of the whole-text merge turned into ids by the pieces path (`pieces_of`, which
//! handles unknowns on its own): random vocabularies with and without byte fallback,
//! user-defined pieces and unknown characters, first calls and cached ones.

use proptest::prelude::*;

use super::ids_tests::test_processor;
use super::{Model, SentencePieceProcessor};
use crate::formats::sentencepiece_model::{ModelType, PieceType};
use crate::models::unigram::test_pieces::piece;

/// A BPE processor over `pieces` (see [`test_processor`]).
fn processor(pieces: &[(String, f32, PieceType)], byte_fallback: bool) -> SentencePieceProcessor {
    let pieces: Vec<(&str, f32, PieceType)> = pieces
        .iter()
        .map(|(p, s, k)| (p.as_str(), *s, *k))
        .collect();
    test_processor(ModelType::Bpe, &pieces, byte_fallback)
}

/// The ids of `text` through the whole-text merge and the pieces path.
fn reference_ids(sp: &SentencePieceProcessor, text: &str) -> Vec<u32> {
    let Model::Bpe(m) = &sp.model else {
        panic!("a BPE model")
    };
    let normalized = sp.normalize(text);
    let spans = m.encode_with_dropout(&normalized, 0.0, None);
    sp.pieces_of(&normalized, spans)
        .into_iter()
        .map(|(_, id)| id)
        .collect()
}

/// Pieces of 1 to 3 characters, some after a mark, some user-defined; no UNUSED piece (a model
/// with one merges whole texts, and would not take the word path).
fn vocabulary() -> impl Strategy<Value = Vec<(String, f32, PieceType)>> {
    let score = prop::sample::select(vec![-1.0f32, -2.0, -0.5, -3.0, 0.0]);
    let piece = piece(vec!['a', 'b', 'é', '語'], score).prop_map(|p| {
        let kind = match p.kind {
            PieceType::Unused => PieceType::Normal,
            kind => kind,
        };
        (p.piece, p.score, kind)
    });
    prop::collection::vec(piece, 1..30)
}

/// Words of 1 to 12 characters some vocabularies lack (`z`, `😀`), after one or two spaces.
fn text() -> impl Strategy<Value = String> {
    let word = (
        prop::sample::select(vec![" ", "  "]),
        prop::collection::vec(
            prop::sample::select(vec!['a', 'b', 'é', '語', 'z', '😀']),
            1..12,
        ),
    );
    prop::collection::vec(word, 0..40).prop_map(|words| {
        words
            .into_iter()
            .map(|(space, cs)| format!("{space}{}", cs.into_iter().collect::<String>()))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// First call, cached, and after a prefix that puts every word in the cache, the ids
    /// equal the reference's; the word path is checked to be in use.
    #[test]
    fn bpe_ids_from_words_equal_the_pieces_path(
        pieces in vocabulary(),
        byte_fallback in any::<bool>(),
        text in text(),
    ) {
        let sp = processor(&pieces, byte_fallback);
        let Model::Bpe(m) = &sp.model else { panic!("a BPE model") };
        let by_words = m.for_each_word("▁a", |_, _| {});
        prop_assert!(by_words.is_some());
        let twice = format!("{text} {text}");
        for t in [&text, &text, &twice] {
            prop_assert_eq!(sp.encode_ids(t), reference_ids(&sp, t));
        }
    }
}

/// Unknown runs join across words and end at a known piece; with byte fallback each unknown
/// character becomes its bytes. "a" and "▁a" are the only pieces.
#[test]
fn unknown_runs_across_cached_words() {
    let pieces = [
        ("▁a".to_string(), -1.0, PieceType::Normal),
        ("a".to_string(), -2.0, PieceType::Normal),
    ];
    let merged = processor(&pieces, false);
    let (a_mark, a) = (merged.piece_to_id("▁a"), merged.piece_to_id("a"));
    let bytes = processor(&pieces, true);
    let mut want_bytes = vec![bytes.piece_to_id("▁a")];
    want_bytes.extend(
        "▁éé▁é"
            .bytes()
            .map(|b| bytes.piece_to_id(&super::byte_piece(b))),
    );
    want_bytes.push(bytes.piece_to_id("a"));
    for _ in 0..2 {
        // "▁éé" and the "▁é" of "▁éa" are one run: one unknown id.
        assert_eq!(merged.encode_ids("a éé éa"), vec![a_mark, 0, a]);
        assert_eq!(merged.encode_ids("é a é"), vec![0, a_mark, 0]);
        assert_eq!(bytes.encode_ids("a éé éa"), want_bytes);
    }
}
