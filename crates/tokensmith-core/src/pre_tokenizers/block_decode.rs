//! The code points of a block's non-ASCII chars, for the class lookups of
//! [`super::block_chars`]: one char at a time ([`decode`]), or the 16-bit code points of the
//! 2- and 3-byte chars at all 64 positions of a block at once ([`short_code_points`]).
//!
//! Decoding the chars one at a time, with a branch on each one's length, took most of the
//! instructions of the loop over a block's chars on multilingual text; with the code points
//! computed in four vectors, the loop only looks up each class.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::block_decode::code_point;
//! assert_eq!(code_point(u32::from_le_bytes([0xC3, 0xA9, 0, 0])), 'é' as u32);
//! assert_eq!(code_point(u32::from_le_bytes([0xE4, 0xB8, 0xAD, b'x'])), '中' as u32);
//! ```

use crate::vectors::Vectors;

/// The code point of the char whose first byte is `chunk[p]` (a UTF-8 lead byte), without
/// validation: any bytes give a value below 2^21.
#[inline(always)]
pub fn decode(chunk: &[u8; 68], p: usize) -> u32 {
    code_point(u32::from_le_bytes(
        chunk[p..p + 4].try_into().expect("4 bytes"),
    ))
}

/// The code point of the non-ASCII char whose UTF-8 bytes start `w` (little-endian: the lead
/// byte lowest); the bytes after the char are ignored.
#[inline(always)]
pub fn code_point(w: u32) -> u32 {
    let (b0, b1, b2, b3) = (w & 0xFF, w >> 8 & 0x3F, w >> 16 & 0x3F, w >> 24 & 0x3F);
    if b0 < 0xE0 {
        (b0 & 0x1F) << 6 | b1
    } else if b0 < 0xF0 {
        (b0 & 0x0F) << 12 | b1 << 6 | b2
    } else {
        (b0 & 0x07) << 18 | b1 << 12 | b2 << 6 | b3
    }
}

/// For each position `p` of `window[..64]`: what [`code_point`] gives for a char of two or
/// three bytes starting there (meaningless where none does), and, as a bit, whether
/// `window[p]` is the first byte of a char of four bytes (at least `0xF0`), whose code point
/// does not fit in 16 bits. `window[64..]` holds the bytes after the block that a char
/// starting in it may reach. `None` where `vectors` does not allow AVX2.
#[inline(always)]
pub fn short_code_points(window: &[u8; 68], vectors: Vectors) -> Option<([u16; 64], u64)> {
    #[cfg(target_arch = "x86_64")]
    if vectors.avx2() {
        // SAFETY: `vectors` allows AVX2 only where the CPU has it.
        return Some(unsafe { avx2::short_code_points(window) });
    }
    let _ = (window, vectors);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::short_code_points`] in 16-bit lanes, 16 positions a vector.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn short_code_points(window: &[u8; 68]) -> ([u16; 64], u64) {
        let mut out = [0u16; 64];
        let p = window.as_ptr();
        let low6 = _mm256_set1_epi16(0x3F);
        let low5 = _mm256_set1_epi16(0x1F);
        let three_above = _mm256_set1_epi16(0xDF);
        for k in (0..64).step_by(16) {
            // SAFETY: each load reads 16 bytes from `k + 2` at most, so up to byte 66 of 68.
            let (b0, b1, b2) = unsafe {
                (
                    _mm256_cvtepu8_epi16(_mm_loadu_si128(p.add(k).cast())),
                    _mm256_cvtepu8_epi16(_mm_loadu_si128(p.add(k + 1).cast())),
                    _mm256_cvtepu8_epi16(_mm_loadu_si128(p.add(k + 2).cast())),
                )
            };
            let (c1, c2) = (_mm256_and_si256(b1, low6), _mm256_and_si256(b2, low6));
            let two = _mm256_or_si256(_mm256_slli_epi16(_mm256_and_si256(b0, low5), 6), c1);
            // A 16-bit shift by 12 keeps the lead byte's low four bits, as `code_point` does.
            let high = _mm256_or_si256(_mm256_slli_epi16(b0, 12), _mm256_slli_epi16(c1, 6));
            let three = _mm256_or_si256(high, c2);
            let is_three = _mm256_cmpgt_epi16(b0, three_above);
            let units = _mm256_blendv_epi8(two, three, is_three);
            // SAFETY: 16 units from `k`, within the 64 of `out`.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(k).cast(), units) };
        }
        let mut four = 0u64;
        for k in [0, 32] {
            // SAFETY: 32 bytes from `k`, within the 68 of `window`.
            let v = unsafe { _mm256_loadu_si256(p.add(k).cast()) };
            let below_f0 = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0xEFu8 as i8)), v);
            four |= u64::from(!_mm256_movemask_epi8(below_f0) as u32) << k;
        }
        (out, four)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn code_points_are_the_chars_of_str() {
        for c in [
            'é',
            'ß',
            'ж',
            'ا',
            '中',
            '\u{FFFD}',
            '\u{0800}',
            '\u{FFFF}',
            '🙂',
            '\u{10FFFF}',
        ] {
            let mut bytes = [0u8; 4];
            c.encode_utf8(&mut bytes);
            assert_eq!(code_point(u32::from_le_bytes(bytes)), c as u32, "{c:?}");
        }
    }

    /// Checks [`short_code_points`] on `w` against [`decode`] wherever a 2- or 3-byte lead
    /// byte stands, and its 4-byte mask against the bytes of at least `0xF0`; returns how
    /// many 2- and 3-byte chars it checked (none where the vector path does not run).
    fn check(w: &[u8; 68]) -> [usize; 2] {
        let vectors = Vectors::detect();
        let Some((short, four)) = short_code_points(w, vectors) else {
            assert!(!vectors.avx2(), "AVX2 is allowed, so the vector path runs");
            return [0, 0];
        };
        let mut checked = [0; 2];
        for p in 0..64 {
            assert_eq!(four >> p & 1 == 1, w[p] >= 0xF0, "byte {p} of {w:?}");
            if (0xC0..0xF0).contains(&w[p]) {
                assert_eq!(u32::from(short[p]), decode(w, p), "byte {p} of {w:?}");
                checked[usize::from(w[p] >= 0xE0)] += 1;
            }
        }
        checked
    }

    #[test]
    fn vector_code_points_equal_one_char_at_a_time_on_text() {
        let text =
            "Съешь же ещё этих мягких французских булок, 中文字符 and ελληνικά 🙂 done. ".repeat(3);
        let mut checked = [0; 2];
        for start in 0..text.len() - 68 {
            let [two, three] = check(text.as_bytes()[start..start + 68].try_into().unwrap());
            checked = [checked[0] + two, checked[1] + three];
        }
        if Vectors::detect().avx2() {
            assert!(checked[0] > 1000 && checked[1] > 100, "{checked:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// On high bytes only: every lead byte, in every lane, with any bytes after it.
        #[test]
        fn vector_code_points_equal_one_char_at_a_time(
            bytes in prop::collection::vec(0x80u8..=0xFF, 68)
        ) {
            check(&bytes.try_into().unwrap());
        }
    }
}
