//! Bit masks of the ASCII character classes of a 64-byte block of text, for the splitters'
//! block path ([`super::block_starts`]).
//!
//! Each block becomes one `u64` per class (bit `j` is byte `j` of the block): letters,
//! upper-case letters, digits, whitespace, line breaks, slashes, spaces, apostrophes and high
//! bytes (any byte of a non-ASCII char); [`Block::cont_at`] gives the continuation bytes (a
//! non-ASCII char's bytes after its first) where a block has high bytes. Bytes past the end
//! of the text count as high bytes, which sends every decision that looks at them to the
//! scalar splitter. [`super::block_chars`] adds the classes of the
//! non-ASCII chars.
//!
//! On x86-64 the masks come from SSE2 compares (part of the base instruction set), elsewhere
//! from a byte loop; both give the same masks (tested).
//!
//! ```
//! use tokensmith_core::pre_tokenizers::blocks::Block;
//! let m = Block::at(b"Hi 42!", 0);
//! assert_eq!(m.letter & 0b111111, 0b000011);
//! assert_eq!(m.digit & 0b111111, 0b011000);
//! assert_eq!(m.high >> 6, u64::MAX >> 6, "past the text");
//! ```

use crate::vectors::Vectors;

/// `bytes[start..start + 64]`, where `vectors` allows AVX2 and the text has those bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx2_chunk(vectors: Vectors, bytes: &[u8], start: usize) -> Option<&[u8; 64]> {
    if !vectors.avx2() {
        return None;
    }
    bytes.get(start..)?.first_chunk()
}

/// The class masks of one 64-byte block.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Block {
    pub letter: u64,
    pub upper: u64,
    /// Letters in both of o200k's case classes (`\p{Lm}`, `\p{Lo}`) and marks (`\p{M}`),
    /// set by [`super::block_chars`] for o200k only; no ASCII byte is one.
    pub both: u64,
    pub digit: u64,
    pub space: u64,
    pub newline: u64,
    pub slash: u64,
    /// `' '` (the only whitespace that the patterns' ` ?` prefixes take).
    pub blank: u64,
    /// `'`, which may start a contraction.
    pub quote: u64,
    pub high: u64,
}

impl Block {
    /// The ASCII bytes that are not letters, digits or whitespace (`[^\s\p{L}\p{N}]`).
    #[inline(always)]
    pub fn other(&self) -> u64 {
        !(self.letter | self.digit | self.space | self.high)
    }

    /// The masks of `bytes[start..start + 64]`, bytes past the end counting as high bytes.
    #[inline(always)]
    pub fn at(bytes: &[u8], start: usize) -> Self {
        if let Some(chunk) = bytes.get(start..start + 64) {
            let chunk: &[u8; 64] = chunk.try_into().expect("64 bytes");
            return Self::of(chunk);
        }
        let mut padded = [0x80u8; 64];
        if start < bytes.len() {
            let rest = &bytes[start..];
            padded[..rest.len()].copy_from_slice(rest);
        }
        Self::of(&padded)
    }

    /// [`at`](Self::at) with the vector instructions `vectors` allows (the same masks).
    #[inline(always)]
    pub fn at_with(bytes: &[u8], start: usize, vectors: Vectors) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(chunk) = avx2_chunk(vectors, bytes, start) {
            // SAFETY: `avx2_chunk` answers only where the CPU has AVX2.
            return unsafe { avx2::block(chunk) };
        }
        let _ = vectors;
        Self::at(bytes, start)
    }

    /// The continuation bytes (`0x80..=0xBF`, a non-ASCII char's bytes after its first) of
    /// `bytes[start..start + 64]`, bytes past the end counting as continuation bytes.
    #[inline(always)]
    pub fn cont_at(bytes: &[u8], start: usize) -> u64 {
        if let Some(chunk) = bytes.get(start..start + 64) {
            return cont_of(chunk.try_into().expect("64 bytes"));
        }
        let mut padded = [0x80u8; 64];
        if start < bytes.len() {
            let rest = &bytes[start..];
            padded[..rest.len()].copy_from_slice(rest);
        }
        cont_of(&padded)
    }

    /// [`cont_at`](Self::cont_at) with the vector instructions `vectors` allows.
    #[inline(always)]
    pub fn cont_at_with(bytes: &[u8], start: usize, vectors: Vectors) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let Some(chunk) = avx2_chunk(vectors, bytes, start) {
            // SAFETY: `avx2_chunk` answers only where the CPU has AVX2.
            return unsafe { avx2::cont(chunk) };
        }
        let _ = vectors;
        Self::cont_at(bytes, start)
    }

    #[inline(always)]
    fn of(chunk: &[u8; 64]) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            sse2::block(chunk)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Self::of_scalar(chunk)
        }
    }

    /// The masks by a byte loop: the reference for the vector code, and its fallback.
    pub fn of_scalar(chunk: &[u8; 64]) -> Self {
        let mut m = Self::default();
        for (j, &b) in chunk.iter().enumerate() {
            let bit = 1u64 << j;
            let set = |mask: &mut u64, on: bool| *mask |= if on { bit } else { 0 };
            set(&mut m.letter, b.is_ascii_alphabetic());
            set(&mut m.upper, b.is_ascii_uppercase());
            set(&mut m.digit, b.is_ascii_digit());
            set(&mut m.space, matches!(b, b'\t'..=b'\r' | b' '));
            set(&mut m.newline, b == b'\r' || b == b'\n');
            set(&mut m.slash, b == b'/');
            set(&mut m.blank, b == b' ');
            set(&mut m.quote, b == b'\'');
            set(&mut m.high, b >= 0x80);
        }
        m
    }
}

/// The continuation bytes of `chunk`, as a mask.
#[inline(always)]
fn cont_of(chunk: &[u8; 64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::cont(chunk)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cont_of_scalar(chunk)
    }
}

/// [`cont_of`] by a byte loop: the reference for the vector code, and its fallback.
pub fn cont_of_scalar(chunk: &[u8; 64]) -> u64 {
    let bits = chunk.iter().rev().map(|b| u64::from(b & 0xC0 == 0x80));
    bits.fold(0, |m, bit| m << 1 | bit)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::Block;
    use std::arch::x86_64::*;

    /// Bytes `b` with `lo <= b <= lo + span` (unsigned), as a byte mask.
    #[inline(always)]
    unsafe fn in_range(v: __m128i, lo: u8, span: u8) -> __m128i {
        let t = _mm_sub_epi8(v, _mm_set1_epi8(lo as i8));
        _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(span as i8)), t)
    }

    #[inline(always)]
    unsafe fn eq(v: __m128i, b: u8) -> __m128i {
        _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))
    }

    #[inline(always)]
    fn bits(m: __m128i) -> u64 {
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { _mm_movemask_epi8(m) as u32 as u64 }
    }

    /// Bytes `0x80..=0xBF` (below -64 as signed bytes).
    #[inline(always)]
    pub fn cont(chunk: &[u8; 64]) -> u64 {
        let mut m = 0;
        for k in 0..4 {
            // SAFETY: as in `block`.
            let lane = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().add(16 * k).cast());
                _mm_cmplt_epi8(v, _mm_set1_epi8(-64))
            };
            m |= bits(lane) << (16 * k);
        }
        m
    }

    #[inline(always)]
    pub fn block(chunk: &[u8; 64]) -> Block {
        let mut m = Block::default();
        for k in 0..4 {
            // SAFETY: SSE2 is part of every x86-64 CPU, and the load reads 16 of the chunk's
            // 64 bytes (unaligned loads are allowed).
            let lanes = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().add(16 * k).cast());
                let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
                let blank = eq(v, b' ');
                [
                    in_range(folded, b'a', 25),
                    in_range(v, b'A', 25),
                    in_range(v, b'0', 9),
                    _mm_or_si128(in_range(v, b'\t', 4), blank),
                    _mm_or_si128(eq(v, b'\r'), eq(v, b'\n')),
                    eq(v, b'/'),
                    blank,
                    eq(v, b'\''),
                    v,
                ]
            };
            let shift = 16 * k;
            m.letter |= bits(lanes[0]) << shift;
            m.upper |= bits(lanes[1]) << shift;
            m.digit |= bits(lanes[2]) << shift;
            m.space |= bits(lanes[3]) << shift;
            m.newline |= bits(lanes[4]) << shift;
            m.slash |= bits(lanes[5]) << shift;
            m.blank |= bits(lanes[6]) << shift;
            m.quote |= bits(lanes[7]) << shift;
            m.high |= bits(lanes[8]) << shift;
        }
        m
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Block;
    use std::arch::x86_64::*;

    // The helpers below run AVX2 instructions: they are `unsafe`, as in `sse2`, and called
    // only from the AVX2-enabled functions of this module.

    /// Bytes `b` with `lo <= b <= lo + span` (unsigned), as a byte mask.
    #[inline(always)]
    unsafe fn in_range(v: __m256i, lo: u8, span: u8) -> __m256i {
        let t = _mm256_sub_epi8(v, _mm256_set1_epi8(lo as i8));
        _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(span as i8)), t)
    }

    #[inline(always)]
    unsafe fn eq(v: __m256i, b: u8) -> __m256i {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8))
    }

    #[inline(always)]
    unsafe fn bits(m: __m256i) -> u64 {
        _mm256_movemask_epi8(m) as u32 as u64
    }

    /// [`super::sse2::cont`] 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn cont(chunk: &[u8; 64]) -> u64 {
        let mut m = 0;
        for k in 0..2 {
            // SAFETY: as in `block`.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().add(32 * k).cast()) };
            m |= bits(_mm256_cmpgt_epi8(_mm256_set1_epi8(-64), v)) << (32 * k);
        }
        m
    }

    /// [`super::sse2::block`] 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn block(chunk: &[u8; 64]) -> Block {
        let mut m = Block::default();
        for k in 0..2 {
            // SAFETY: the load reads 32 of the chunk's 64 bytes (unaligned loads are allowed).
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().add(32 * k).cast()) };
            let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            let blank = eq(v, b' ');
            let shift = 32 * k;
            m.letter |= bits(in_range(folded, b'a', 25)) << shift;
            m.upper |= bits(in_range(v, b'A', 25)) << shift;
            m.digit |= bits(in_range(v, b'0', 9)) << shift;
            m.space |= bits(_mm256_or_si256(in_range(v, b'\t', 4), blank)) << shift;
            m.newline |= bits(_mm256_or_si256(eq(v, b'\r'), eq(v, b'\n'))) << shift;
            m.slash |= bits(eq(v, b'/')) << shift;
            m.blank |= bits(blank) << shift;
            m.quote |= bits(eq(v, b'\'')) << shift;
            m.high |= bits(v) << shift;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pre_tokenizers::char_class::{flags_of, LETTER, NUMBER, SPACE};

    #[test]
    fn ascii_classes_agree_with_the_unicode_table() {
        for b in 0u8..0x80 {
            let f = flags_of(b as u32);
            let m = Block::of_scalar(&[b; 64]);
            assert_eq!(m.letter == u64::MAX, f & LETTER != 0, "byte {b}");
            assert_eq!(m.digit == u64::MAX, f & NUMBER != 0, "byte {b}");
            assert_eq!(m.space == u64::MAX, f & SPACE != 0, "byte {b}");
        }
    }

    #[test]
    fn vector_masks_equal_the_byte_loop() {
        let mut chunk = [0u8; 64];
        for start in (0..256).step_by(64) {
            for (j, c) in chunk.iter_mut().enumerate() {
                *c = (start + j) as u8;
            }
            assert_eq!(Block::at(&chunk, 0), Block::of_scalar(&chunk));
            let vectors = Vectors::detect();
            assert_eq!(Block::at_with(&chunk, 0, vectors), Block::of_scalar(&chunk));
            assert_eq!(Block::cont_at(&chunk, 0), cont_of_scalar(&chunk));
            assert_eq!(
                Block::cont_at_with(&chunk, 0, vectors),
                cont_of_scalar(&chunk)
            );
        }
        let text = b"The 3 quick/brown\r\nfox's \t jumps. \xC3\xA9t\xC3\xA9 ok";
        let mut padded = [0x80u8; 64];
        padded[..text.len()].copy_from_slice(text);
        for vectors in [Vectors::BASELINE, Vectors::detect()] {
            assert_eq!(Block::at_with(text, 0, vectors), Block::of_scalar(&padded));
            let cont = Block::cont_at_with(text, 0, vectors);
            assert_eq!(cont, cont_of_scalar(&padded));
            // From inside the text, and from its end: everything past the text is high.
            let past = text.len() - 4;
            assert_eq!(
                Block::at_with(text, 4, vectors).high >> past,
                u64::MAX >> past
            );
            assert_eq!(Block::at_with(text, text.len(), vectors).high, u64::MAX);
        }
        // "é" at bytes 34 and 37; bytes 42 on are past the text.
        assert_eq!(Block::cont_at(text, 0), 1 << 35 | 1 << 38 | u64::MAX << 42);
    }
}
