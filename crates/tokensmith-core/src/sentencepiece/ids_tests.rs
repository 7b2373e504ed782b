//! The ids written straight from the word cache ([`super::ids::IdSink`]) against the ids of
//! the pieces that the whole-text Viterbi gives, turned into ids by the pieces path
//! (`pieces_of`, which handles unknowns on its own): random vocabularies with and without
//! byte fallback, user-defined pieces and unknown characters, and hand-derived answers for
//! unknown runs across words and byte fallback inside cached words.

use proptest::prelude::*;

use super::ids::IdSink;
use super::{Model, SentencePieceProcessor};
use crate::formats::sentencepiece_model::{ModelProto, NormalizerSpec, Piece, PieceType};
use crate::formats::sentencepiece_model::{ModelType, TrainerSpec};
use crate::models::unigram::test_pieces::piece;
use crate::models::unigram::word_sink::WordSink;

/// A processor of `model_type` over `pieces` (after `<unk>` at id 0, and the 256 byte pieces when
/// `byte_fallback`), with identity normalization and the dummy prefix.
pub(super) fn test_processor(
    model_type: ModelType,
    pieces: &[(&str, f32, PieceType)],
    byte_fallback: bool,
) -> SentencePieceProcessor {
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
            model_type,
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

/// A Unigram processor (see [`test_processor`]).
fn processor(pieces: &[(&str, f32, PieceType)], byte_fallback: bool) -> SentencePieceProcessor {
    test_processor(ModelType::Unigram, pieces, byte_fallback)
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

/// Checks `encode_ids` against the reference on `text` and on longer texts: for each count `n` of
/// `repeats`, `text` repeated `n` times then once more (0: `text` alone). The same processor
/// serves every call, so later calls find the words of earlier ones cached.
fn ids_match_first_call_and_cached(
    pieces: &[(String, f32, PieceType)],
    byte_fallback: bool,
    text: &str,
    repeats: &[usize],
) -> Result<(), TestCaseError> {
    let pieces: Vec<(&str, f32, PieceType)> = pieces
        .iter()
        .map(|(p, s, k)| (p.as_str(), *s, *k))
        .collect();
    let sp = processor(&pieces, byte_fallback);
    for &n in repeats {
        let t = if n == 0 {
            text.to_owned()
        } else {
            format!("{} {text}", text.repeat(n))
        };
        prop_assert_eq!(sp.encode_ids(&t), reference_ids(&sp, &t));
    }
    Ok(())
}

/// Up to `max_words` words of `alphabet`, each after one or two spaces, of `length` characters.
fn spaced_words(
    alphabet: Vec<char>,
    length: impl Strategy<Value = usize>,
    max_words: usize,
) -> impl Strategy<Value = String> {
    let word = (
        prop::sample::select(vec![" ", "  "]),
        length.prop_flat_map(move |n| {
            prop::collection::vec(prop::sample::select(alphabet.clone()), n)
        }),
    );
    prop::collection::vec(word, 0..max_words).prop_map(|words| {
        words
            .into_iter()
            .map(|(space, cs)| format!("{space}{}", cs.into_iter().collect::<String>()))
            .collect()
    })
}

/// Words of characters some vocabularies lack (`z`, `😀`), separated by one or two spaces.
fn text() -> impl Strategy<Value = String> {
    spaced_words(vec!['a', 'b', 'é', '語', 'z', '😀'], 1..10usize, 60)
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
        ids_match_first_call_and_cached(&pieces, byte_fallback, &text, &[0, 3, 0])?;
    }
}

/// Words of up to 30 characters, most of them unknown to most vocabularies (`z`, `я`, `😀`):
/// runs of unknown pieces inside and across words, and words over the cache's longest (40
/// bytes), which are segmented in context from the score of every piece before them.
fn text_with_long_unknown_runs() -> impl Strategy<Value = String> {
    let length = prop_oneof![3 => 1..6usize, 1 => 12..31usize];
    spaced_words(vec!['a', 'é', '語', 'z', 'я', '😀'], length, 40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Cached words keep their unknown runs merged; the ids, and the score that words
    /// segmented in context start from, still count every unknown character.
    #[test]
    fn merged_unknown_runs_give_the_pieces_path_ids(
        pieces in vocabulary(),
        byte_fallback in any::<bool>(),
        text in text_with_long_unknown_runs(),
    ) {
        ids_match_first_call_and_cached(&pieces, byte_fallback, &text, &[0, 4, 0, 4])?;
    }
}

/// Hand-derived: under a vocabulary of "▁a" and "a" only, "я" is unknown, so "яя яяя" is one
/// unknown run over both words (the mark between them is unknown too), cached as one span per
/// word; a word over 40 bytes after it is segmented in context and its first run joins it.
#[test]
fn a_run_spans_cached_words_and_a_word_in_context() {
    let sp = processor(
        &[
            ("▁a", -1.0, PieceType::Normal),
            ("a", -2.0, PieceType::Normal),
        ],
        false,
    );
    let a = id(&sp, "▁a");
    let plain_a = id(&sp, "a");
    let long = format!("{}a", "я".repeat(25));
    let text = format!("a яя яяя {long} a");
    for _ in 0..3 {
        assert_eq!(sp.encode_ids(&text), vec![a, 0, plain_a, a]);
        assert_eq!(sp.encode_ids(&text), reference_ids(&sp, &text));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// After a whole text, the sink's score (what a word segmented in context starts from) is
    /// the `f32` sum, left to right, of the node scores of the whole-text Viterbi's pieces,
    /// one unknown piece per character, however the sink merged and joined unknown runs and
    /// whenever words in context asked for it before.
    #[test]
    fn the_sink_score_counts_every_unknown_character(
        pieces in vocabulary(),
        byte_fallback in any::<bool>(),
        text in text_with_long_unknown_runs(),
    ) {
        let pieces: Vec<(&str, f32, PieceType)> =
            pieces.iter().map(|(p, s, k)| (p.as_str(), *s, *k)).collect();
        let sp = processor(&pieces, byte_fallback);
        let Model::Unigram(m) = &sp.model else {
            panic!("a Unigram model")
        };
        let normalized = sp.normalize(&text);
        let want = m
            .encode(&normalized)
            .iter()
            .fold(0.0f32, |score, &(_, _, id)| score + m.node_score(id));
        for _ in 0..2 {
            let (mut out, mut scratch) = (Vec::new(), Vec::new());
            let mut sink = IdSink::new(sp.unknowns(), normalized.as_bytes(), &mut out, &mut scratch);
            // A text too long for the word path is not a case of this property.
            prop_assume!(m.segment_with(&normalized, &mut sink).is_some());
            prop_assert_eq!(sink.score(m).to_bits(), want.to_bits());
        }
    }
}

/// In tables doubled as often as they may (24 MiB, which a diverse text such as the 50 MB
/// corpus reaches), the shipped English and Japanese models give the reference's ids on every
/// line of the test texts, on the first call and once the words are cached.
#[test]
fn ids_from_fully_doubled_tables_equal_the_reference() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/spm/");
    let read = |name: &str| std::fs::read(format!("{dir}{name}")).expect("a test file");
    let text: String = [
        "botchan.txt",
        "../multilingual.txt",
        "wagahaiwa_nekodearu_head.txt",
    ]
    .map(|name| String::from_utf8(read(name)).expect("UTF-8 text"))
    .join("\n");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for model in ["test_model.model", "test_ja_model.model"] {
        let sp = SentencePieceProcessor::from_bytes(&read(model)).expect("the model loads");
        // The first call makes this thread's tables for the model; doubling stops at the most
        // (the tables of a model tested before are at the most already).
        sp.encode_ids(lines[0]);
        let doubled: usize = (0..8)
            .map(|_| crate::models::unigram::words::double_this_threads_tables())
            .sum();
        assert_eq!(
            doubled,
            crate::models::unigram::words::MAX_DOUBLINGS as usize
        );
        for pass in 0..2 {
            for line in &lines {
                assert_eq!(
                    sp.encode_ids(line),
                    reference_ids(&sp, line),
                    "{model} pass {pass}: {line}"
                );
            }
        }
    }
}
