//! The single-pass Viterbi (over characters, with the character trie) against the lattice's
//! Viterbi (built from the byte trie, node by node, as sentencepiece's `Lattice`): the same
//! spans on random vocabularies of characters of 1 to 4 bytes, with exact ties (scores whose
//! sums never round), on texts that hold characters no piece covers and characters that are
//! only inside longer pieces; and against a reference single pass with sentencepiece's
//! rebasing, written here over the lattice's nodes, on texts of long runs of characters that
//! no piece holds, mixed with known ones, with scores large enough to rebase often.

use super::lattice::{Lattice, BOS, EOS};
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

/// Characters in no piece of [`vocabulary`] or [`rare_vocabulary`], of 1, 3 and 4 bytes.
const UNKNOWN: [char; 3] = ['z', 'ぬ', '😺'];
/// A character that [`rare_vocabulary`] puts only inside longer pieces.
const RARE: char = 'の';

/// Pieces over the alphabet plus a few that hold [`RARE`] inside, never alone or first, so
/// that it has a code in the character trie but starts no piece. Scores are quarters times
/// `scale`, less `fine` 256ths: with a large scale, sums pass the rebasing threshold within a
/// few characters, and with fine parts they round differently at different magnitudes, so
/// that a rebase in the wrong place changes the score or the path.
fn rare_vocabulary(scale: f32, fine: bool) -> impl Strategy<Value = Vec<UnigramPiece>> {
    let fine = if fine { 256u16 } else { 1 };
    let score = (1..48u8, 0..fine)
        .prop_map(move |(k, j)| -f32::from(k) / 4.0 * scale - f32::from(j) / 256.0);
    let chars = || prop::collection::vec(prop::sample::select(ALPHABET.to_vec()), 1..4);
    let plain = (chars(), score.clone()).prop_map(|(cs, score)| UnigramPiece {
        piece: cs.into_iter().collect(),
        score,
        kind: PieceType::Normal,
    });
    let rare = (chars(), chars(), score).prop_map(|(head, tail, score)| {
        let mut piece: String = head.into_iter().collect();
        piece.push(RARE);
        piece.extend(tail);
        UnigramPiece {
            piece,
            score,
            kind: PieceType::Normal,
        }
    });
    (
        prop::collection::vec(plain, 1..40),
        prop::collection::vec(rare, 0..4),
    )
        .prop_map(|(mut pieces, rare)| {
            pieces.extend(rare);
            with_unk_first(pieces)
        })
}

/// Texts made of runs: long runs of characters no piece holds (up to 80), runs of known
/// characters, and runs that mix both with [`RARE`].
fn run_text() -> impl Strategy<Value = String> {
    let mut mixed = ALPHABET.to_vec();
    mixed.extend(UNKNOWN);
    mixed.push(RARE);
    let class = prop::sample::select(vec![UNKNOWN.to_vec(), ALPHABET.to_vec(), mixed]);
    let run = (class, 1..80usize).prop_flat_map(|(chars, len)| {
        prop::collection::vec(prop::sample::select(chars), len).prop_map(String::from_iter)
    });
    prop::collection::vec(run, 0..6).prop_map(|runs| runs.concat())
}

/// sentencepiece's single pass as `model.rs`'s module doc states it, written over the
/// lattice's nodes: starts left to right, at each the nodes that begin there in the lattice's
/// order (shortest first, then the unknown node), a candidate replacing a position's best only
/// when strictly better; and when the score at the start being visited is outside
/// `[-100000, 100000]`, it is subtracted from that score and from every reached position up to
/// the furthest end so far. Returns the spans, the score with the rebased parts added back,
/// and the number of rebases.
fn reference_viterbi(lattice: &Lattice) -> (Vec<(usize, usize, u32)>, f64, usize) {
    let n = lattice.len();
    let mut score = vec![0.0f32; n + 1];
    let mut back: Vec<Option<u32>> = vec![None; n + 1];
    let (mut furthest, mut rebased, mut rebases) = (0usize, 0.0f64, 0);
    for pos in 0..n {
        let mut here = score[pos];
        if !(-100_000.0..=100_000.0).contains(&here) {
            score[pos] = 0.0;
            for at in pos + 1..=furthest.max(pos) {
                if back[at].is_some() {
                    score[at] -= here;
                }
            }
            rebased += f64::from(here);
            rebases += 1;
            here = 0.0;
        }
        for &id in &lattice.begin[pos] {
            let node = lattice.node(id);
            if id == EOS || id == BOS {
                continue;
            }
            let end = pos + node.length;
            let cand = node.score + here;
            if back[end].is_none() || cand > score[end] {
                score[end] = cand;
                back[end] = Some(id);
            }
            furthest = furthest.max(end);
        }
    }
    let mut spans = Vec::new();
    let mut at = n;
    while at > 0 {
        let id = back[at].expect("every position is reached");
        spans.push(lattice.span(id));
        at = lattice.node(id).pos;
    }
    spans.reverse();
    (spans, rebased + f64::from(score[n]), rebases)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Long unknown runs, mixed runs and a rare character: the same spans as the lattice.
    #[test]
    fn runs_equal_the_lattice(pieces in rare_vocabulary(1.0, false), text in run_text()) {
        let model = Unigram::new(pieces, 0);
        let mut lattice = Lattice::new(&model, &text);
        let (path, _) = lattice.viterbi();
        let want: Vec<_> = path.iter().map(|&n| lattice.span(n)).collect();
        prop_assert_eq!(model.encode(&text), want);
    }

    /// With scores in the thousands, rebasing happens every few characters, inside unknown
    /// runs and between them: the same spans and score as the reference pass.
    #[test]
    fn rebasing_runs_equal_the_reference(
        pieces in rare_vocabulary(1000.0, true),
        text in run_text(),
    ) {
        let model = Unigram::new(pieces, 0);
        let lattice = Lattice::new(&model, &text);
        let (want, want_score, _) = reference_viterbi(&lattice);
        let (spans, score) = model.viterbi(&text);
        prop_assert_eq!(spans, want);
        prop_assert_eq!(score, want_score as f32);
    }
}

/// Rebasing inside an unknown run decides the magnitude of a near tie after it. The unknown
/// node scores -30010; seven unknown characters put the score past -100000 once, at the 5th,
/// so "aé" is decided at -90030 (spacing 2^-7), where [a, é] = -2.25 and [aé] = -2.25 - 2^-9
/// round to the same sum and the earlier start, [aé], keeps the tie. Had the run not rebased,
/// the score at "a" (-210070) would rebase there instead, and at magnitude 0 [a, é] wins.
#[test]
fn rebasing_inside_an_unknown_run_decides_a_near_tie() {
    let model = Unigram::new(
        with_unk_first(vec![
            piece("a", -1.25),
            piece("é", -1.0),
            piece("aé", -2.25 - 1.0 / 512.0),
            piece("吾", -30_000.0),
        ]),
        0,
    );
    let text = format!("{}aé", "z".repeat(7));
    let lattice = Lattice::new(&model, &text);
    let (want, want_score, rebases) = reference_viterbi(&lattice);
    assert_eq!(rebases, 1);
    let (spans, score) = model.viterbi(&text);
    assert_eq!(spans, want);
    assert_eq!(score, want_score as f32);
    assert_eq!(spans[7..], [(7, 10, 3)]);
    // The same near tie decided from 0: the other way.
    let alone = model.encode("aé");
    assert_eq!(alone, [(0, 1, 1), (1, 3, 2)]);
}

fn piece(text: &str, score: f32) -> UnigramPiece {
    UnigramPiece {
        piece: text.into(),
        score,
        kind: PieceType::Normal,
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

/// A piece given twice (a `.model` file cannot hold that, but a vocabulary built in code or
/// read from an HF file can): both tries keep the first id and its score, so the Viterbi over
/// the character trie and the n-best lattice over the byte trie agree.
#[test]
fn a_repeated_piece_keeps_its_first_id_in_both_tries() {
    let piece = |piece: &str, score: f32| UnigramPiece {
        piece: piece.into(),
        score,
        kind: PieceType::Normal,
    };
    let mut pieces = vec![UnigramPiece {
        piece: "<unk>".into(),
        score: 0.0,
        kind: PieceType::Unknown,
    }];
    // "ab" first at id 1 (-1.0), again at id 4 with a better score that must be ignored.
    pieces.extend([
        piece("ab", -1.0),
        piece("a", -2.0),
        piece("b", -2.0),
        piece("ab", -0.5),
    ]);
    let model = Unigram::new(pieces, 0);
    model.prepare();
    assert_eq!(model.encode("ab"), vec![(0, 2, 1)]);
    let best = model.nbest("ab", 2);
    assert_eq!(best.len(), 2);
    assert_eq!(best[0], (vec![(0, 2, 1)], -1.0));
    assert_eq!(best[1], (vec![(0, 1, 2), (1, 2, 3)], -4.0));
}
