//! HF's Unigram lattice for training (HF `tokenizers` 0.23, `models/unigram/lattice.rs` and
//! `Unigram::populate_nodes`), with its float arithmetic kept step for step so that the
//! expected counts and Viterbi paths are HF's to the last bit.
//!
//! Facts kept from HF:
//! - nodes are made by start, each start's pieces by length, then, where no one-character
//!   piece starts, an unknown node of one character (id 0, score `min_score - 10`, with
//!   `min_score` the lowest score that is not NaN) after them; a piece listed twice matches
//!   with its last id;
//! - forward: the nodes ending at a position are summed (HF's `log_sum_exp`, the first one
//!   taken as is) in the order they were made; backward: the nodes starting at a position,
//!   in the order they were made; each node's expected count, `freq × exp(a + score + b - z)`
//!   summed left to right, is added by start, then in the order they were made;
//! - Viterbi: at each start, each node takes the first best of the nodes ending there
//!   (`prefix + score`, compared strictly);
//! - the two best paths sum their scores from the end, as HF's n-best search does.
//!
//! Where HF's n-best search meets two paths of exactly equal score, its heap decides which
//! comes first; here the path made of earlier nodes does.
//!
//! ```
//! use tokensmith_core::trainers::unigram::hf_lattice::{HfLattice, HfModel};
//! let model = HfModel::new(&[
//!     ("<UNK>".into(), f64::NAN), ("a".into(), 0.3f64.ln()), ("b".into(), 0.2f64.ln()),
//!     ("ab".into(), 0.4f64.ln()),
//! ]);
//! let lattice = HfLattice::new(&model, "ab");
//! let mut expected = vec![0.0; 4];
//! let z = lattice.add_marginals(1.0, &mut expected);
//! assert!((z - 0.46f64.ln()).abs() < 1e-12);
//! assert!((expected[3] - 0.4 / 0.46).abs() < 1e-12);
//! assert_eq!(lattice.viterbi(), [3]);
//! assert_eq!(lattice.two_best(), [vec![3], vec![1, 2]]);
//! ```

use super::flat_trie::FlatTrie;
use crate::log_space::log_sum;

/// The score given below the worst piece to a character no piece covers.
const UNK_PENALTY: f64 = 10.0;

/// Pieces with scores, as HF's trainer builds a `Unigram` from them (id 0 is the unknown
/// piece, scored NaN while training).
#[derive(Debug)]
pub struct HfModel {
    trie: FlatTrie,
    /// For each trie id (a piece's first id), the id HF's token-to-id map gives: the last.
    last_id: Vec<u32>,
    scores: Vec<f64>,
    unk_score: f64,
}

impl HfModel {
    pub fn new(pieces: &[(String, f64)]) -> Self {
        let trie = FlatTrie::new(pieces.iter().map(|(p, _)| p.as_bytes()));
        let mut last: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
        for (i, (p, _)) in pieces.iter().enumerate() {
            last.insert(p.as_str(), i as u32);
        }
        let last_id = pieces.iter().map(|(p, _)| last[p.as_str()]).collect();
        let scores: Vec<f64> = pieces.iter().map(|p| p.1).collect();
        // NaN is never below the minimum, as in HF's `score < min_score` scan.
        let min = scores
            .iter()
            .fold(f64::INFINITY, |m, &s| if s < m { s } else { m });
        Self {
            trie,
            last_id,
            scores,
            unk_score: min - UNK_PENALTY,
        }
    }

    /// The lowest score that is not NaN.
    pub fn min_score(&self) -> f64 {
        self.unk_score + UNK_PENALTY
    }

    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }
}

/// One node: a piece (id 0 also for an unknown character) over bytes `start..end`.
#[derive(Debug, Clone, Copy)]
struct Node {
    start: usize,
    end: usize,
    id: u32,
    score: f64,
}

/// The lattice of one word: its nodes in the order HF makes them.
#[derive(Debug)]
pub struct HfLattice {
    len: usize,
    nodes: Vec<Node>,
    /// Indices of the nodes starting / ending at each byte position, in order made.
    begins: Vec<Vec<u32>>,
    ends: Vec<Vec<u32>>,
}

impl HfLattice {
    pub fn new(model: &HfModel, word: &str) -> Self {
        let bytes = word.as_bytes();
        let len = bytes.len();
        let mut lattice = Self {
            len,
            nodes: Vec::new(),
            begins: vec![Vec::new(); len + 1],
            ends: vec![Vec::new(); len + 1],
        };
        let mut start = 0;
        for c in word.chars() {
            let mblen = c.len_utf8();
            let mut single = false;
            model.trie.common_prefixes(&bytes[start..], |n, first| {
                let id = model.last_id[first as usize];
                lattice.insert(start, start + n, id, model.scores[id as usize]);
                single |= n == mblen;
            });
            if !single {
                lattice.insert(start, start + mblen, 0, model.unk_score);
            }
            start += mblen;
        }
        lattice
    }

    fn insert(&mut self, start: usize, end: usize, id: u32, score: f64) {
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            start,
            end,
            id,
            score,
        });
        self.begins[start].push(i);
        self.ends[end].push(i);
    }

    /// Adds `freq ×` each node's marginal to `expected[id]` and returns `freq × log Z`.
    pub fn add_marginals(&self, freq: f64, expected: &mut [f64]) -> f64 {
        let len = self.len;
        // alpha of a node depends only on its start, beta only on its end.
        let mut alpha = vec![0.0f64; len + 1];
        for pos in 1..=len {
            let terms = self.ends[pos].iter().map(|&l| {
                let n = self.nodes[l as usize];
                n.score + alpha[n.start]
            });
            alpha[pos] = log_sum(terms).unwrap_or(0.0);
        }
        let mut beta = vec![0.0f64; len + 1];
        for pos in (0..len).rev() {
            let terms = self.begins[pos].iter().map(|&r| {
                let n = self.nodes[r as usize];
                n.score + beta[n.end]
            });
            beta[pos] = log_sum(terms).unwrap_or(0.0);
        }
        let z = alpha[len];
        for pos in 0..len {
            for &i in &self.begins[pos] {
                let n = self.nodes[i as usize];
                let total = alpha[n.start] + n.score + beta[n.end] - z;
                expected[n.id as usize] += freq * total.exp();
            }
        }
        freq * z
    }

    /// The ids of HF's Viterbi path.
    pub fn viterbi(&self) -> Vec<u32> {
        let len = self.len;
        // Per node: its best prefix score (HF's backtrace score) and the node before it.
        let mut best: Vec<(f64, Option<u32>)> = vec![(0.0, None); self.nodes.len()];
        // The best into `len` (HF's end node, scored 0).
        let mut last: Option<(f64, u32)> = None;
        for pos in 0..=len {
            let targets: &[u32] = if pos == len {
                &[u32::MAX]
            } else {
                &self.begins[pos]
            };
            for &r in targets {
                let score = if r == u32::MAX {
                    0.0
                } else {
                    self.nodes[r as usize].score
                };
                let mut pick: Option<(f64, Option<u32>)> = None;
                if pos == 0 {
                    pick = Some((score, None));
                }
                for &l in &self.ends[pos] {
                    let s = best[l as usize].0 + score;
                    if pick.is_none_or(|p| s > p.0) {
                        pick = Some((s, Some(l)));
                    }
                }
                let Some(p) = pick else { continue };
                if r == u32::MAX {
                    last = p.1.map(|l| (p.0, l));
                } else {
                    best[r as usize] = p;
                }
            }
        }
        let mut path = Vec::new();
        let mut at = last.map(|l| l.1);
        while let Some(i) = at {
            path.push(self.nodes[i as usize].id);
            at = best[i as usize].1;
        }
        path.reverse();
        path
    }

    /// The ids of the best path and of the second best (when there is one), scores summed
    /// from the end as HF's n-best search sums them.
    pub fn two_best(&self) -> Vec<Vec<u32>> {
        // Per position: up to two (suffix score, first node, rank of the rest).
        let mut best: Vec<Vec<(f64, u32, usize)>> = vec![Vec::new(); self.len + 1];
        best[self.len].push((0.0, u32::MAX, 0));
        for pos in (0..self.len).rev() {
            let mut here: Vec<(f64, u32, usize)> = Vec::new();
            for &i in &self.begins[pos] {
                let n = self.nodes[i as usize];
                for (rank, rest) in best[n.end].iter().enumerate() {
                    here.push((n.score + rest.0, i, rank));
                }
            }
            // Stable: among equal scores, earlier nodes first.
            here.sort_by(|a, b| b.0.total_cmp(&a.0));
            here.truncate(2);
            best[pos] = here;
        }
        (0..best[0].len())
            .map(|rank| {
                let (mut pos, mut rank) = (0, rank);
                let mut path = Vec::new();
                while pos < self.len {
                    let (_, i, next) = best[pos][rank];
                    let n = self.nodes[i as usize];
                    path.push(n.id);
                    (pos, rank) = (n.end, next);
                }
                path
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(pieces: &[(&str, f64)]) -> HfModel {
        let mut all = vec![("<UNK>".to_string(), f64::NAN)];
        all.extend(pieces.iter().map(|&(p, s)| (p.to_string(), s)));
        HfModel::new(&all)
    }

    #[test]
    fn unknown_nodes_come_after_the_pieces_and_score_ten_below() {
        let m = model(&[("xa", -1.0), ("a", -2.0)]);
        assert_eq!(m.min_score(), -2.0);
        let l = HfLattice::new(&m, "xa");
        let made: Vec<(usize, usize, u32)> =
            l.nodes.iter().map(|n| (n.start, n.end, n.id)).collect();
        assert_eq!(made, [(0, 2, 1), (0, 1, 0), (1, 2, 2)]);
        assert_eq!(l.nodes[1].score, -12.0);
        assert_eq!(l.viterbi(), [1]);
    }

    #[test]
    fn viterbi_keeps_the_first_of_equal_paths() {
        // [ab, c] and [a, bc] both score -3.5 ([a, b, c] -4.5). Into the end, "bc" (made
        // at start 1) comes before "c" (made at start 2), so HF keeps [a, bc].
        let m = model(&[
            ("a", -1.5),
            ("b", -1.5),
            ("c", -1.5),
            ("ab", -2.0),
            ("bc", -2.0),
        ]);
        let l = HfLattice::new(&m, "abc");
        assert_eq!(l.viterbi(), [1, 5]);
        // The two best are the two paths of -3.5, [a, bc] and [ab, c], whichever comes first
        // among equals.
        let mut two = l.two_best();
        two.sort();
        assert_eq!(two, [vec![1, 5], vec![4, 3]]);
    }

    #[test]
    fn a_single_path_has_no_second() {
        let m = model(&[("a", -1.0)]);
        assert_eq!(HfLattice::new(&m, "a").two_best(), [vec![1]]);
    }

    #[test]
    fn marginals_sum_to_the_characters_covered() {
        let m = model(&[("a", -1.0), ("b", -1.5), ("ab", -2.0), ("ba", -2.2)]);
        let l = HfLattice::new(&m, "abab");
        let mut e = vec![0.0; 5];
        l.add_marginals(2.0, &mut e);
        // Each character is covered once per path: 2 × 4 characters.
        let covered = e[1] + e[2] + 2.0 * (e[3] + e[4]);
        assert!((covered - 8.0).abs() < 1e-12, "{covered}");
    }
}
