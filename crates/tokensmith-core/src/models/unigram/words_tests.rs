//! Word-cached Unigram segmentation against the whole-text Viterbi: the same spans on random
//! texts and random vocabularies full of exact and near ties, and on the shipped English model.

use super::model::{Unigram, UnigramPiece};
use super::test_pieces::{piece, with_unk_first};
use super::words::double_this_threads_tables;
use crate::formats::sentencepiece_model::{self, PieceType};
use proptest::prelude::*;

const MARK: char = '\u{2581}';

/// Pieces of 1 to 3 characters, half of them starting with the mark, with scores drawn from a
/// few values that tie exactly or differ in the last bits, or from a range.
fn vocabulary() -> impl Strategy<Value = Vec<UnigramPiece>> {
    let tie = prop::sample::select(vec![
        -1.0f32,
        -1.000_000_1,
        -0.999_999_94,
        -2.0,
        -2.000_000_2,
        -3.0,
        -0.5,
        -10.0,
        -9.999_999,
    ]);
    let score = prop_oneof![tie, -12.0f32..-0.1];
    prop::collection::vec(piece(vec!['a', 'b', 'c', 'é'], score), 1..40).prop_map(with_unk_first)
}

/// Words of 1 to 8 characters, or now and then of up to 24 (some unknown to every vocabulary,
/// some too long to cache),
/// each after one to three marks, up to 400 of them: long texts make the score before a word
/// large, where its rounding differs most from the word's alone.
fn text() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec!['a', 'b', 'c', 'é', 'z']);
    let length = prop_oneof![9 => 1..9usize, 1 => 9..25usize];
    let word = (
        1..4usize,
        length.prop_flat_map(move |n| prop::collection::vec(alphabet.clone(), n)),
    );
    prop::collection::vec(word, 0..400).prop_map(|words| {
        let mut text = String::new();
        for (marks, cs) in words {
            text.extend(std::iter::repeat_n(MARK, marks));
            text.extend(cs);
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Cached or not, first call or second, the word path gives the whole-text Viterbi's spans.
    #[test]
    fn word_cache_equals_full_viterbi(pieces in vocabulary(), text in text()) {
        let m = Unigram::new(pieces, 0);
        let want = m.encode(&text);
        for _ in 0..2 {
            let mut got = Vec::new();
            m.segment_into(&text, &mut got);
            prop_assert_eq!(&got, &want);
            let mut words = Vec::new();
            if m.segment_words(&text, &mut words).is_some() {
                prop_assert_eq!(&words, &want);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]
    /// After this thread's word tables have doubled (words moved into new sets), cached words
    /// still give the whole-text Viterbi's spans.
    #[test]
    fn doubled_word_cache_equals_full_viterbi(pieces in vocabulary(), text in text()) {
        let m = Unigram::new(pieces, 0);
        let want = m.encode(&text);
        let mut got = Vec::new();
        m.segment_into(&text, &mut got);
        prop_assert_eq!(&got, &want);
        double_this_threads_tables();
        for _ in 0..2 {
            m.segment_into(&text, &mut got);
            prop_assert_eq!(&got, &want);
        }
    }
}

/// Exact ties give a margin of 0, so such a word never takes its alone result: "▁ab" splits
/// as "▁a" + "b" (-1 + -1) or "▁ab" (-2), a tie that the earlier start wins alone, while in
/// context the rounded sums could part either way. It is segmented in context instead.
#[test]
fn an_exact_tie_is_segmented_in_context() {
    let piece = |piece: &str, score: f32, kind| UnigramPiece {
        piece: piece.into(),
        score,
        kind,
    };
    let m = Unigram::new(
        vec![
            piece("<unk>", 0.0, PieceType::Unknown),
            piece("▁a", -1.0, PieceType::Normal),
            piece("b", -1.0, PieceType::Normal),
            piece("▁ab", -2.0, PieceType::Normal),
            piece("▁c", -0.5, PieceType::Normal),
        ],
        0,
    );
    let mut spans = Vec::new();
    for _ in 0..2 {
        assert_eq!(m.segment_words("▁c▁c", &mut spans), Some(0));
        assert_eq!(m.segment_words("▁c▁ab", &mut spans), Some(1));
        assert_eq!(spans, m.encode("▁c▁ab"));
    }
}

/// Where the rounding in context decides: "▁x" costs 0.3 (in f32, so the sums below round),
/// and "▁ab" ties "▁a" + "b" only up to the last bits. After many "▁x" the score at the word's
/// start is large, and the in-context sums decide the tie as the whole-text Viterbi does; a
/// word too long for a cache slot ("▁" + 30 letters) is also segmented in context.
#[test]
fn words_in_context_after_a_large_score() {
    let piece = |piece: &str, score: f32| UnigramPiece {
        piece: piece.into(),
        score,
        kind: PieceType::Normal,
    };
    let unk = UnigramPiece {
        piece: "<unk>".into(),
        score: 0.0,
        kind: PieceType::Unknown,
    };
    for tie in [-2.0f32, -2.000_000_2, -1.999_999_9] {
        let m = Unigram::new(
            vec![
                unk.clone(),
                piece("▁x", -0.3),
                piece("▁a", -1.0),
                piece("b", -1.0),
                piece("▁ab", tie),
                piece("a", -0.7),
            ],
            0,
        );
        for count in [0, 1, 7, 100, 1000] {
            let long = format!("▁{}", "a".repeat(30));
            let text = format!("{}▁ab{long}▁ab", "▁x".repeat(count));
            let mut spans = Vec::new();
            let in_context = m.segment_words(&text, &mut spans);
            assert_eq!(spans, m.encode(&text), "{tie} {count}");
            // At least the long word is segmented in context.
            assert!(in_context.is_some_and(|n| n >= 1), "{tie} {count}");
        }
    }
}

/// On the shipped English model and real text, every line gives the whole-text Viterbi's
/// spans, and on nearly every line every word takes its cached or alone result.
#[test]
fn shipped_model_lines_take_the_word_path() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/spm/");
    let proto = sentencepiece_model::read(std::path::Path::new(&format!("{dir}test_model.model")))
        .expect("the shipped model loads");
    let unk = proto
        .pieces
        .iter()
        .position(|p| p.kind == PieceType::Unknown);
    let m = Unigram::from_model_pieces(&proto.pieces, unk.unwrap_or(0) as u32);
    let text = std::fs::read_to_string(format!("{dir}botchan.txt")).expect("botchan.txt");
    let (mut lines, mut by_words) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let normalized = format!("{MARK}{}", line.trim().replace(' ', "\u{2581}"));
        let mut spans = Vec::new();
        lines += 1;
        if m.segment_words(&normalized, &mut spans) == Some(0) {
            by_words += 1;
        }
        assert_eq!(spans, m.encode(&normalized), "{line}");
    }
    assert!(
        lines > 1000 && by_words * 10 > lines * 9,
        "{by_words} of {lines}"
    );
}
