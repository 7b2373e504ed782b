//! Bit masks of the ASCII character classes over a window of text, for the splitters' fast path.
//!
//! Each 64-byte block of text becomes one `u64` per class (bit `j` is byte `j` of the block):
//! letters, upper-case letters, digits, whitespace, line breaks, slashes, spaces, apostrophes,
//! "other" (ASCII that is none of letter, digit or space) and high bytes (any byte of a
//! non-ASCII char). The end of a
//! run of one class is then one shift and one trailing-zero count instead of a loop over bytes.
//! A [`Window`] holds two consecutive blocks, so a piece that starts in the first block can be
//! followed into the second. Bytes past the end of the text count as high bytes, which sends
//! every decision that looks at them to the scalar splitter.
//!
//! On x86-64 the masks come from SSE2 compares (part of the base instruction set), elsewhere
//! from a byte loop; both give the same masks (tested).
//!
//! ```
//! use tokensmith_core::pre_tokenizers::blocks::Window;
//! let w = Window::new(b"Hi 42!", 0);
//! assert_eq!(w.letter & 0b111111, 0b000011);
//! assert_eq!(w.digit & 0b111111, 0b011000);
//! assert_eq!(w.run_end(w.letter, 0), Some(2));
//! ```

/// Bits of [`CLASS`], the class of one byte.
pub mod class {
    pub const LETTER: u8 = 1;
    pub const DIGIT: u8 = 2;
    pub const SPACE: u8 = 4;
    /// `\r` or `\n`.
    pub const NEWLINE: u8 = 8;
    /// ASCII that is not a letter, digit or whitespace.
    pub const OTHER: u8 = 16;
    /// A byte of a non-ASCII char.
    pub const HIGH: u8 = 32;
}

/// The [`class`] of each byte value, for tests of one position (the masks serve runs).
pub static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= 0x80 {
            class::HIGH
        } else if c.is_ascii_alphabetic() {
            class::LETTER
        } else if c.is_ascii_digit() {
            class::DIGIT
        } else if c == b'\r' || c == b'\n' {
            class::SPACE | class::NEWLINE
        } else if matches!(c, b'\t'..=b'\r' | b' ') {
            class::SPACE
        } else {
            class::OTHER
        };
        b += 1;
    }
    t
};

/// The class masks of one 64-byte block.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Block {
    pub letter: u64,
    pub upper: u64,
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

/// The masks of two consecutive blocks, `[base, base + 128)`, as `u128`s.
#[derive(Clone, Copy, Debug)]
pub struct Window<'a> {
    pub bytes: &'a [u8],
    pub base: usize,
    pub letter: u128,
    pub upper: u128,
    pub digit: u128,
    pub space: u128,
    pub newline: u128,
    /// Line breaks and slashes (o200k's `[\r\n/]`).
    pub newline_slash: u128,
    /// ASCII that is not a letter, digit or whitespace (`[^\s\p{L}\p{N}]` within ASCII).
    pub other: u128,
    pub high: u128,
}

#[inline(always)]
fn join(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

impl<'a> Window<'a> {
    /// The window whose first block starts at `base`.
    #[inline]
    pub fn new(bytes: &'a [u8], base: usize) -> Self {
        Self::from_blocks(
            bytes,
            base,
            Block::at(bytes, base),
            Block::at(bytes, base + 64),
        )
    }

    #[inline(always)]
    fn from_blocks(bytes: &'a [u8], base: usize, a: Block, b: Block) -> Self {
        let letter = join(a.letter, b.letter);
        let digit = join(a.digit, b.digit);
        let space = join(a.space, b.space);
        let newline = join(a.newline, b.newline);
        let high = join(a.high, b.high);
        Self {
            bytes,
            base,
            letter,
            upper: join(a.upper, b.upper),
            digit,
            space,
            newline,
            newline_slash: newline | join(a.slash, b.slash),
            other: !(letter | digit | space | high),
            high,
        }
    }

    /// Moves the window so that its first block holds `i` (which is at or after `base`).
    #[inline(always)]
    pub fn advance_to(&mut self, i: usize) {
        if i >= self.base + 64 {
            self.slide(i);
        }
    }

    #[inline(never)]
    fn slide(&mut self, i: usize) {
        if i < self.base + 128 {
            let hi = |m: u128| (m >> 64) as u64;
            let a = Block {
                letter: hi(self.letter),
                upper: hi(self.upper),
                digit: hi(self.digit),
                space: hi(self.space),
                newline: hi(self.newline),
                slash: hi(self.newline_slash & !self.newline),
                blank: 0,
                quote: 0,
                high: hi(self.high),
            };
            let base = self.base + 64;
            *self = Self::from_blocks(self.bytes, base, a, Block::at(self.bytes, base + 64));
        } else {
            *self = Self::new(self.bytes, self.base + ((i - self.base) & !63));
        }
    }

    /// The [`class`] bits of byte `p` (a high byte past the text).
    #[inline(always)]
    pub fn class(&self, p: usize) -> u8 {
        CLASS[self.byte(p) as usize]
    }

    /// The end of the run of `mask` bytes from `p`, or `None` if it is 64 bytes or longer or
    /// reaches the window's end.
    #[inline(always)]
    pub fn run_end(&self, mask: u128, p: usize) -> Option<usize> {
        let off = p - self.base;
        if off >= 128 {
            return None;
        }
        // The 64 bytes from `p`; past the window, the shift brings in "no stop".
        let stops = (!mask >> off) as u64;
        (stops != 0).then(|| p + stops.trailing_zeros() as usize)
    }

    /// The last byte of `mask` in `[from, to)` (`to` at most the window's end).
    #[inline(always)]
    pub fn last_in(&self, mask: u128, from: usize, to: usize) -> Option<usize> {
        let width = to - from;
        let bits = (mask >> (from - self.base)) & (u128::MAX >> (128 - width.max(1)));
        let bits = if width == 0 { 0 } else { bits };
        (bits != 0).then(|| from + 127 - bits.leading_zeros() as usize)
    }

    /// Whether every byte of `[from, to)` is ASCII text inside the window: then a decision
    /// that looked only at these bytes is the scalar splitter's too.
    #[inline(always)]
    pub fn ascii(&self, from: usize, to: usize) -> bool {
        let (a, b) = (from - self.base, to - self.base);
        b <= 128
            && (self.high == 0 || (self.high >> a) & (u128::MAX >> (128 - (b - a).max(1))) == 0)
    }

    /// The byte at `p`, or a high byte past the text.
    #[inline(always)]
    pub fn byte(&self, p: usize) -> u8 {
        self.bytes.get(p).copied().unwrap_or(0x80)
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
            let c = CLASS[b as usize];
            assert_eq!(c & class::LETTER != 0, f & LETTER != 0, "byte {b}");
            assert_eq!(c & class::DIGIT != 0, f & NUMBER != 0, "byte {b}");
            assert_eq!(c & class::SPACE != 0, f & SPACE != 0, "byte {b}");
            assert_eq!(
                c & class::OTHER != 0,
                f & (LETTER | NUMBER | SPACE) == 0,
                "byte {b}"
            );
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
        }
        let text = b"The 3 quick/brown\r\nfox's \t jumps. \xC3\xA9t\xC3\xA9 ok";
        let mut padded = [0x80u8; 64];
        padded[..text.len()].copy_from_slice(text);
        assert_eq!(Block::at(text, 0), Block::of_scalar(&padded));
    }

    #[test]
    fn runs_cross_blocks_and_stop_at_the_window_end() {
        let text = format!("{}b", "a".repeat(100));
        let mut w = Window::new(text.as_bytes(), 0);
        assert_eq!(w.run_end(w.letter, 40), Some(101), "past the text is high");
        assert_eq!(
            w.run_end(w.letter, 37),
            None,
            "runs of 64 or more are left to the caller"
        );
        let long = "a".repeat(300);
        w = Window::new(long.as_bytes(), 0);
        assert_eq!(w.run_end(w.letter, 3), None);
        assert_eq!(w.run_end(w.digit, 3), Some(3));
        w.advance_to(70);
        assert_eq!(w.base, 64);
        w.advance_to(260);
        assert_eq!(w.base, 256);
        assert_eq!(w.run_end(w.letter, 260), Some(300));
        assert_eq!(
            w.run_end(w.letter, 256 + 127),
            Some(256 + 127),
            "no letters past the text"
        );
        assert_eq!(w.last_in(w.letter, 260, 270), Some(269));
        assert!(w.ascii(256, 300) && !w.ascii(256, 301));
    }
}
