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
//! Consecutive unknown nodes are fused, as on the best path. Without an unknown id the
//! lattice has no unknown node, as in HF's, so a word fails only when some character is
//! covered by no piece at all. (HF itself then fails every word, even one its pieces spell,
//! and panics on one they do not; the best path fails only where an unknown node would win.)
//! Draws come from [`crate::hf::draw`], so results vary from call to call and are not
//! seedable, as in HF.

use super::HfUnigram;
use crate::hf::draw::pick;
use crate::log_space::log_sum;

/// One lattice node: a piece (or an unknown character) over bytes `start..end`.
#[derive(Clone, Copy)]
struct Node {
    start: usize,
    id: Option<u32>,
    score: f64,
}

impl HfUnigram {
    /// A sampled segmentation of `text` as byte spans with their piece's id (`None` for fused
    /// unknown nodes), or `None` when a character is covered by no piece and the model has no
    /// unknown id.
    pub(super) fn sample_spans(
        &self,
        text: &str,
        theta: f64,
        nbest: Option<usize>,
    ) -> Option<Vec<(usize, usize, Option<u32>)>> {
        let ends = self.lattice(text);
        // Without an unknown id, a position no node reaches cuts every path.
        if (1..=text.len()).any(|e| text.is_char_boundary(e) && ends[e].is_empty()) {
            return None;
        }
        let path = match nbest {
            Some(n) if n > 0 => nbest_path(&ends, text.len(), n, theta),
            _ => sampled_path(&ends, text.len(), theta),
        };
        Some(self.fused(path))
    }

    /// The nodes ending at each byte position (unknown nodes only with an unknown id).
    fn lattice(&self, text: &str) -> Vec<Vec<Node>> {
        let mut ends: Vec<Vec<Node>> = vec![Vec::new(); text.len() + 1];
        self.for_each_node(text, |start, end, id, score| {
            if id.is_some() || self.unk_id.is_some() {
                ends[end].push(Node { start, id, score });
            }
        });
        ends
    }
}

/// Forward filtering, backward sampling over the whole lattice (HF's `Lattice::sample`).
fn sampled_path(ends: &[Vec<Node>], len: usize, theta: f64) -> Vec<(usize, usize, Option<u32>)> {
    let mut forward = vec![f64::NEG_INFINITY; len + 1];
    forward[0] = 0.0;
    for end in 1..=len {
        let terms = ends[end]
            .iter()
            .map(|n| theta * (n.score + forward[n.start]));
        if let Some(s) = log_sum(terms) {
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

    /// Without an unknown id, "b" has no piece of its own but "ab" spells it: every draw
    /// succeeds (it failed before); "xa" has a character no piece covers, and fails.
    #[test]
    fn without_unk_id_only_an_uncovered_character_fails() {
        let pieces = [("a", -1.0), ("ab", -1.5), ("ba", -2.0)];
        let pieces = pieces.iter().map(|&(p, s)| (p.to_string(), s)).collect();
        let m = HfUnigram::new(pieces, None, false).unwrap();
        for nbest in [None, Some(2)] {
            for _ in 0..50 {
                let spans = m.sample_spans("aba", 0.5, nbest).unwrap();
                assert!(spans.iter().all(|s| s.2.is_some()));
                assert_eq!(spans.last().map(|s| s.1), Some(3));
            }
            assert!(m.sample_spans("xa", 0.5, nbest).is_none());
            assert!(m.sample_spans("abb", 0.5, nbest).is_none());
        }
    }
}
