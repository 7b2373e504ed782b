//! Random draws for HF's stochastic models (BPE-dropout, Unigram sampling): one xorshift64*
//! generator per thread, seeded from std's per-process random hash keys, so draws vary from
//! run to run and are not seedable, as in HF.
//!
//! ```
//! use tokensmith_core::hf::draw::pick;
//! // A zero weight is never drawn.
//! assert_eq!(pick(&[0.0, 2.0, 0.0]), 1);
//! ```

use std::cell::Cell;

/// A uniform draw in `[0, 1)` (24 bits) from this thread's generator.
pub fn uniform() -> f32 {
    thread_local! {
        static STATE: Cell<u64> = Cell::new(seed());
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    })
}

/// A non-zero seed from std's per-process, per-thread random hash keys.
fn seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0u8) | 1
}

/// An index drawn with probability proportional to `weights`; 0 when they sum to nothing.
pub fn pick(weights: &[f64]) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_draws_cover_the_unit_interval() {
        let draws: Vec<f32> = (0..10_000).map(|_| uniform()).collect();
        assert!(draws.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = draws.iter().sum::<f32>() / draws.len() as f32;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }

    #[test]
    fn picks_follow_the_weights() {
        let mut seen = [0u32; 3];
        for _ in 0..4000 {
            seen[pick(&[1.0, 0.0, 3.0])] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[2] > 2 * seen[0], "{seen:?}");
        assert_eq!(pick(&[0.0, 0.0]), 0);
    }
}
