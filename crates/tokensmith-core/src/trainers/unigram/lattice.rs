//! The trainer's view of a vocabulary (pieces with log-probabilities) and the lattice of one
//! word: every occurrence of a piece, with forward-backward and Viterbi over it.
//!
//! Facts kept from sentencepiece's `unigram::Model::PopulateNodes` and `Lattice`:
//! - where no piece of exactly one character starts at a position, an unknown node of one
//!   character is added, scored `min_score - 10`;
//! - forward-backward gives each node's marginal `exp(alpha + score + beta - Z)`, and unknown
//!   nodes count for nothing;
//! - Viterbi keeps, at each position, the first best-scoring path into it (nodes are visited
//!   by start, then by length).
//!
//! Positions are UTF-8 byte offsets. Scores are `f64`, summed in log space with the running
//! maximum factored out, so long words (whole CJK sentences) neither underflow nor overflow.
//! A node holds only its piece id; scores come from the model, so one lattice serves every EM
//! round (see [`super::word_lattices`]).
//!
//! ```
//! use tokensmith_core::trainers::unigram::{Lattice, TrainerModel};
//! let model = TrainerModel::new(vec![
//!     ("a".into(), 0.3f64.ln()), ("b".into(), 0.2f64.ln()), ("ab".into(), 0.4f64.ln()),
//! ]);
//! let mut lattice = Lattice::default();
//! lattice.populate(&model, &model.trie(), "ab");
//! let mut expected = vec![0.0; 3];
//! let z = lattice.marginals(&model, 1.0, |id, p| expected[id as usize] += p);
//! // Two paths: [ab] = 0.4 and [a, b] = 0.06, so P([ab]) = 0.4 / 0.46.
//! assert!((z - 0.46f64.ln()).abs() < 1e-12);
//! assert!((expected[2] - 0.4 / 0.46).abs() < 1e-12);
//! assert_eq!(lattice.viterbi(&model).1, vec![2]);
//! ```

use super::flat_trie::FlatTrie;

/// The score given below the worst piece to a character no piece covers.
const UNK_PENALTY: f64 = 10.0;

/// The id of an unknown node.
pub const UNK: u32 = u32::MAX;

/// Pieces with scores (log-probabilities).
#[derive(Debug, Clone)]
pub struct TrainerModel {
    pieces: Vec<(String, f64)>,
    scores: Vec<f64>,
    /// `exp(score)`, for the linear-space forward-backward.
    probs: Vec<f64>,
    unk_score: f64,
}

impl TrainerModel {
    pub fn new(pieces: Vec<(String, f64)>) -> Self {
        let scores: Vec<f64> = pieces.iter().map(|p| p.1).collect();
        let min = scores.iter().copied().fold(f64::MAX, f64::min);
        let probs = scores.iter().map(|s| s.exp()).collect();
        Self {
            pieces,
            scores,
            probs,
            unk_score: min - UNK_PENALTY,
        }
    }

    /// A trie over the pieces (values: piece ids).
    pub fn trie(&self) -> FlatTrie {
        FlatTrie::new(self.pieces.iter().map(|(p, _)| p.as_bytes()))
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
        self.unk_score + UNK_PENALTY
    }

    #[inline]
    fn prob(&self, id: u32) -> f64 {
        if id == UNK {
            self.unk_score.exp()
        } else {
            self.probs[id as usize]
        }
    }

    #[inline]
    fn score(&self, id: u32) -> f64 {
        if id == UNK {
            self.unk_score
        } else {
            self.scores[id as usize]
        }
    }
}

/// One occurrence of a piece (or, with id [`UNK`], of an unknown character) in a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub start: u32,
    pub end: u32,
    pub id: u32,
}

/// Work buffers, reused from word to word.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    alpha: Vec<f64>,
    max: Vec<f64>,
    sum: Vec<f64>,
    beta: Vec<f64>,
    best: Vec<(f64, u32)>,
}

/// Finds every piece of `trie` in `word`, ordered by start then length, with an unknown node
/// where no single-character piece starts; `skip` leaves out that piece's whole-word node.
pub fn populate(trie: &FlatTrie, word: &str, skip: Option<u32>, nodes: &mut Vec<Node>) {
    let bytes = word.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let char_len = utf8_len(bytes[start]).min(bytes.len() - start);
        let first = nodes.len();
        let mut has_single = false;
        trie.common_prefixes(&bytes[start..], |len, id| {
            if start == 0 && len == bytes.len() && Some(id) == skip {
                return;
            }
            has_single |= len == char_len;
            nodes.push(Node {
                start: start as u32,
                end: (start + len) as u32,
                id,
            });
        });
        if !has_single {
            // The unknown node is the shortest at this start.
            nodes.insert(
                first,
                Node {
                    start: start as u32,
                    end: (start + char_len) as u32,
                    id: UNK,
                },
            );
        }
        start += char_len;
    }
}

/// Below this, `exp(chars × unk_score)` is far from f64's smallest normal number (about
/// `exp(-708)`), so a word of `chars` characters can be summed in linear space: every prefix
/// has a path (one node per character, each scored at least `unk_score`).
const LINEAR_LIMIT: f64 = 600.0;

/// Forward-backward over `nodes` (a word of `chars` characters, `len` bytes): calls
/// `add(id, freq × marginal)` for each piece node and returns `(log Z, Viterbi token count)`.
///
/// Short words (almost all) are summed with probabilities, long ones in log space; both give
/// the same values up to rounding, and which one runs depends only on the word and the model.
pub fn forward_backward(
    model: &TrainerModel,
    nodes: &[Node],
    chars: usize,
    len: usize,
    freq: f64,
    scratch: &mut Scratch,
    add: impl FnMut(u32, f64),
) -> (f64, u32) {
    if len == 0 {
        return (0.0, 0);
    }
    if (chars as f64) * -model.unk_score < LINEAR_LIMIT {
        forward_backward_linear(model, nodes, len, freq, scratch, add)
    } else {
        forward_backward_log(model, nodes, len, freq, scratch, add)
    }
}

fn forward_backward_linear(
    model: &TrainerModel,
    nodes: &[Node],
    len: usize,
    freq: f64,
    scratch: &mut Scratch,
    mut add: impl FnMut(u32, f64),
) -> (f64, u32) {
    let Scratch {
        alpha, beta, best, ..
    } = scratch;
    alpha.clear();
    alpha.resize(len + 1, 0.0);
    best.clear();
    best.resize(len + 1, (f64::NEG_INFINITY, 0));
    alpha[0] = 1.0;
    best[0] = (0.0, 0);
    for node in nodes {
        let (s, e) = (node.start as usize, node.end as usize);
        alpha[e] += alpha[s] * model.prob(node.id);
        let cand = best[s].0 + model.score(node.id);
        if cand > best[e].0 {
            best[e] = (cand, best[s].1 + 1);
        }
    }
    let z = alpha[len];
    beta.clear();
    beta.resize(len + 1, 0.0);
    beta[len] = 1.0;
    for node in nodes.iter().rev() {
        beta[node.start as usize] += model.prob(node.id) * beta[node.end as usize];
    }
    let scale = freq / z;
    for node in nodes {
        if node.id != UNK {
            let p = model.probs[node.id as usize];
            // alpha / Z first: alpha × beta alone could underflow.
            add(
                node.id,
                alpha[node.start as usize] * scale * p * beta[node.end as usize],
            );
        }
    }
    (z.ln(), best[len].1)
}

fn forward_backward_log(
    model: &TrainerModel,
    nodes: &[Node],
    len: usize,
    freq: f64,
    scratch: &mut Scratch,
    mut add: impl FnMut(u32, f64),
) -> (f64, u32) {
    let Scratch {
        max,
        sum,
        beta,
        best,
        ..
    } = scratch;
    // alpha[p] = max[p] + ln(sum[p]), accumulated as nodes ending at p are pushed.
    max.clear();
    max.resize(len + 1, f64::NEG_INFINITY);
    sum.clear();
    sum.resize(len + 1, 0.0);
    best.clear();
    best.resize(len + 1, (f64::NEG_INFINITY, 0));
    max[0] = 0.0;
    sum[0] = 1.0;
    best[0] = (0.0, 0);
    let mut alpha_at = usize::MAX;
    let mut alpha = 0.0;
    for node in nodes {
        let s = node.start as usize;
        let e = node.end as usize;
        if s != alpha_at {
            alpha_at = s;
            alpha = max[s] + sum[s].ln();
        }
        let score = model.score(node.id);
        let v = alpha + score;
        if v <= max[e] {
            sum[e] += (v - max[e]).exp();
        } else {
            sum[e] = sum[e] * (max[e] - v).exp() + 1.0;
            max[e] = v;
        }
        let cand = best[s].0 + score;
        if cand > best[e].0 {
            best[e] = (cand, best[s].1 + 1);
        }
    }
    let z = max[len] + sum[len].ln();
    beta.clear();
    beta.resize(len + 1, f64::NEG_INFINITY);
    beta[len] = 0.0;
    let mut hi = nodes.len();
    while hi > 0 {
        let start = nodes[hi - 1].start;
        let mut lo = hi - 1;
        while lo > 0 && nodes[lo - 1].start == start {
            lo -= 1;
        }
        let group = &nodes[lo..hi];
        let (mut m, mut total) = (f64::NEG_INFINITY, 0.0);
        for n in group {
            let v = model.score(n.id) + beta[n.end as usize];
            if v <= m {
                total += (v - m).exp();
            } else {
                total = total * (m - v).exp() + 1.0;
                m = v;
            }
        }
        let s = start as usize;
        let alpha = max[s] + sum[s].ln();
        beta[s] = m + total.ln();
        for n in group {
            if n.id != UNK {
                let log_p = alpha + model.score(n.id) + beta[n.end as usize] - z;
                add(n.id, freq * log_p.exp());
            }
        }
        hi = lo;
    }
    (z, best[len].1)
}

/// The best segmentation of `nodes`: its score and ids (unknown nodes as [`UNK`]), or
/// `(-inf, [])` when no path covers the word.
pub fn viterbi(
    model: &TrainerModel,
    nodes: &[Node],
    len: usize,
    scratch: &mut Scratch,
) -> (f64, Vec<u32>) {
    if len == 0 {
        return (0.0, Vec::new());
    }
    let best = &mut scratch.best;
    best.clear();
    best.resize(len + 1, (f64::NEG_INFINITY, u32::MAX));
    best[0] = (0.0, u32::MAX);
    for (i, node) in nodes.iter().enumerate() {
        let (s, e) = (node.start as usize, node.end as usize);
        if best[s].0 == f64::NEG_INFINITY {
            continue;
        }
        let cand = best[s].0 + model.score(node.id);
        if best[e].1 == u32::MAX || cand > best[e].0 {
            best[e] = (cand, i as u32);
        }
    }
    let mut ids = Vec::new();
    let mut pos = len;
    while pos > 0 {
        let i = best[pos].1;
        if i == u32::MAX {
            return (f64::NEG_INFINITY, Vec::new());
        }
        let node = nodes[i as usize];
        ids.push(node.id);
        pos = node.start as usize;
    }
    ids.reverse();
    (best[len].0, ids)
}

/// The lattice of one word, for one-off use (a piece's own segmentation, tests).
#[derive(Debug, Clone, Default)]
pub struct Lattice {
    len: usize,
    nodes: Vec<Node>,
    scratch: Scratch,
}

impl Lattice {
    /// Fills the lattice with every piece of `trie` (built from `model`) found in `word`.
    pub fn populate(&mut self, model: &TrainerModel, trie: &FlatTrie, word: &str) {
        self.populate_with(model, trie, word, None);
    }

    /// Like [`Lattice::populate`], without the node of piece `skip` spanning the whole word
    /// (the second-best segmentation of a piece is the best one without the piece itself).
    pub fn populate_with(
        &mut self,
        _model: &TrainerModel,
        trie: &FlatTrie,
        word: &str,
        skip: Option<u32>,
    ) {
        self.len = word.len();
        self.nodes.clear();
        populate(trie, word, skip, &mut self.nodes);
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// See [`forward_backward`]; returns `log Z`.
    pub fn marginals(&mut self, model: &TrainerModel, freq: f64, add: impl FnMut(u32, f64)) -> f64 {
        let chars = count_starts(&self.nodes);
        forward_backward(
            model,
            &self.nodes,
            chars,
            self.len,
            freq,
            &mut self.scratch,
            add,
        )
        .0
    }

    /// See [`viterbi`].
    pub fn viterbi(&mut self, model: &TrainerModel) -> (f64, Vec<u32>) {
        viterbi(model, &self.nodes, self.len, &mut self.scratch)
    }
}

/// The number of distinct start positions (the characters of the word).
pub(crate) fn count_starts(nodes: &[Node]) -> usize {
    let mut count = 0;
    let mut last = u32::MAX;
    for n in nodes {
        if n.start != last {
            count += 1;
            last = n.start;
        }
    }
    count
}

pub(crate) fn utf8_len(lead: u8) -> usize {
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
        let m = model();
        let mut l = Lattice::default();
        l.populate(&m, &m.trie(), "abc");
        let mut e = [0.0; 4];
        let z = l.marginals(&m, 2.0, |id, p| e[id as usize] += p);
        let total: f64 = 0.04 + 0.006;
        assert!((z - total.ln()).abs() < 1e-12);
        assert!((e[3] - 2.0 * 0.04 / total).abs() < 1e-12);
        assert!((e[0] - 2.0 * 0.006 / total).abs() < 1e-12);
        assert!((e[2] - 2.0).abs() < 1e-12, "c is on every path");
        assert_eq!(l.viterbi(&m).1, vec![3, 2]);
    }

    #[test]
    fn unknown_characters_get_one_node_each() {
        let m = model();
        let mut l = Lattice::default();
        l.populate(&m, &m.trie(), "aéz");
        let unk: Vec<(u32, u32)> = l
            .nodes()
            .iter()
            .filter(|n| n.id == UNK)
            .map(|n| (n.start, n.end))
            .collect();
        assert_eq!(unk, vec![(1, 3), (3, 4)]);
        assert_eq!(l.viterbi(&m).1, vec![0, UNK, UNK]);
        let mut e = [0.0; 4];
        l.marginals(&m, 1.0, |id, p| e[id as usize] += p);
        assert!((e[0] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn skipping_the_whole_piece_gives_the_second_best() {
        let m = model();
        let mut l = Lattice::default();
        l.populate_with(&m, &m.trie(), "ab", Some(3));
        let (score, ids) = l.viterbi(&m);
        assert_eq!(ids, vec![0, 1]);
        assert!((score - 0.06f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn linear_and_log_space_agree() {
        let m = model();
        let mut l = Lattice::default();
        l.populate(&m, &m.trie(), "abcabzab");
        let mut lin = [0.0; 4];
        let mut log = [0.0; 4];
        let a = forward_backward_linear(&m, &l.nodes, 8, 3.0, &mut l.scratch, |id, p| {
            lin[id as usize] += p
        });
        let b = forward_backward_log(&m, &l.nodes, 8, 3.0, &mut l.scratch, |id, p| {
            log[id as usize] += p
        });
        assert!((a.0 - b.0).abs() < 1e-12);
        assert_eq!(a.1, b.1);
        for (x, y) in lin.iter().zip(&log) {
            assert!((x - y).abs() < 1e-12, "{lin:?} {log:?}");
        }
    }

    #[test]
    fn viterbi_token_count_and_long_words() {
        let m = model();
        let word = "abc".repeat(2000);
        let mut l = Lattice::default();
        l.populate(&m, &m.trie(), &word);
        let mut sum = 0.0f64;
        let chars = count_starts(&l.nodes);
        assert_eq!(chars, 6000);
        let (z, tokens) = forward_backward(
            &m,
            &l.nodes,
            chars,
            word.len(),
            1.0,
            &mut l.scratch,
            |id, p| {
                if id == 2 {
                    sum += p
                }
            },
        );
        assert!(z.is_finite());
        assert!((sum - 2000.0).abs() < 1e-6);
        assert_eq!(tokens, 4000, "[ab, c] each time");
    }
}
