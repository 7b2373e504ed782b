//! HF's subword sampling for a Unigram model (`alpha`, `nbest_size`), drawn as HF draws it.
//!
//! The lattice is HF's: every vocabulary piece that matches at a character boundary, and an
//! unknown node (`min_score - 10`) where no one-character piece starts. Then, with `theta`
//! the model's `alpha`:
//! - without `nbest_size` (or 0): forward filtering, backward sampling. HF's forward pass is
//!   `A[end] = logsumexp over nodes (theta * (score + A[start]))` (the smoothing also scales
//!   the prefix's sum, unlike sentencepiece) and each backward step picks a node ending here
//!   with weight `exp(A[start] + theta * score - A[here])`; kept as is, so the distribution
//!   is HF's.
//! - with `nbest_size` n > 0: one of the n best paths, with weight `exp(theta * score)`; when
//!   every weight underflows to 0, the best path, as HF falls back to the first.
//!
//! Consecutive unknown nodes are fused, as on the best path. Draws come from the per-thread
//! generator of BPE-dropout, so results vary from call to call and are not seedable, as in HF.

use super::{HfUnigram, UNK_PENALTY};
use crate::hf::bpe::uniform;

/// One lattice node: a piece (or an unknown character) over bytes `start..end`.
#[derive(Clone, Copy)]
struct Node {
    start: usize,
    id: Option<u32>,
    score: f64,
}

impl HfUnigram {
    /// A sampled segmentation of `text` as byte spans with their piece's id (`None` for fused
    /// unknown nodes), or `None` when a character has neither a piece nor an unknown id.
    pub(super) fn sample_spans(
        &self,
        text: &str,
        theta: f64,
        nbest: Option<usize>,
    ) -> Option<Vec<(usize, usize, Option<u32>)>> {
        let ends = self.lattice(text)?;
        let path = match nbest {
            Some(n) if n > 0 => nbest_path(&ends, text.len(), n, theta),
            _ => sampled_path(&ends, text.len(), theta),
        };
        Some(self.fused(&path))
    }

    /// The nodes ending at each byte position.
    fn lattice(&self, text: &str) -> Option<Vec<Vec<Node>>> {
        let bytes = text.as_bytes();
        let mut ends: Vec<Vec<Node>> = vec![Vec::new(); bytes.len() + 1];
        let unk_score = self.min_score - UNK_PENALTY;
        for (start, c) in text.char_indices() {
            let mut single = false;
            self.trie.common_prefixes(&bytes[start..], |len, id| {
                let score = self.scores[id as usize];
                ends[start + len].push(Node {
                    start,
                    id: Some(id),
                    score,
                });
                single |= len == c.len_utf8();
            });
            if !single {
                self.unk_id?;
                ends[start + c.len_utf8()].push(Node {
                    start,
                    id: None,
                    score: unk_score,
                });
            }
        }
        Some(ends)
    }

    /// The path's spans, consecutive unknown nodes fused into one.
    fn fused(&self, path: &[(usize, usize, Option<u32>)]) -> Vec<(usize, usize, Option<u32>)> {
        let mut out: Vec<(usize, usize, Option<u32>)> = Vec::with_capacity(path.len());
        for &(s, e, id) in path {
            let unknown = id.is_none() || id == self.unk_id;
            match out.last_mut() {
                Some(last) if unknown && last.2.is_none() => last.1 = e,
                _ => out.push((s, e, if unknown { None } else { id })),
            }
        }
        out
    }
}

/// `log(exp(a) + exp(b))`.
fn log_sum_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// An index drawn with probability proportional to `weights`; 0 when they sum to nothing.
fn pick(weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return 0;
    }
    let mut target = f64::from(uniform()) * total;
    for (i, w) in weights.iter().enumerate() {
        if target < *w {
            return i;
        }
        target -= w;
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// Forward filtering, backward sampling over the whole lattice (HF's `Lattice::sample`).
fn sampled_path(ends: &[Vec<Node>], len: usize, theta: f64) -> Vec<(usize, usize, Option<u32>)> {
    let mut forward = vec![f64::NEG_INFINITY; len + 1];
    forward[0] = 0.0;
    for end in 1..=len {
        let mut sum: Option<f64> = None;
        for n in &ends[end] {
            let term = theta * (n.score + forward[n.start]);
            sum = Some(sum.map_or(term, |s| log_sum_exp(s, term)));
        }
        if let Some(s) = sum {
            forward[end] = s;
        }
    }
    let mut path = Vec::new();
    let mut end = len;
    while end > 0 {
        let z = forward[end];
        let weights: Vec<f64> = ends[end]
            .iter()
            .map(|n| (forward[n.start] + theta * n.score - z).exp())
            .collect();
        let n = ends[end][pick(&weights)];
        path.push((n.start, end, n.id));
        end = n.start;
    }
    path.reverse();
    path
}

/// One of the `n` best paths, drawn with weight `exp(theta * score)` (HF's `sample_nbest`).
fn nbest_path(
    ends: &[Vec<Node>],
    len: usize,
    n: usize,
    theta: f64,
) -> Vec<(usize, usize, Option<u32>)> {
    // best[p]: the n best partial paths to p as (score, node ending at p, rank at its start).
    let mut best: Vec<Vec<(f64, usize, usize)>> = vec![Vec::new(); len + 1];
    best[0].push((0.0, usize::MAX, 0));
    for end in 1..=len {
        let mut here: Vec<(f64, usize, usize)> = Vec::new();
        for (i, node) in ends[end].iter().enumerate() {
            for (rank, prev) in best[node.start].iter().enumerate() {
                here.push((prev.0 + node.score, i, rank));
            }
        }
        here.sort_by(|a, b| b.0.total_cmp(&a.0));
        here.truncate(n);
        best[end] = here;
    }
    let weights: Vec<f64> = best[len].iter().map(|p| (theta * p.0).exp()).collect();
    let mut path = Vec::new();
    let (mut end, mut rank) = (len, pick(&weights));
    while end > 0 {
        let (_, i, prev) = best[end][rank];
        let node = ends[end][i];
        path.push((node.start, end, node.id));
        (end, rank) = (node.start, prev);
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> HfUnigram {
        let pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)];
        let pieces = pieces.iter().map(|&(p, s)| (p.to_string(), s)).collect();
        HfUnigram::new(pieces, Some(0), false).unwrap()
    }

    #[test]
    fn every_segmentation_is_drawn_and_the_best_most_often() {
        let m = model();
        let mut seen = rustc_hash::FxHashMap::default();
        for _ in 0..4000 {
            let spans = m.sample_spans("abab", 0.5, None).unwrap();
            *seen.entry(spans).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 4);
        let best = vec![(0, 2, Some(3)), (2, 4, Some(3))];
        assert!(seen.values().all(|&n| n <= seen[&best]));
    }

    #[test]
    fn nbest_draws_only_from_the_n_best() {
        let m = model();
        let mut seen = rustc_hash::FxHashSet::default();
        for _ in 0..500 {
            seen.insert(m.sample_spans("abab", 0.5, Some(3)).unwrap());
        }
        // "a b a b" (-4) is the worst of the four paths.
        assert_eq!(seen.len(), 3);
        assert!(!seen.contains(&vec![
            (0, 1, Some(1)),
            (1, 2, Some(2)),
            (2, 3, Some(1)),
            (3, 4, Some(2))
        ]));
    }

    #[test]
    fn unknown_characters_fuse() {
        let spans = model().sample_spans("xyab", 0.5, None).unwrap();
        assert_eq!(spans[0], (0, 2, None));
    }
}
