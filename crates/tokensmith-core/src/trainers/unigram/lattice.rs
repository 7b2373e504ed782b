//! The trainer's view of a vocabulary: pieces with log-probabilities, a trie over them, and
//! the lattice of one word (every piece occurrence) with forward-backward and Viterbi.
//!
//! Facts kept from sentencepiece's `unigram::Model::PopulateNodes` and `Lattice`:
//! - where no piece of exactly one character starts at a position, an unknown node of one
//!   character is added, scored `min_score - 10`;
//! - forward-backward gives each node's marginal `exp(alpha + score + beta - Z)`, and unknown
//!   nodes count for nothing;
//! - Viterbi keeps, at each position, the first best-scoring path into it.
//!
//! Positions are UTF-8 byte offsets. Scores are `f64`, summed in log space with the running
//! maximum factored out, so long words (whole CJK sentences) neither underflow nor overflow.
//!
//! ```
//! use tokensmith_core::trainers::unigram::{Lattice, TrainerModel};
//! let model = TrainerModel::new(vec![
//!     ("a".into(), 0.3f64.ln()), ("b".into(), 0.2f64.ln()), ("ab".into(), 0.4f64.ln()),
//! ]);
//! let mut lattice = Lattice::default();
//! lattice.populate(&model, "ab");
//! let mut expected = vec![0.0; 3];
//! let z = lattice.marginals(1.0, |id, p| expected[id as usize] += p);
//! // Two paths: [ab] = 0.4 and [a, b] = 0.06, so P([ab]) = 0.4 / 0.46.
//! assert!((z - 0.46f64.ln()).abs() < 1e-12);
//! assert!((expected[2] - 0.4 / 0.46).abs() < 1e-12);
//! assert_eq!(lattice.viterbi(), vec![2]);
//! ```

use crate::models::unigram::PieceTrie;

/// The score given below the worst piece to a character no piece covers.
const UNK_PENALTY: f64 = 10.0;

/// The id of an unknown node.
pub const UNK: u32 = u32::MAX;

/// Pieces with scores (log-probabilities) and the trie to find them in a word.
#[derive(Debug, Clone)]
pub struct TrainerModel {
    pieces: Vec<(String, f64)>,
    trie: PieceTrie,
    min_score: f64,
}

impl TrainerModel {
    pub fn new(pieces: Vec<(String, f64)>) -> Self {
        let mut trie = PieceTrie::new();
        let mut min_score = f64::MAX;
        for (id, (piece, score)) in pieces.iter().enumerate() {
            trie.insert(piece.as_bytes(), id as u32);
            min_score = min_score.min(*score);
        }
        Self {
            pieces,
            trie,
            min_score,
        }
    }

    pub fn pieces(&self) -> &[(String, f64)] {
        &self.pieces
    }

    pub fn into_pieces(self) -> Vec<(String, f64)> {
        self.pieces
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The lowest score (`f64::MAX` when empty).
    pub fn min_score(&self) -> f64 {
        self.min_score
    }
}

/// One occurrence of a piece (or an unknown character) in a word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    pub start: u32,
    pub end: u32,
    pub id: u32,
    pub score: f64,
}

/// The lattice of one word, with buffers reused from word to word.
#[derive(Debug, Clone, Default)]
pub struct Lattice {
    len: usize,
    /// Ordered by start, then by length.
    nodes: Vec<Node>,
    /// Node indices ordered by end (counting sort of `nodes`).
    by_end: Vec<u32>,
    end_offsets: Vec<u32>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
}

impl Lattice {
    /// Fills the lattice with every piece of `model` found in `word`.
    pub fn populate(&mut self, model: &TrainerModel, word: &str) {
        self.populate_with(model, word, None);
    }

    /// Like [`Lattice::populate`], without the node of piece `skip` spanning the whole word
    /// (the second-best segmentation of a piece is the best one without the piece itself).
    pub fn populate_with(&mut self, model: &TrainerModel, word: &str, skip: Option<u32>) {
        let bytes = word.as_bytes();
        self.len = bytes.len();
        self.nodes.clear();
        let unk_score = model.min_score - UNK_PENALTY;
        let mut start = 0;
        while start < bytes.len() {
            let char_len = utf8_len(bytes[start]).min(bytes.len() - start);
            let mut has_single = false;
            let nodes = &mut self.nodes;
            model.trie.common_prefixes(&bytes[start..], |len, id| {
                if start == 0 && len == bytes.len() && Some(id) == skip {
                    return;
                }
                has_single |= len == char_len;
                nodes.push(Node {
                    start: start as u32,
                    end: (start + len) as u32,
                    id,
                    score: model.pieces[id as usize].1,
                });
            });
            if !has_single {
                // Keep nodes ordered by length at each start: the unknown node is the shortest.
                let at = self.nodes.iter().rposition(|n| n.start as usize != start);
                let at = at.map_or(0, |i| i + 1);
                self.nodes.insert(
                    at,
                    Node {
                        start: start as u32,
                        end: (start + char_len) as u32,
                        id: UNK,
                        score: unk_score,
                    },
                );
            }
            start += char_len;
        }
        self.index_by_end();
    }

    fn index_by_end(&mut self) {
        self.end_offsets.clear();
        self.end_offsets.resize(self.len + 2, 0);
        for n in &self.nodes {
            self.end_offsets[n.end as usize + 1] += 1;
        }
        for i in 1..self.end_offsets.len() {
            self.end_offsets[i] += self.end_offsets[i - 1];
        }
        self.by_end.clear();
        self.by_end.resize(self.nodes.len(), 0);
        let mut fill = self.end_offsets.clone();
        for (i, n) in self.nodes.iter().enumerate() {
            let slot = &mut fill[n.end as usize];
            self.by_end[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    fn ending_at(&self, pos: usize) -> &[u32] {
        &self.by_end[self.end_offsets[pos] as usize..self.end_offsets[pos + 1] as usize]
    }

    /// Runs forward-backward; calls `add(id, freq * marginal)` for each piece node and returns
    /// the log of the sum over all segmentations (`Z`). An empty word gives 0.
    pub fn marginals(&mut self, freq: f64, mut add: impl FnMut(u32, f64)) -> f64 {
        let n = self.len;
        if n == 0 {
            return 0.0;
        }
        self.alpha.clear();
        self.alpha.resize(n + 1, f64::NEG_INFINITY);
        self.alpha[0] = 0.0;
        for pos in 1..=n {
            let incoming = self.ending_at(pos);
            if incoming.is_empty() {
                continue;
            }
            let alpha = &self.alpha;
            let nodes = &self.nodes;
            let value = log_sum(
                incoming
                    .iter()
                    .map(|&i| alpha[nodes[i as usize].start as usize] + nodes[i as usize].score),
            );
            self.alpha[pos] = value;
        }
        self.beta.clear();
        self.beta.resize(n + 1, f64::NEG_INFINITY);
        self.beta[n] = 0.0;
        let mut hi = self.nodes.len();
        while hi > 0 {
            let start = self.nodes[hi - 1].start;
            let mut lo = hi - 1;
            while lo > 0 && self.nodes[lo - 1].start == start {
                lo -= 1;
            }
            let beta = &self.beta;
            let value = log_sum(
                self.nodes[lo..hi]
                    .iter()
                    .map(|node| node.score + beta[node.end as usize]),
            );
            self.beta[start as usize] = value;
            hi = lo;
        }
        let z = self.alpha[n];
        for node in &self.nodes {
            if node.id == UNK {
                continue;
            }
            let log_p =
                self.alpha[node.start as usize] + node.score + self.beta[node.end as usize] - z;
            add(node.id, freq * log_p.exp());
        }
        z
    }

    /// The ids of the best segmentation (unknown nodes as [`UNK`]).
    pub fn viterbi(&self) -> Vec<u32> {
        self.viterbi_scored().1
    }

    /// The best segmentation's score and ids.
    pub fn viterbi_scored(&self) -> (f64, Vec<u32>) {
        let n = self.len;
        if n == 0 {
            return (0.0, Vec::new());
        }
        let mut best = vec![(f64::NEG_INFINITY, u32::MAX); n + 1];
        best[0].0 = 0.0;
        for pos in 1..=n {
            for &i in self.ending_at(pos) {
                let node = &self.nodes[i as usize];
                let from = best[node.start as usize].0;
                if from == f64::NEG_INFINITY {
                    continue;
                }
                let cand = from + node.score;
                if best[pos].1 == u32::MAX || cand > best[pos].0 {
                    best[pos] = (cand, i);
                }
            }
        }
        let mut ids = Vec::new();
        let mut pos = n;
        while pos > 0 {
            let i = best[pos].1;
            if i == u32::MAX {
                // Unreachable end: only when the only covering node was skipped.
                return (f64::NEG_INFINITY, Vec::new());
            }
            let node = &self.nodes[i as usize];
            ids.push(node.id);
            pos = node.start as usize;
        }
        ids.reverse();
        (best[n].0, ids)
    }
}

/// `ln(sum(exp(x)))` with the maximum factored out.
fn log_sum(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = values.clone().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + values.map(|v| (v - m).exp()).sum::<f64>().ln()
}

fn utf8_len(lead: u8) -> usize {
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][usize::from(lead >> 4)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> TrainerModel {
        TrainerModel::new(vec![
            ("a".into(), 0.3f64.ln()),
            ("b".into(), 0.2f64.ln()),
            ("c".into(), 0.1f64.ln()),
            ("ab".into(), 0.4f64.ln()),
        ])
    }

    /// Seed 004, exercise 2: "abc" = [ab, c] (0.04) or [a, b, c] (0.006).
    #[test]
    fn marginals_match_the_two_paths() {
        let mut l = Lattice::default();
        l.populate(&model(), "abc");
        let mut e = [0.0; 4];
        let z = l.marginals(2.0, |id, p| e[id as usize] += p);
        let total: f64 = 0.04 + 0.006;
        assert!((z - total.ln()).abs() < 1e-12);
        assert!((e[3] - 2.0 * 0.04 / total).abs() < 1e-12);
        assert!((e[0] - 2.0 * 0.006 / total).abs() < 1e-12);
        assert!((e[2] - 2.0).abs() < 1e-12, "c is on every path");
        assert_eq!(l.viterbi(), vec![3, 2]);
    }

    #[test]
    fn unknown_characters_get_one_node_each() {
        let mut l = Lattice::default();
        l.populate(&model(), "aéz");
        let unk: Vec<(u32, u32)> = l
            .nodes()
            .iter()
            .filter(|n| n.id == UNK)
            .map(|n| (n.start, n.end))
            .collect();
        assert_eq!(unk, vec![(1, 3), (3, 4)]);
        assert_eq!(l.viterbi(), vec![0, UNK, UNK]);
        let mut e = [0.0; 4];
        l.marginals(1.0, |id, p| e[id as usize] += p);
        assert!((e[0] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn skipping_the_whole_piece_gives_the_second_best() {
        let m = model();
        let mut l = Lattice::default();
        l.populate_with(&m, "ab", Some(3));
        let (score, ids) = l.viterbi_scored();
        assert_eq!(ids, vec![0, 1]);
        assert!((score - 0.06f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn long_words_do_not_underflow() {
        let m = model();
        let word = "abc".repeat(2000);
        let mut l = Lattice::default();
        l.populate(&m, &word);
        let mut sum = 0.0;
        let z = l.marginals(1.0, |id, p| {
            if id == 2 {
                sum += p
            }
        });
        assert!(z.is_finite());
        assert!((sum - 2000.0).abs() < 1e-6);
    }
}
