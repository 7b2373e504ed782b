//! One EM round: the E-step (expected piece counts by forward-backward over every word, in
//! parallel) and sentencepiece's Bayesian M-step.
//!
//! Facts kept from sentencepiece's `RunEStep` / `RunMStep`:
//! - a word seen `n` times adds `n × marginal` to each piece in its lattice;
//! - the objective is `-Σ n × log Z / Σ n`;
//! - the M-step drops pieces expected fewer than 0.5 times and scores the others
//!   `digamma(count) - digamma(total)` (EM with a sparse Dirichlet prior), keeping their order.
//!
//! Determinism: each word's lattice is computed alone, and the sums across words are done in
//! fixed point (`u128` counts in units of 2^-32, each word's share rounded to a `u64`, `i128` objective in units of 2^-32), whose
//! addition is associative, so the result is the same bit for bit whatever the thread count
//! and however rayon splits the work.
//!
//! ```
//! use tokensmith_core::trainers::unigram::{digamma, m_step};
//! let pieces = vec![("a".to_string(), 0.0), ("b".to_string(), 0.0), ("c".to_string(), 0.0)];
//! let (next, map) = m_step(&pieces, &[3.0, 1.0, 0.25]);
//! assert_eq!(next.len(), 2); // "c" is expected fewer than 0.5 times
//! assert_eq!(map, [0, 1, u32::MAX]);
//! assert!((next[0].1 - (digamma(3.0) - digamma(4.0))).abs() < 1e-12);
//! ```

use rayon::prelude::*;

use super::lattice::{forward_backward, Scratch, TrainerModel};
use super::word_lattices::{LatticeSource, REMOVED};

const COUNT_SCALE: f64 = (1u64 << 32) as f64;
const OBJECTIVE_SCALE: f64 = (1u64 << 32) as f64;

/// What the E-step found.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// Expected count of each piece of the model.
    pub counts: Vec<f64>,
    /// `-Σ n log Z / Σ n`.
    pub objective: f64,
    /// Tokens in the Viterbi segmentation of the corpus.
    pub tokens: u64,
}

struct Acc {
    counts: Vec<u128>,
    objective: i128,
    tokens: u64,
}

impl Acc {
    fn new(n: usize) -> Self {
        Self {
            counts: vec![0; n],
            objective: 0,
            tokens: 0,
        }
    }

    fn merge(mut self, other: Self) -> Self {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self.objective += other.objective;
        self.tokens += other.tokens;
        self
    }
}

/// Expected piece counts over `words` (whose lattices come from `source`) under `model`.
pub fn e_step(
    model: &TrainerModel,
    source: &LatticeSource<'_>,
    words: &[(String, u64)],
) -> Expectation {
    let n = model.len();
    let total: u64 = words.iter().map(|w| w.1).sum();
    let blocks = source.blocks(words);
    // Few, large tasks: each one zeroes and merges a dense vector of every piece.
    let min_len = blocks / (rayon::current_num_threads() * 4).max(1);
    let acc = (0..blocks)
        .into_par_iter()
        .with_min_len(min_len.max(1))
        .fold(
            || (Acc::new(n), Scratch::default(), Vec::new()),
            |(mut acc, mut scratch, mut buffer), b| {
                source.for_each_in_block(words, b, &mut buffer, |i, nodes, chars| {
                    let (word, freq) = &words[i];
                    let counts = &mut acc.counts;
                    let (z, tokens) = forward_backward(
                        model,
                        nodes,
                        chars,
                        word.len(),
                        *freq as f64,
                        &mut scratch,
                        |id, p| counts[id as usize] += u128::from((p * COUNT_SCALE + 0.5) as u64),
                    );
                    acc.objective += (z * *freq as f64 * OBJECTIVE_SCALE).round() as i128;
                    acc.tokens += u64::from(tokens) * freq;
                });
                (acc, scratch, buffer)
            },
        )
        .map(|(acc, _, _)| acc)
        .reduce(|| Acc::new(n), Acc::merge);
    Expectation {
        counts: acc.counts.iter().map(|&c| c as f64 / COUNT_SCALE).collect(),
        objective: -(acc.objective as f64 / OBJECTIVE_SCALE) / total.max(1) as f64,
        tokens: acc.tokens,
    }
}

/// The pieces expected at least 0.5 times, scored `digamma(count) - digamma(total)`, and the
/// map from old to new piece ids ([`REMOVED`] for a dropped piece).
pub fn m_step(pieces: &[(String, f64)], expected: &[f64]) -> (Vec<(String, f64)>, Vec<u32>) {
    let mut map = Vec::with_capacity(pieces.len());
    let mut kept: Vec<(String, f64)> = Vec::new();
    for ((piece, _), &e) in pieces.iter().zip(expected) {
        if e >= 0.5 {
            map.push(kept.len() as u32);
            kept.push((piece.clone(), e));
        } else {
            map.push(REMOVED);
        }
    }
    let total: f64 = kept.iter().map(|p| p.1).sum();
    let log_total = digamma(total);
    let scored = kept
        .into_iter()
        .map(|(p, e)| (p, digamma(e) - log_total))
        .collect();
    (scored, map)
}

/// The digamma function by recurrence up to 7 and its asymptotic series, rounded as
/// sentencepiece and HF round it: the series is summed on its own, then added.
pub fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 7.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    x -= 1.0 / 2.0;
    let xx = 1.0 / x;
    let xx2 = xx * xx;
    let xx4 = xx2 * xx2;
    result += x.ln() + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainers::unigram::word_lattices::WordLattices;

    #[test]
    fn digamma_known_values() {
        // digamma(1) = -Euler-Mascheroni; digamma(x + 1) = digamma(x) + 1/x.
        assert!((digamma(1.0) + 0.577_215_664_901_532_9).abs() < 1e-9);
        assert!((digamma(10.5) - digamma(9.5) - 1.0 / 9.5).abs() < 1e-9);
    }

    #[test]
    fn e_step_sums_word_marginals() {
        let model = TrainerModel::new(vec![
            ("a".into(), 0.3f64.ln()),
            ("b".into(), 0.2f64.ln()),
            ("c".into(), 0.1f64.ln()),
            ("ab".into(), 0.4f64.ln()),
        ]);
        let words = vec![("abc".to_string(), 3), ("ab".to_string(), 1)];
        let lattices = WordLattices::build(&words, &model);
        let e = e_step(&model, &LatticeSource::Stored(&lattices), &words);
        let trie = model.trie();
        assert_eq!(e_step(&model, &LatticeSource::Trie(&trie), &words), e);
        let p_abc = 0.04 / 0.046;
        let p_ab = 0.4 / 0.46;
        assert!((e.counts[3] - (3.0 * p_abc + p_ab)).abs() < 1e-9);
        assert!((e.counts[2] - 3.0).abs() < 1e-9);
        let obj = -(3.0 * 0.046f64.ln() + 0.46f64.ln()) / 4.0;
        assert!((e.objective - obj).abs() < 1e-6);
        assert_eq!(e.tokens, 3 * 2 + 1);
    }
}
