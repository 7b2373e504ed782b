//! Bit masks of 64 class-flag bytes (one [`char_class`](super::char_class) flag byte per
//! byte of a block), for [`super::block_chars`]: bit `j` of a mask is set when flag byte `j`
//! passes the mask's test, `flags & and == equal`.
//!
//! On x86-64 the masks come from SSE2 compares (part of the base instruction set), the
//! 64 bytes loaded once for all tests; elsewhere from a byte loop. Both give the same masks
//! (tested).
//!
//! ```
//! use tokensmith_core::pre_tokenizers::flag_masks::{masks, Test};
//! let mut flags = [0u8; 64];
//! flags[3] = 0b101;
//! flags[9] = 0b100;
//! let [low, both] = masks(&flags, [Test { and: 1, equal: 1 }, Test { and: 5, equal: 5 }]);
//! assert_eq!(low, 1 << 3);
//! assert_eq!(both, 1 << 3);
//! ```

use crate::vectors::Vectors;

/// One test on a flag byte: passed when `flags & and == equal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Test {
    pub and: u8,
    pub equal: u8,
}

/// The mask of each test in `tests` over the 64 `flags`.
#[inline(always)]
pub fn masks<const N: usize>(flags: &[u8; 64], tests: [Test; N]) -> [u64; N] {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::masks(flags, tests)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        masks_scalar(flags, tests)
    }
}

/// [`masks`] with the vector instructions `vectors` allows (the same masks).
#[inline(always)]
pub fn masks_with<const N: usize>(
    flags: &[u8; 64],
    tests: [Test; N],
    vectors: Vectors,
) -> [u64; N] {
    #[cfg(target_arch = "x86_64")]
    if vectors.avx2() {
        // SAFETY: `vectors` allows AVX2 only where the CPU has it.
        return unsafe { avx2::masks(flags, tests) };
    }
    let _ = vectors;
    masks(flags, tests)
}

/// [`masks`] by a byte loop: the reference for the vector code, and its fallback.
pub fn masks_scalar<const N: usize>(flags: &[u8; 64], tests: [Test; N]) -> [u64; N] {
    tests.map(|t| {
        let bits = flags.iter().rev().map(|&f| u64::from(f & t.and == t.equal));
        bits.fold(0, |m, bit| m << 1 | bit)
    })
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::Test;
    use std::arch::x86_64::*;

    #[inline(always)]
    pub fn masks<const N: usize>(flags: &[u8; 64], tests: [Test; N]) -> [u64; N] {
        // SAFETY: SSE2 is part of every x86-64 CPU, and each load reads 16 of the 64 bytes
        // (unaligned loads are allowed).
        let lanes: [__m128i; 4] =
            std::array::from_fn(|k| unsafe { _mm_loadu_si128(flags.as_ptr().add(16 * k).cast()) });
        tests.map(|t| {
            let mut m = 0u64;
            for (k, &v) in lanes.iter().enumerate() {
                // SAFETY: SSE2 is part of every x86-64 CPU.
                let bits = unsafe {
                    let masked = _mm_and_si128(v, _mm_set1_epi8(t.and as i8));
                    _mm_movemask_epi8(_mm_cmpeq_epi8(masked, _mm_set1_epi8(t.equal as i8)))
                };
                m |= u64::from(bits as u32 as u16) << (16 * k);
            }
            m
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Test;
    use std::arch::x86_64::*;

    /// [`super::sse2::masks`] 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn masks<const N: usize>(flags: &[u8; 64], tests: [Test; N]) -> [u64; N] {
        // SAFETY: each load reads 32 of the 64 bytes (unaligned loads are allowed).
        let lanes = unsafe {
            let p = flags.as_ptr();
            [
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            ]
        };
        let mut out = [0u64; N];
        for (m, t) in out.iter_mut().zip(tests) {
            for (k, &v) in lanes.iter().enumerate() {
                let masked = _mm256_and_si256(v, _mm256_set1_epi8(t.and as i8));
                let equal = _mm256_cmpeq_epi8(masked, _mm256_set1_epi8(t.equal as i8));
                *m |= u64::from(_mm256_movemask_epi8(equal) as u32) << (32 * k);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_masks_equal_the_byte_loop() {
        let tests = [
            Test { and: 1, equal: 0 },
            Test { and: 2, equal: 2 },
            Test {
                and: 0x30,
                equal: 0x10,
            },
            Test {
                and: 0x30,
                equal: 0x30,
            },
            Test {
                and: 0xFF,
                equal: 0x80,
            },
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..200 {
            let mut flags = [0u8; 64];
            for f in flags.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Few distinct values in early rounds, so that every test passes somewhere.
                *f = if round < 100 {
                    ((state % 4) as u8 * 0x10) | ((state >> 8) as u8 & 3)
                } else {
                    state as u8
                };
            }
            let fast = masks(&flags, tests);
            assert_eq!(fast, masks_scalar(&flags, tests));
            assert_eq!(masks_with(&flags, tests, Vectors::detect()), fast);
            for (j, &f) in flags.iter().enumerate() {
                assert_eq!(fast[1] >> j & 1 == 1, f & 2 == 2, "byte {j}");
            }
        }
    }
}
