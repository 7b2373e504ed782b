//! UTF-8 from fixed-width code units: the Latin-1, UCS-2 and UCS-4 arrays in which CPython
//! stores a string that is not all ASCII.
//!
//! CPython's own converter takes a branch per character on the character's length. On text
//! whose lengths vary from one character to the next (random bytes decoded as UTF-8 mix ASCII,
//! two-byte letters and three-byte U+FFFD), those branches are mispredicted about half the
//! time: 5 ns a character on the benchmark machine. Here each character's length is computed,
//! not branched on, its bytes are built in one 32-bit word and written whole, and runs of sixteen
//! ASCII characters go through at once: 2.1-2.3 ns a character on the same text. Where the CPU
//! has AVX2, eight characters are converted at once in vector lanes: 0.57 ns.

use crate::vectors::Vectors;

/// Appends the UTF-8 of `units`, each a code point (Latin-1, UCS-2 or UCS-4), to `out`.
/// Returns false, with `out` unchanged, when a unit is a
/// surrogate (U+D800 to U+DFFF, which UTF-8 cannot hold) or above U+10FFFF.
///
/// ```
/// use tokensmith_core::code_units::push_utf8;
/// let mut out = Vec::new();
/// assert!(push_utf8(&[0x68u32, 0xe9, 0x20ac, 0x1f600], &mut out));
/// assert_eq!(out, "hé€😀".as_bytes());
/// assert!(!push_utf8(&[0x61u16, 0xd800], &mut out));
/// assert_eq!(out, "hé€😀".as_bytes());
/// ```
pub fn push_utf8<U: CodeUnit>(units: &[U], out: &mut Vec<u8>) -> bool {
    let Some(bytes) = utf8_len(units) else {
        return false;
    };
    // Exactly what is needed, and [`SLACK`] bytes for the last whole-word or whole-vector
    // write: the allocator can then give memory that is in use already rather than new
    // pages, each a page fault when first written. Reserving four bytes a character, the
    // first call on one million characters of random bytes took 785 page faults more than
    // with CPython's copy, which is made to measure.
    if out.is_empty() && out.capacity() < bytes + SLACK {
        // An empty buffer too small is replaced, not grown: growing copies its whole old
        // capacity (the allocator does not know how much of it was in use), and every page
        // copied to is a page fault.
        *out = Vec::with_capacity(bytes + SLACK);
    } else {
        out.reserve_exact(bytes + SLACK);
    }
    let start = out.len();
    // SAFETY: `write_utf8` writes the `bytes` bytes of the units from the end of `out`,
    // within the `bytes + SLACK` reserved above, and returns `bytes`; only those are set as
    // the length.
    unsafe {
        let written = write_utf8(units, out.as_mut_ptr().add(start), Vectors::detect());
        debug_assert_eq!(written, bytes);
        out.set_len(start + written);
    }
    true
}

/// Bytes past the end of the UTF-8 that [`write_utf8`] may write (and leave as garbage): a
/// whole word after the last character, or a whole vector of 16 after at least four.
const SLACK: usize = 16;

/// Writes the UTF-8 of `units`, all of them Unicode scalar values, at `to`, and returns its
/// length.
///
/// # Safety
/// `to` has room for the UTF-8 and [`SLACK`] bytes more; every unit is a scalar value;
/// `vectors` allows AVX2 only where the CPU has it.
unsafe fn write_utf8<U: CodeUnit>(units: &[U], to: *mut u8, vectors: Vectors) -> usize {
    #[cfg(target_arch = "x86_64")]
    if vectors.avx2() {
        // SAFETY: the caller's promises.
        return unsafe { avx2::write_utf8(units, to) };
    }
    let _ = vectors;
    // SAFETY: the caller's promises.
    unsafe { write_scalar(units, to) }
}

/// [`write_utf8`] one character at a time, with runs of [`GROUP`] ASCII characters at once.
///
/// # Safety
/// As [`write_utf8`]'s.
unsafe fn write_scalar<U: CodeUnit>(units: &[U], base: *mut u8) -> usize {
    let mut at = 0usize;
    let mut groups = units.chunks_exact(GROUP);
    // SAFETY: each write lies within the UTF-8 and the slack after it (the caller's
    // promise): a group of ASCII writes its own bytes, a character at most four bytes from
    // where its UTF-8 starts.
    unsafe {
        for group in &mut groups {
            if group.iter().fold(0, |all, u| all | u.value()) < 0x80 {
                // All ASCII: one byte a unit, which the compiler packs with vector moves.
                for (k, u) in group.iter().enumerate() {
                    *base.add(at + k) = u.value() as u8;
                }
                at += GROUP;
                continue;
            }
            for unit in group {
                at += write_one(base.add(at), unit.value());
            }
        }
        for unit in groups.remainder() {
            at += write_one(base.add(at), unit.value());
        }
    }
    at
}

/// The length of the UTF-8 of `units`, or `None` when a unit is not a Unicode scalar value
/// (a surrogate, or above U+10FFFF).
///
/// One pass without a branch, which the compiler vectorizes: the validity test costs less
/// here than in the conversion (0.4 ns a character there).
///
/// ```
/// use tokensmith_core::code_units::utf8_len;
/// assert_eq!(utf8_len(&[0x68u32, 0xe9, 0x20ac, 0x1f600]), Some(10));
/// assert_eq!(utf8_len(&[0x61u16, 0xdc00]), None);
/// ```
pub fn utf8_len<U: CodeUnit>(units: &[U]) -> Option<usize> {
    // Two reductions, each of which the compiler vectorizes (one folding both did not), the
    // lengths summed in 32 bits over blocks too short to overflow them.
    let valid = units.iter().fold(true, |ok, u| ok & is_scalar(u.value()));
    let bytes = units
        .chunks(1 << 20)
        .map(|block| {
            block
                .iter()
                .map(|u| utf8_width(u.value()) as u32)
                .sum::<u32>() as usize
        })
        .sum();
    valid.then_some(bytes)
}

/// The number of UTF-8 bytes of code point `c`.
#[inline(always)]
fn utf8_width(c: u32) -> usize {
    1 + (c >= 0x80) as usize + (c >= 0x800) as usize + (c >= 0x10000) as usize
}

/// How many units are tested together for a run of ASCII.
const GROUP: usize = 16;

/// Writes the UTF-8 of the scalar value `c` at `to` as one four-byte word, and returns its
/// length: the bytes after it are garbage that the next write covers.
///
/// # Safety
/// `to` has room for four bytes.
#[inline(always)]
unsafe fn write_one(to: *mut u8, c: u32) -> usize {
    let (word, len) = encoded(c);
    // SAFETY: the caller's promise. The word's first byte in memory is its low byte on any
    // machine (`to_le` swaps the bytes on a big-endian one).
    unsafe { to.cast::<u32>().write_unaligned(word.to_le()) };
    len
}

/// Whether `c` is a Unicode scalar value: not a surrogate, and not above U+10FFFF.
#[inline(always)]
fn is_scalar(c: u32) -> bool {
    (c.wrapping_sub(0xd800) >= 0x800) & (c <= 0x10ffff)
}

/// The UTF-8 of the scalar value `c` in the low bytes of a little-endian word, and its length
/// in bytes, without a branch.
#[inline(always)]
fn encoded(c: u32) -> (u32, usize) {
    let len = utf8_width(c);
    // The four six-bit groups, the highest first in memory, each marked as a continuation
    // byte; the word is then shifted so that its last `len` bytes come first.
    let spread = ((c >> 18) & 0x3f)
        | ((c >> 12) & 0x3f) << 8
        | ((c >> 6) & 0x3f) << 16
        | (c & 0x3f) << 24
        | 0x8080_8080;
    let shifted = spread >> (8 * (4 - len) as u32);
    // The lead byte of a sequence of `len` bytes has its `len` high bits set, which
    // `0xf00 >> len` gives in bits 4 to 7 for 2 to 4.
    let several = shifted | ((0xf00 >> len) & 0xf0);
    // One byte is `c` itself, chosen by a mask: as a branch, it was mispredicted on text
    // that mixes ASCII with other characters, and the whole took 5 ns a character, not 2.
    let one = ((len == 1) as u32).wrapping_neg();
    let word = (c & one) | (several & !one);
    (word, len)
}

/// A fixed-width code unit of a CPython string: `u8` (Latin-1), `u16` (UCS-2) or `u32`
/// (UCS-4).
pub trait CodeUnit: Copy {
    /// The unit's code point.
    fn value(self) -> u32;
}

impl CodeUnit for u8 {
    #[inline(always)]
    fn value(self) -> u32 {
        self as u32
    }
}

impl CodeUnit for u16 {
    #[inline(always)]
    fn value(self) -> u32 {
        self as u32
    }
}

impl CodeUnit for u32 {
    #[inline(always)]
    fn value(self) -> u32 {
        self
    }
}

/// The conversion eight characters a step: each character's one to three UTF-8 bytes are
/// built in its own 32-bit lane, and a byte shuffle chosen by the lanes' lengths packs each
/// half's four lanes together; sixteen ASCII characters go at once. On one million UCS-2
/// characters mixed as random bytes decoded as UTF-8 are (half ASCII, most others U+FFFD, a
/// few two-byte letters), `push_utf8` took 0.57 ns a character with this, 2.14 with the
/// scalar loop (length pass included in both); encoding one-million-character strings of
/// random bytes with `encode_ordinary` took 7.0% less CPU time on cl100k, 4.3% on o200k.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{write_one, CodeUnit};
    use std::arch::x86_64::*;

    /// For each pattern of lengths of four characters (bit `k` of the low nibble: the `k`-th
    /// has two bytes or more; of the high nibble: three), the shuffle that packs their bytes
    /// from four 32-bit lanes (the lead byte lowest), zeros after them.
    static SHUFFLES: [[u8; 16]; 256] = shuffles();
    /// The bytes the four characters of a pattern take.
    static LENGTHS: [u8; 256] = lengths();

    /// The length of the `k`-th character of `pattern`.
    const fn length(pattern: usize, k: usize) -> usize {
        1 + (pattern >> k & 1) + (pattern >> (k + 4) & 1)
    }

    const fn shuffles() -> [[u8; 16]; 256] {
        let mut table = [[0x80u8; 16]; 256];
        let mut pattern = 0;
        while pattern < 256 {
            let (mut k, mut at) = (0, 0);
            while k < 4 {
                let mut j = 0;
                while j < length(pattern, k) {
                    table[pattern][at] = (4 * k + j) as u8;
                    at += 1;
                    j += 1;
                }
                k += 1;
            }
            pattern += 1;
        }
        table
    }

    const fn lengths() -> [u8; 256] {
        let mut table = [0u8; 256];
        let mut pattern = 0;
        while pattern < 256 {
            let mut k = 0;
            while k < 4 {
                table[pattern] += length(pattern, k) as u8;
                k += 1;
            }
            pattern += 1;
        }
        table
    }

    /// [`super::write_utf8`] with AVX2.
    ///
    /// # Safety
    /// As [`super::write_utf8`]'s, and the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn write_utf8<U: CodeUnit>(units: &[U], to: *mut u8) -> usize {
        let (n, p) = (units.len(), units.as_ptr());
        let (mut i, mut at) = (0, 0);
        // SAFETY: reads stay within `units` (`i + 16` or `i + 8` at most `n`); writes within
        // the UTF-8 and its slack (see `eight`, `ascii_sixteen`).
        unsafe {
            while i + 16 <= n {
                if ascii_sixteen(p.add(i), to.add(at)) {
                    at += 16;
                } else {
                    at += eight(p.add(i), to.add(at));
                    at += eight(p.add(i + 8), to.add(at));
                }
                i += 16;
            }
            while i + 8 <= n {
                at += eight(p.add(i), to.add(at));
                i += 8;
            }
            for u in &units[i..] {
                at += write_one(to.add(at), u.value());
            }
        }
        at
    }

    /// Writes the 16 characters at `p` to `to` and returns true when all are ASCII; else
    /// writes nothing.
    ///
    /// # Safety
    /// `p` has 16 units; `to` room for 16 bytes; AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn ascii_sixteen<U: CodeUnit>(p: *const U, to: *mut u8) -> bool {
        // SAFETY: the caller's promises; the loads read exactly the 16 units.
        unsafe {
            let bytes = match size_of::<U>() {
                1 => {
                    let v = _mm_loadu_si128(p.cast());
                    if _mm_movemask_epi8(v) != 0 {
                        return false;
                    }
                    v
                }
                2 => {
                    let v = _mm256_loadu_si256(p.cast());
                    if _mm256_testz_si256(v, _mm256_set1_epi16(!0x7F)) == 0 {
                        return false;
                    }
                    // The low bytes of each half's eight units, then the two halves.
                    let packed = _mm256_packus_epi16(v, v);
                    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(packed))
                }
                _ => return false,
            };
            _mm_storeu_si128(to.cast(), bytes);
        }
        true
    }

    /// Writes the UTF-8 of the eight characters at `p` to `to`, and returns its length.
    ///
    /// # Safety
    /// `p` has eight units, each a scalar value; `to` has room for their UTF-8 and
    /// [`super::SLACK`] bytes more (each half of four characters is written as 16 bytes,
    /// after at least four of its own); AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn eight<U: CodeUnit>(p: *const U, to: *mut u8) -> usize {
        // SAFETY: the caller's promises; each load reads exactly the eight units.
        unsafe {
            let v = match size_of::<U>() {
                1 => _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast())),
                2 => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                _ => _mm256_loadu_si256(p.cast()),
            };
            // A character of four bytes (only UCS-4 has them) goes the scalar way.
            if size_of::<U>() == 4 && _mm256_testz_si256(v, _mm256_set1_epi32(!0xFFFF)) == 0 {
                let mut at = 0;
                for k in 0..8 {
                    at += write_one(to.add(at), (*p.add(k)).value());
                }
                return at;
            }
            let set = _mm256_set1_epi32;
            let last = _mm256_or_si256(_mm256_and_si256(v, set(0x3F)), set(0x80));
            let above6 = _mm256_srli_epi32::<6>(v);
            let middle = _mm256_or_si256(_mm256_and_si256(above6, set(0x3F)), set(0x80));
            let lead2 = _mm256_or_si256(above6, set(0xC0));
            let lead3 = _mm256_or_si256(_mm256_srli_epi32::<12>(v), set(0xE0));
            let two = _mm256_or_si256(lead2, _mm256_slli_epi32::<8>(last));
            let three = _mm256_or_si256(
                _mm256_or_si256(lead3, _mm256_slli_epi32::<8>(middle)),
                _mm256_slli_epi32::<16>(last),
            );
            let is2 = _mm256_cmpgt_epi32(v, set(0x7F));
            let is3 = _mm256_cmpgt_epi32(v, set(0x7FF));
            let words = _mm256_blendv_epi8(_mm256_blendv_epi8(v, two, is2), three, is3);
            let m2 = _mm256_movemask_ps(_mm256_castsi256_ps(is2)) as usize;
            let m3 = _mm256_movemask_ps(_mm256_castsi256_ps(is3)) as usize;
            let low = (m2 & 15) | (m3 & 15) << 4;
            let high = (m2 >> 4) | (m3 >> 4) << 4;
            let shuffle = _mm256_loadu2_m128i(
                SHUFFLES[high].as_ptr().cast(),
                SHUFFLES[low].as_ptr().cast(),
            );
            let packed = _mm256_shuffle_epi8(words, shuffle);
            _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(packed));
            let first = LENGTHS[low] as usize;
            _mm_storeu_si128(to.add(first).cast(), _mm256_extracti128_si256::<1>(packed));
            first + LENGTHS[high] as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `push_utf8` appends; each path of [`write_utf8`] (the baseline one, and the
    /// vector one where the CPU has it) is checked to write the same.
    fn utf8_of<U: CodeUnit>(units: &[U]) -> Option<Vec<u8>> {
        let mut out = b"kept".to_vec();
        let ok = push_utf8(units, &mut out);
        assert!(out.starts_with(b"kept"), "what was there before is kept");
        if !ok {
            assert_eq!(out, b"kept", "a failed conversion leaves nothing behind");
            return None;
        }
        let converted = out[4..].to_vec();
        for vectors in [Vectors::BASELINE, Vectors::detect()] {
            assert_eq!(by(units, vectors), converted, "{vectors:?}");
        }
        Some(converted)
    }

    /// The UTF-8 of `units` (all scalar values) as one path of [`write_utf8`] writes it.
    fn by<U: CodeUnit>(units: &[U], vectors: Vectors) -> Vec<u8> {
        let bytes = utf8_len(units).expect("scalar values");
        let mut out = Vec::with_capacity(bytes + SLACK);
        // SAFETY: room for the UTF-8 and the slack; the units are scalar values; `vectors`
        // is the baseline or what the CPU has.
        unsafe {
            let written = write_utf8(units, out.as_mut_ptr(), vectors);
            assert_eq!(written, bytes);
            out.set_len(written);
        }
        out
    }

    /// What the standard library makes of the same code points, `None` when one is not a
    /// scalar value.
    fn reference(points: &[u32]) -> Option<Vec<u8>> {
        let text: Option<String> = points.iter().map(|&p| char::from_u32(p)).collect();
        text.map(String::into_bytes)
    }

    #[test]
    fn every_length_class_and_its_edges_match_the_standard_library() {
        let edges = [
            0, 0x41, 0x7f, 0x80, 0xff, 0x100, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x1f600,
            0x10ffff,
        ];
        for &a in &edges {
            for &b in &edges {
                for lead in 0..5 {
                    // From zero to four ASCII letters first, so the pair falls at every
                    // place in a group of four.
                    let mut points: Vec<u32> = (0..lead).map(|i| 0x61 + i).collect();
                    points.extend([a, b]);
                    assert_eq!(utf8_of(&points), reference(&points), "{points:x?}");
                }
            }
        }
    }

    #[test]
    fn surrogates_and_values_beyond_unicode_are_refused() {
        for bad in [0xd800u32, 0xdbff, 0xdc00, 0xdfff, 0x110000, u32::MAX] {
            assert_eq!(
                utf8_of(&[0x61, 0x62, 0x63, 0x64, 0x65, bad]),
                None,
                "{bad:x}"
            );
            assert_eq!(utf8_of(&[bad, 0x61, 0x62, 0x63]), None, "{bad:x}");
        }
        assert_eq!(utf8_of(&[0x61u16, 0xdfff, 0x62]), None);
        assert_eq!(utf8_of(&[0xd7ffu16, 0xe000]), reference(&[0xd7ff, 0xe000]));
    }

    #[test]
    fn latin1_and_ucs2_units_match_the_standard_library() {
        let latin1: Vec<u8> = (0..=255).collect();
        let points: Vec<u32> = latin1.iter().map(|&u| u as u32).collect();
        assert_eq!(utf8_of(&latin1), reference(&points));
        let ucs2: Vec<u16> = (0..=0xffffu32)
            .step_by(7)
            .filter(|p| !(0xd800..0xe000).contains(p))
            .map(|p| p as u16)
            .collect();
        let points: Vec<u32> = ucs2.iter().map(|&u| u as u32).collect();
        assert_eq!(utf8_of(&ucs2), reference(&points));
    }

    #[test]
    fn empty_input_adds_nothing() {
        assert_eq!(utf8_of::<u32>(&[]), Some(Vec::new()));
    }

    proptest! {
        #[test]
        fn any_code_points_match_the_standard_library(
            points in proptest::collection::vec(
                prop_oneof![0u32..0x80, 0x80u32..0x800, 0x800u32..0x10000, 0x10000u32..0x110010],
                0..64,
            )
        ) {
            prop_assert_eq!(utf8_of(&points), reference(&points));
            prop_assert_eq!(utf8_len(&points), reference(&points).map(|r| r.len()));
        }

        /// Long strings as CPython stores them (UCS-2, UCS-4, Latin-1), with runs of ASCII
        /// (which the vector path takes sixteen at a time) between other characters, at
        /// every alignment.
        #[test]
        fn long_strings_with_ascii_runs_match_the_standard_library(
            runs in proptest::collection::vec(
                (0usize..40, prop_oneof![0u32..0x80, 0x80u32..0x100, 0x100u32..0x800,
                    0x800u32..0xd800, 0xe000u32..0x10000]),
                0..24,
            )
        ) {
            let mut points = Vec::new();
            for (ascii, other) in runs {
                points.extend((0..ascii as u32).map(|k| 0x20 + k));
                points.push(other);
            }
            let expected = reference(&points);
            let ucs2: Vec<u16> = points.iter().map(|&p| p as u16).collect();
            prop_assert_eq!(utf8_of(&ucs2), expected.clone());
            prop_assert_eq!(utf8_of(&points), expected);
            // The same string with every character folded into Latin-1.
            let latin1: Vec<u8> = points.iter().map(|&p| p as u8).collect();
            let folded: Vec<u32> = latin1.iter().map(|&u| u32::from(u)).collect();
            prop_assert_eq!(utf8_of(&latin1), reference(&folded));
        }
    }
}
