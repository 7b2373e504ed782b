//! Pruning: drop the pieces whose removal costs the corpus the least likelihood, keeping
//! `max(desired, shrinking_factor × size)` of them.
//!
//! Facts kept from sentencepiece's `PruneSentencePieces`:
//! - a piece whose own best segmentation is not itself can go at no cost;
//! - otherwise its alternative is its second-best segmentation (the best without itself), and
//!   removing it is assumed to move all its Viterbi occurrences to the alternative's pieces;
//! - with `f` its Viterbi frequency, `S` the sum of all, `F = f / Σ word counts`:
//!   `loss = F × (log(f/S) - Σ_alt log((f_alt + f) / (S + f × (|alt| - 1))))`;
//! - pieces never on a Viterbi path go; single characters (no alternative) with a nonzero
//!   frequency stay; the rest are kept by decreasing loss.
//!
//! Ties: equal losses go by the piece's current position (earlier first). Frequencies are
//! integer sums, so the result does not depend on the thread count.

use rayon::prelude::*;

use super::lattice::{viterbi, Lattice, Scratch, TrainerModel, UNK};
use super::word_lattices::{WordLattices, REMOVED};

/// What removing one piece would do.
enum Fate {
    /// Not its own best segmentation: it can go.
    Removable,
    /// A single character: nothing can replace it.
    NoAlternative,
    /// Its occurrences would become these pieces.
    Alternative(Vec<u32>),
}

/// The pieces that survive one pruning step, in sentencepiece's order (the kept characters
/// first, then by decreasing loss), and the map from old to new ids ([`REMOVED`] if gone).
pub fn prune(
    model: &TrainerModel,
    lattices: &WordLattices,
    words: &[(String, u64)],
    desired: usize,
    shrinking_factor: f64,
) -> (Vec<(String, f64)>, Vec<u32>) {
    let pieces = model.pieces();
    let trie = model.trie();
    let fates: Vec<Fate> = pieces
        .par_iter()
        .enumerate()
        .map_init(Lattice::default, |lattice, (id, (piece, score))| {
            if piece.chars().nth(1).is_none() {
                return Fate::NoAlternative;
            }
            lattice.populate_with(model, &trie, piece, Some(id as u32));
            let (alt_score, alt) = lattice.viterbi(model);
            if alt.is_empty() || *score >= alt_score {
                Fate::Alternative(alt)
            } else {
                Fate::Removable
            }
        })
        .collect();
    let freq = viterbi_frequencies(model, lattices, words);
    let total_words: u64 = words.iter().map(|w| w.1).sum();
    let sum: f64 = freq.iter().map(|&f| f as f64).sum();
    let log_sum = sum.ln();
    let f_of = |id: u32| {
        if id == UNK {
            0.0
        } else {
            freq[id as usize] as f64
        }
    };
    let mut kept = Vec::new();
    let mut candidates: Vec<(usize, f64)> = Vec::new();
    for (i, fate) in fates.iter().enumerate() {
        let f = freq[i] as f64;
        match fate {
            _ if freq[i] == 0 => {}
            Fate::Removable => {}
            Fate::NoAlternative => kept.push(i),
            Fate::Alternative(alt) if alt.is_empty() => kept.push(i),
            Fate::Alternative(alt) => {
                let share = f / total_words as f64;
                let logprob = f.ln() - log_sum;
                let log_sum_alt = (sum + f * (alt.len() as f64 - 1.0)).ln();
                let logprob_alt: f64 = alt.iter().map(|&a| (f_of(a) + f).ln() - log_sum_alt).sum();
                candidates.push((i, share * (logprob - logprob_alt)));
            }
        }
    }
    let target = desired.max((shrinking_factor * pieces.len() as f64) as usize);
    candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, _) in candidates {
        if kept.len() >= target {
            break;
        }
        kept.push(i);
    }
    let mut map = vec![REMOVED; pieces.len()];
    for (new, &old) in kept.iter().enumerate() {
        map[old] = new as u32;
    }
    (kept.into_iter().map(|i| pieces[i].clone()).collect(), map)
}

/// How often each piece is on the Viterbi path of the corpus.
pub fn viterbi_frequencies(
    model: &TrainerModel,
    lattices: &WordLattices,
    words: &[(String, u64)],
) -> Vec<u64> {
    let n = model.len();
    let blocks = lattices.blocks();
    let min_len = blocks / (rayon::current_num_threads() * 4).max(1);
    (0..blocks)
        .into_par_iter()
        .with_min_len(min_len.max(1))
        .fold(
            || (vec![0u64; n], Scratch::default()),
            |(mut freq, mut scratch), b| {
                lattices.for_each_in_block(b, |i, nodes| {
                    let (word, count) = &words[i];
                    let (_, ids) = viterbi(model, nodes, word.len(), &mut scratch);
                    for id in ids {
                        if id != UNK {
                            freq[id as usize] += count;
                        }
                    }
                });
                (freq, scratch)
            },
        )
        .map(|(freq, _)| freq)
        .reduce(
            || vec![0u64; n],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_follows_the_formula() {
        // "ab" is its own best segmentation (0.4 > 0.3 × 0.2); "ba" is not (0.01 < 0.06).
        let model = TrainerModel::new(vec![
            ("a".into(), 0.3f64.ln()),
            ("b".into(), 0.2f64.ln()),
            ("ab".into(), 0.4f64.ln()),
            ("ba".into(), 0.01f64.ln()),
            ("z".into(), 0.01f64.ln()),
        ]);
        let words = vec![("ab".to_string(), 4), ("aba".to_string(), 1)];
        let lattices = WordLattices::build(&words, &model);
        let freq = viterbi_frequencies(&model, &lattices, &words);
        // "ab" x4 -> [ab]; "aba" -> [ab, a].
        assert_eq!(freq, vec![1, 0, 5, 0, 0]);
        // Everything fits: "z" and "ba" (never used) and "b" (never used) go.
        let (kept, map) = prune(&model, &lattices, &words, 0, 0.75);
        let names: Vec<&str> = kept.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["a", "ab"]);
        assert_eq!(map, [0, REMOVED, 1, REMOVED, REMOVED]);
    }

    #[test]
    fn candidates_are_ordered_by_loss() {
        let model = TrainerModel::new(vec![
            ("a".into(), -1.0),
            ("b".into(), -1.0),
            ("ab".into(), -1.5),
            ("ba".into(), -1.5),
        ]);
        // "ab" is used 10 times, "ba" once, "b" never: loss(ab) = 1.083 > loss(ba) = 0.163.
        let words = vec![
            ("ab".to_string(), 10),
            ("ba".to_string(), 1),
            ("a".to_string(), 1),
        ];
        let lattices = WordLattices::build(&words, &model);
        let names = |desired| -> Vec<String> {
            prune(&model, &lattices, &words, desired, 0.5)
                .0
                .into_iter()
                .map(|p| p.0)
                .collect()
        };
        assert_eq!(names(2), ["a", "ab"]);
        assert_eq!(names(3), ["a", "ab", "ba"]);
    }
}
