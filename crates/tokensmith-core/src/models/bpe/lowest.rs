//! The lowest pair rank of a short piece and every position where it occurs, for the array
//! scan of `merge.rs`.
//!
//! One pass finds the lowest rank and a second marks where it occurs, so that all the pairs
//! of that rank can be merged left to right without scanning again between them. On x86-64
//! both passes take four ranks at a time in SSE2 registers (part of every x86-64 CPU, so no
//! feature check is needed); elsewhere a scalar loop gives the same answer.

/// How many pair ranks the scan holds at most.
pub const SLOTS: usize = 48;
/// No pair: above every rank.
pub const NONE: i32 = i32::MAX;

/// The lowest of the first `last` entries of `pair` (whose entries from `last` on are
/// [`NONE`]) and a mask with bit `i` set where `pair[i]` equals it (0 when it is [`NONE`]).
#[inline(always)]
pub fn lowest(pair: &[i32; SLOTS], last: usize) -> (i32, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        lowest_sse2(pair, last)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        lowest_scalar(pair, last)
    }
}

/// [`lowest`] one rank at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn lowest_scalar(pair: &[i32; SLOTS], last: usize) -> (i32, u64) {
    let ranks = &pair[..last.min(SLOTS)];
    let best = ranks.iter().copied().min().unwrap_or(NONE);
    if best == NONE {
        return (NONE, 0);
    }
    let mask = ranks
        .iter()
        .enumerate()
        .fold(0u64, |mask, (i, &r)| mask | u64::from(r == best) << i);
    (best, mask)
}

/// [`lowest`] four ranks at a time. The entries up to the next multiple of four after `last`
/// are read too: they are [`NONE`], which is never the lowest of a piece with a pair.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lowest_sse2(pair: &[i32; SLOTS], last: usize) -> (i32, u64) {
    use std::arch::x86_64::*;
    const LANES: usize = 4;
    let groups = &pair[..last.div_ceil(LANES).min(SLOTS / LANES) * LANES];
    // SAFETY: SSE2 is part of x86-64; every load reads four `i32` of `groups`, unaligned.
    unsafe {
        let min = |a: __m128i, b: __m128i| {
            let b_lower = _mm_cmpgt_epi32(a, b);
            _mm_or_si128(_mm_and_si128(b_lower, b), _mm_andnot_si128(b_lower, a))
        };
        let load = |g: &[i32]| _mm_loadu_si128(g.as_ptr().cast());
        let mut low = _mm_set1_epi32(NONE);
        for g in groups.chunks_exact(LANES) {
            low = min(low, load(g));
        }
        low = min(low, _mm_shuffle_epi32::<0b01_00_11_10>(low));
        low = min(low, _mm_shuffle_epi32::<0b10_11_00_01>(low));
        let best = _mm_cvtsi128_si32(low);
        if best == NONE {
            return (NONE, 0);
        }
        let mut mask = 0u64;
        for (k, g) in groups.chunks_exact(LANES).enumerate() {
            let equal = _mm_castsi128_ps(_mm_cmpeq_epi32(load(g), low));
            mask |= (_mm_movemask_ps(equal) as u64) << (k * LANES);
        }
        (best, mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lowest rank and its positions, written the plain way.
    fn expected(pair: &[i32; SLOTS], last: usize) -> (i32, u64) {
        let best = pair[..last].iter().copied().min().unwrap_or(NONE);
        if best == NONE {
            return (NONE, 0);
        }
        let positions = (0..last).filter(|&i| pair[i] == best);
        (best, positions.fold(0, |m, i| m | 1 << i))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ranks from a few values (so that the lowest repeats) or dead entries, with
        /// [`NONE`] from `last` on, as the scan keeps them.
        #[test]
        fn finds_the_lowest_and_all_its_positions(
            ranks in prop::collection::vec(prop::sample::select(vec![0, 1, 5, 2_000_000, NONE]), 0..SLOTS),
        ) {
            let mut pair = [NONE; SLOTS];
            pair[..ranks.len()].copy_from_slice(&ranks);
            let last = ranks.len();
            prop_assert_eq!(lowest(&pair, last), expected(&pair, last));
            prop_assert_eq!(lowest_scalar(&pair, last), expected(&pair, last));
        }
    }

    #[test]
    fn a_full_array_and_an_empty_one() {
        let mut pair = [NONE; SLOTS];
        assert_eq!(lowest(&pair, 0), (NONE, 0));
        assert_eq!(lowest(&pair, SLOTS - 1), (NONE, 0));
        for (i, p) in pair.iter_mut().enumerate() {
            *p = 1000 - (i as i32 % 7);
        }
        let sixes = (0..SLOTS - 1)
            .filter(|i| i % 7 == 6)
            .fold(0u64, |m, i| m | 1 << i);
        assert_eq!(lowest(&pair, SLOTS - 1), (994, sixes));
        pair[SLOTS - 1] = 0;
        assert_eq!(lowest(&pair, SLOTS), (0, 1 << (SLOTS - 1)));
    }
}
