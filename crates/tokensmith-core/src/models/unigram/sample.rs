//! Sampling segmentations for subword regularization (Kudo 2018).
//!
//! [`sample_path`] is forward filtering, backward sampling over the whole lattice, as
//! sentencepiece's `Lattice::Sample`: the forward pass gives, for every node, the log of the
//! summed weight `exp(inv_theta * score)` of all paths from BOS to it; walking back from EOS,
//! each step picks a node ending here with probability proportional to
//! `exp(alpha[node] + inv_theta * score(node) - alpha[current])`. A whole path is thus drawn with
//! probability `exp(inv_theta * score(path)) / Z`.
//!
//! The random numbers come from [`SplitMix64`], seeded by the caller, so results repeat for a
//! seed; they are not sentencepiece's (its `std::mt19937` draws are not reproduced).

use super::lattice::{Lattice, BOS, EOS};

/// A small, fast 64-bit generator (Steele, Lea and Flood 2014); good enough for sampling, and
/// the same seed gives the same numbers on every machine.
#[derive(Debug, Clone, Default)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (n > 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Uniform in `[0, 1)`, with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An index drawn with probability proportional to `weights[i]` (all finite, >= 0, not
    /// all zero; otherwise the last index with a positive weight, or 0).
    pub fn pick(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut u = self.next_f64() * total;
        for (i, &w) in weights.iter().enumerate() {
            if u < w {
                return i;
            }
            u -= w;
        }
        weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
    }
}

/// One segmentation drawn from all of them (node ids, left to right).
pub fn sample_path(lattice: &Lattice, inv_theta: f32, rng: &mut SplitMix64) -> Vec<u32> {
    if lattice.is_empty() {
        return Vec::new();
    }
    let alpha = lattice.forward(inv_theta);
    let mut path = Vec::new();
    let mut z = alpha[EOS as usize];
    let mut node = EOS;
    let mut weights = Vec::new();
    loop {
        let ends = &lattice.end[lattice.node(node).pos];
        weights.clear();
        weights.extend(ends.iter().map(|&l| {
            let l_node = lattice.node(l);
            f64::from(alpha[l as usize] + inv_theta * l_node.score - z).exp()
        }));
        node = ends[rng.pick(&weights)];
        if node == BOS {
            break;
        }
        z = alpha[node as usize];
        path.push(node);
    }
    path.reverse();
    path
}

/// One of `paths` (with scores), drawn with probability proportional to `exp(alpha * score)`,
/// as sentencepiece samples from an n-best list.
pub fn pick_scored<T>(paths: &[(T, f32)], alpha: f32, rng: &mut SplitMix64) -> usize {
    let logs: Vec<f64> = paths
        .iter()
        .map(|(_, s)| f64::from(alpha) * f64::from(*s))
        .collect();
    let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = logs.iter().map(|l| (l - max).exp()).collect();
    rng.pick(&weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_follows_the_weights() {
        let mut rng = SplitMix64::new(7);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[rng.pick(&[1.0, 0.0, 3.0])] += 1;
        }
        assert_eq!(counts[1], 0);
        let share = counts[2] as f64 / 30_000.0;
        assert!((share - 0.75).abs() < 0.01, "{share}");
    }
}
