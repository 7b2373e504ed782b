//! The lattice of every piece match in a text, as sentencepiece's `unigram::Lattice` builds it,
//! for the n-best search, sampling and entropy (plain Viterbi uses the faster single pass in
//! `model.rs`).
//!
//! Facts kept so that results are identical: positions count characters; node 0 is BOS (it
//! ends at 0), node 1 is EOS (it begins at the end); at each start the pieces are inserted
//! shortest first, then an unknown node if no piece covers exactly one character; a
//! user-defined piece of n characters scores `0.1 * n - 0.1`; scores and path sums are
//! `f32`; Viterbi keeps the first of equal-scoring predecessors.

use super::model::{user_defined_score, Unigram};
use crate::formats::sentencepiece_model::PieceType;

/// One match: a piece (or BOS/EOS, whose `id` is `u32::MAX`) from char `pos` for `length`.
#[derive(Debug, Clone)]
pub struct Node {
    pub id: u32,
    pub pos: usize,
    pub length: usize,
    pub score: f32,
    /// The best score of a path from BOS through this node (filled by [`Lattice::viterbi`]).
    pub backtrace_score: f32,
}

/// All matches of one normalized text.
#[derive(Debug, Clone)]
pub struct Lattice {
    /// The byte offset of each character, and the text's length last.
    pub(super) surface: Vec<usize>,
    pub(super) nodes: Vec<Node>,
    /// Node ids that begin / end at each character position.
    pub(super) begin: Vec<Vec<u32>>,
    pub(super) end: Vec<Vec<u32>>,
}

pub(super) const BOS: u32 = 0;
pub(super) const EOS: u32 = 1;
const NO_PIECE: u32 = u32::MAX;

impl Lattice {
    /// Builds the lattice of `normalized` (sentencepiece's `PopulateNodes`).
    pub fn new(model: &Unigram, normalized: &str) -> Self {
        let bytes = normalized.as_bytes();
        let mut surface: Vec<usize> = normalized.char_indices().map(|(i, _)| i).collect();
        surface.push(bytes.len());
        let len = surface.len() - 1;
        let mut lattice = Self {
            nodes: Vec::with_capacity(len * 4 + 2),
            begin: vec![Vec::new(); len + 1],
            end: vec![Vec::new(); len + 1],
            surface,
        };
        lattice.push(NO_PIECE, 0, 0, 0.0);
        lattice.end[0].push(BOS);
        lattice.nodes.push(Node {
            id: NO_PIECE,
            pos: len,
            length: 0,
            score: 0.0,
            backtrace_score: 0.0,
        });
        lattice.begin[len].push(EOS);
        let unk_score = model.min_score() - super::model::UNK_PENALTY;
        for pos in 0..len {
            let start = lattice.surface[pos];
            let mut has_single_node = false;
            let mut matches = Vec::new();
            model
                .trie()
                .common_prefixes(&bytes[start..], |blen, id| matches.push((blen, id)));
            for (blen, id) in matches {
                let piece = &model.pieces()[id as usize];
                if piece.kind == PieceType::Unused {
                    continue;
                }
                let length = lattice.chars_until(pos, start + blen);
                let score = if piece.kind == PieceType::UserDefined {
                    user_defined_score(length)
                } else {
                    piece.score
                };
                lattice.insert(id, pos, length, score);
                has_single_node |= length == 1;
            }
            if !has_single_node {
                lattice.insert(model.unk_id(), pos, 1, unk_score);
            }
        }
        lattice
    }

    fn push(&mut self, id: u32, pos: usize, length: usize, score: f32) -> u32 {
        self.nodes.push(Node {
            id,
            pos,
            length,
            score,
            backtrace_score: 0.0,
        });
        (self.nodes.len() - 1) as u32
    }

    fn insert(&mut self, id: u32, pos: usize, length: usize, score: f32) {
        let node = self.push(id, pos, length, score);
        self.begin[pos].push(node);
        self.end[pos + length].push(node);
    }

    fn chars_until(&self, pos: usize, byte_end: usize) -> usize {
        let mut p = pos;
        while self.surface[p] < byte_end {
            p += 1;
        }
        p - pos
    }

    /// The number of characters.
    pub fn len(&self) -> usize {
        self.surface.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `(start, end, id)` byte span of node `n`.
    pub fn span(&self, n: u32) -> (usize, usize, u32) {
        let node = &self.nodes[n as usize];
        (
            self.surface[node.pos],
            self.surface[node.pos + node.length],
            node.id,
        )
    }

    pub fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }

    /// Fills every node's `backtrace_score`; returns the best path (node ids) and its score.
    pub fn viterbi(&mut self) -> (Vec<u32>, f32) {
        let mut prev = vec![u32::MAX; self.nodes.len()];
        for pos in 0..=self.len() {
            for &r in &self.begin[pos] {
                let mut best: Option<(u32, f32)> = None;
                for &l in &self.end[pos] {
                    let score =
                        self.nodes[l as usize].backtrace_score + self.nodes[r as usize].score;
                    if best.is_none_or(|(_, b)| score > b) {
                        best = Some((l, score));
                    }
                }
                // Every position has a node ending there (an unknown one at worst).
                if let Some((l, score)) = best {
                    prev[r as usize] = l;
                    self.nodes[r as usize].backtrace_score = score;
                }
            }
        }
        let mut path = Vec::new();
        let mut n = prev[EOS as usize];
        while n != BOS && n != u32::MAX {
            path.push(n);
            n = prev[n as usize];
        }
        path.reverse();
        (path, self.nodes[EOS as usize].backtrace_score)
    }

    /// `alpha[node]`: the log of the summed `exp(inv_theta * score)` of every path from BOS
    /// to the node's start (sentencepiece's `ForwardAlgorithm`).
    pub fn forward(&self, inv_theta: f32) -> Vec<f32> {
        let mut alpha = vec![0.0f32; self.nodes.len()];
        for pos in 0..=self.len() {
            for &r in &self.begin[pos] {
                for (k, &l) in self.end[pos].iter().enumerate() {
                    let y = inv_theta * self.nodes[l as usize].score + alpha[l as usize];
                    alpha[r as usize] = log_sum_exp(alpha[r as usize], y, k == 0);
                }
            }
        }
        alpha
    }

    /// The entropy of the segmentation distribution at inverse temperature `inv_theta`
    /// (sentencepiece's `CalculateEntropy`).
    pub fn entropy(&self, inv_theta: f32) -> f32 {
        let alpha = self.forward(inv_theta);
        let mut h = vec![0.0f32; self.nodes.len()];
        for pos in 0..=self.len() {
            for &r in &self.begin[pos] {
                for &l in &self.end[pos] {
                    let (l, r) = (l as usize, r as usize);
                    let t = inv_theta * self.nodes[l].score + alpha[l] - alpha[r];
                    h[r] += t.exp() * (h[l] + t);
                }
            }
        }
        -h[EOS as usize]
    }
}

/// `log(exp(x) + exp(y))`, or `y` when `init`, as sentencepiece computes it.
pub(super) fn log_sum_exp(x: f32, y: f32, init: bool) -> f32 {
    if init {
        return y;
    }
    let (vmin, vmax) = (x.min(y), x.max(y));
    if vmax > vmin + 50.0 {
        vmax
    } else {
        (f64::from(vmax) + (f64::from(vmin - vmax).exp() + 1.0).ln()) as f32
    }
}
