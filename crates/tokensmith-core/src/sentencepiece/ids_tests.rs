//! The ids written straight from the word cache ([`super::ids::IdSink`]) against the ids of
//! the pieces that the whole-text Viterbi gives, turned into ids by the pieces path
//! (`pieces_of`, which handles unknowns on its own): random vocabularies with and without
//! byte fallback, user-defined pieces and unknown characters, and hand-derived answers for
//! unknown runs across words and byte fallback inside cached words.

use proptest::prelude::*;

use super::{Model, SentencePieceProcessor};
use crate::formats::sentencepiece_model::{ModelProto, NormalizerSpec, Piece, PieceType};
use crate::formats::sentencepiece_model::{ModelType, TrainerSpec};
use crate::models::unigram::test_pieces::piece;

/// A processor over `pieces` (after `<unk>` at id 0, and the 256 byte pieces when
/// `byte_fallback`), with identity normalization and the dummy prefix.
fn processor(pieces: &[(&str, f32, PieceType)], byte_fallback: bool) -> SentencePieceProcessor {
    let mut all = vec![Piece {
        piece: "<unk>".into(),
        score: 0.0,
        kind: PieceType::Unknown,
    }];
    if byte_fallback {
        all.extend((0..=255u8).map(|b| Piece {
            piece: super::byte_piece(b),
            score: 0.0,
            kind: PieceType::Byte,
        }));
    }
    let mut seen = std::collections::HashSet::new();
    for &(piece, score, kind) in pieces {
        if seen.insert(piece.to_string()) && piece != "<unk>" {
            all.push(Piece {
                piece: piece.into(),
                score,
                kind,
            });
        }
    }
    SentencePieceProcessor::from_proto(ModelProto {
        trainer_spec: TrainerSpec {
            model_type: ModelType::Unigram,
            vocab_size: all.len() as i32,
            byte_fallback,
            unk_id: 0,
            ..TrainerSpec::default()
        },
        pieces: all,
        normalizer_spec: NormalizerSpec {
            name: "identity".into(),
            remove_extra_whitespaces: false,
            ..NormalizerSpec::default()
        },
        denormalizer_spec: Some(NormalizerSpec::default()),
        ..ModelProto::default()
    })
    .expect("a valid test model")
}

/// The ids of `text` through the whole-text Viterbi and the pieces path.
fn reference_ids(sp: &SentencePieceProcessor, text: &str) -> Vec<u32> {
    let Model::Unigram(m) = &sp.model else {
        panic!("a Unigram model")
    };
    let normalized = sp.normalize(text);
    let spans = m.encode(&normalized);
    sp.pieces_of(&normalized, spans)
        .into_iter()
        .map(|(_, id)| id)
        .collect()
}

/// The id of `piece`, which must be in the vocabulary.
fn id(sp: &SentencePieceProcessor, piece: &str) -> u32 {
    let id = sp.piece_to_id(piece);
    assert_eq!(sp.id_to_piece(id).ok(), Some(piece), "{piece} is a piece");
    id
}

/// No `▁` piece and no `é`: in "a ééé ééa" the word "▁ééé" is unknown throughout, and so is
/// the start of "▁ééa", so one unknown run covers both words' unknown pieces and becomes one
/// unknown id. With byte fallback every unknown character becomes its UTF-8 bytes instead.
#[test]
fn unknown_runs_across_words_and_bytes_inside_cached_words() {
    let pieces = [
        ("▁a", -1.0, PieceType::Normal),
        ("a", -2.0, PieceType::Normal),
    ];
    let text = "a ééé ééa";
    let merged = processor(&pieces, false);
    let want = vec![id(&merged, "▁a"), 0, id(&merged, "a")];
    let bytes = processor(&pieces, true);
    let mut want_bytes = vec![id(&bytes, "▁a")];
    want_bytes.extend("▁ééé▁éé".bytes().map(|b| id(&bytes, &super::byte_piece(b))));
    want_bytes.push(id(&bytes, "a"));
    // Twice: the second time every word comes from the cache.
    for _ in 0..2 {
        assert_eq!(merged.encode_ids(text), want);
        assert_eq!(bytes.encode_ids(text), want_bytes);
        // The same words after a known word, and after an unknown one.
        assert_eq!(merged.encode_ids("a a ééé ééa")[1..], want[..]);
        assert_eq!(merged.encode_ids("é ééé ééa"), vec![0, id(&merged, "a")]);
        // A known word ends a run: the unknown words around it stay apart.
        assert_eq!(merged.encode_ids("é a é"), vec![0, id(&merged, "▁a"), 0]);
    }
}

/// A user-defined piece inside words and as a word, among unknown characters.
#[test]
fn user_defined_pieces_among_unknowns() {
    let sp = processor(
        &[
            ("▁a", -1.0, PieceType::Normal),
            ("b", -1.5, PieceType::Normal),
            ("zz", 0.0, PieceType::UserDefined),
        ],
        false,
    );
    let text = "azzb zz ézzé";
    for _ in 0..2 {
        assert_eq!(sp.encode_ids(text), reference_ids(&sp, text));
    }
    let zz = id(&sp, "zz");
    assert!(sp.encode_ids(text).iter().filter(|&&i| i == zz).count() == 3);
}

/// Pieces of 1 to 3 characters, some after a mark, with scores that tie or nearly tie, some
/// user-defined or unused.
fn vocabulary() -> impl Strategy<Value = Vec<(String, f32, PieceType)>> {
    let score = prop_oneof![
        prop::sample::select(vec![-1.0f32, -1.000_000_1, -2.0, -0.5, -3.0]),
        -9.0f32..-0.1
    ];
    let piece = piece(vec!['a', 'b', 'é', '語'], score).prop_map(|p| (p.piece, p.score, p.kind));
    prop::collection::vec(piece, 1..30)
}

/// Words of characters some vocabularies lack (`z`, `😀`), separated by one or two spaces.
fn text() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec!['a', 'b', 'é', '語', 'z', '😀']);
    let word = (
        prop::sample::select(vec![" ", "  "]),
        prop::collection::vec(alphabet, 1..10),
    );
    prop::collection::vec(word, 0..60).prop_map(|words| {
        words
            .into_iter()
            .map(|(space, cs)| format!("{space}{}", cs.into_iter().collect::<String>()))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// First call or cached, alone or after a long prefix, the ids equal the reference's.
    #[test]
    fn ids_from_the_word_cache_equal_the_pieces_path(
        pieces in vocabulary(),
        byte_fallback in any::<bool>(),
        text in text(),
    ) {
        let pieces: Vec<(&str, f32, PieceType)> =
            pieces.iter().map(|(p, s, k)| (p.as_str(), *s, *k)).collect();
        let sp = processor(&pieces, byte_fallback);
        let long = format!("{} {text}", text.repeat(3));
        for t in [&text, &long, &text] {
            prop_assert_eq!(sp.encode_ids(t), reference_ids(&sp, t));
        }
    }
}
