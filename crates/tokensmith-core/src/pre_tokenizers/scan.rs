//! Scanning helpers shared by the hand-written splitters.
//!
//! All functions take UTF-8 bytes (from a `&str`) and a byte position on a char boundary,
//! and return byte positions on char boundaries.

use super::blocks::Block;
use super::char_class::{Classes, LETTER, NUMBER, SPACE};

/// A cursor-free reader of code points and their class flags.
#[derive(Clone, Copy)]
pub struct Scanner<'a> {
    pub bytes: &'a [u8],
    pub classes: Classes,
}

/// One code point read at a position.
#[derive(Clone, Copy, Debug)]
pub struct Char {
    pub cp: u32,
    pub flags: u8,
    pub len: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            classes: Classes::new(),
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The code point at `i`, which must be a char boundary below `len()`.
    #[inline(always)]
    pub fn at(&self, i: usize) -> Char {
        let b = self.bytes;
        let b0 = b[i] as u32;
        let (cp, len) = if b0 < 0x80 {
            (b0, 1)
        } else if b0 < 0xE0 {
            (((b0 & 0x1F) << 6) | (b[i + 1] as u32 & 0x3F), 2)
        } else if b0 < 0xF0 {
            (
                ((b0 & 0x0F) << 12) | ((b[i + 1] as u32 & 0x3F) << 6) | (b[i + 2] as u32 & 0x3F),
                3,
            )
        } else {
            (
                ((b0 & 0x07) << 18)
                    | ((b[i + 1] as u32 & 0x3F) << 12)
                    | ((b[i + 2] as u32 & 0x3F) << 6)
                    | (b[i + 3] as u32 & 0x3F),
                4,
            )
        };
        Char {
            cp,
            flags: self.classes.of(cp),
            len,
        }
    }

    /// The code point at `i`, or `None` at the end of the text.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<Char> {
        (i < self.bytes.len()).then(|| self.at(i))
    }

    /// The start of the char that ends at `i` (`i` > 0).
    #[inline(always)]
    pub fn prev_start(&self, i: usize) -> usize {
        let mut j = i - 1;
        while self.bytes[j] & 0xC0 == 0x80 {
            j -= 1;
        }
        j
    }

    /// The end of the longest run, from `i`, of chars whose flags satisfy `keep`.
    #[inline(always)]
    pub fn run_end(&self, mut i: usize, keep: impl Fn(u8) -> bool) -> usize {
        let n = self.bytes.len();
        while i < n {
            let c = self.at(i);
            if !keep(c.flags) {
                break;
            }
            i += c.len;
        }
        i
    }

    /// [`run_end`](Self::run_end) for runs that may be long (the scalar splitters run where
    /// a piece is longer than a block): first skips, 64 bytes at a time, the ASCII bytes set
    /// in the [`Block`] mask `ascii` (which must set only bytes whose flags satisfy `keep`),
    /// then goes on char by char from the first byte it does not set.
    #[inline(always)]
    pub fn long_run_end(
        &self,
        mut i: usize,
        ascii: impl Fn(&Block) -> u64,
        keep: impl Fn(u8) -> bool,
    ) -> usize {
        loop {
            // Bytes past the text are high bytes, which no ASCII mask sets.
            let run = ascii(&Block::at(self.bytes, i)).trailing_ones() as usize;
            i += run;
            if run < 64 {
                return self.run_end(i, keep);
            }
        }
    }

    /// The end of the run of `[^\s\p{L}\p{N}]` chars from `i` (see [`is_other`]).
    #[inline(always)]
    pub fn other_run_end(&self, i: usize) -> usize {
        self.long_run_end(i, Block::other, is_other)
    }

    /// The end of a run of at most `max` chars from `i` whose flags satisfy `keep`.
    #[inline(always)]
    pub fn run_end_max(&self, mut i: usize, max: usize, keep: impl Fn(u8) -> bool) -> usize {
        let n = self.bytes.len();
        let mut count = 0;
        while i < n && count < max {
            let c = self.at(i);
            if !keep(c.flags) {
                break;
            }
            i += c.len;
            count += 1;
        }
        i
    }

    /// The end of a run of `\r`/`\n` (and `/` when `slash` is set) from `i`.
    #[inline(always)]
    pub fn newline_run_end(&self, mut i: usize, slash: bool) -> usize {
        let b = self.bytes;
        while i < b.len() && (b[i] == b'\r' || b[i] == b'\n' || (slash && b[i] == b'/')) {
            i += 1;
        }
        i
    }

    /// Matches an apostrophe contraction at `i` (see [`contraction_len`]), returning its end.
    #[inline(always)]
    pub fn contraction_end(&self, i: usize, ignore_case: bool) -> Option<usize> {
        contraction_len(self.bytes, i, ignore_case).map(|len| i + len)
    }
}

/// The length of the apostrophe contraction at `bytes[i]`: `'s 't 're 've 'm 'll 'd`.
///
/// With `ignore_case`, letters match in either case and `s` also matches `ſ` (U+017F),
/// which is how the regex engines fold case under `(?i)`.
///
/// ```
/// use tokensmith_core::pre_tokenizers::scan::contraction_len;
/// assert_eq!(contraction_len(b"'LL", 0, true), Some(3));
/// assert_eq!(contraction_len(b"'LL", 0, false), None);
/// ```
#[inline(always)]
pub fn contraction_len(bytes: &[u8], i: usize, ignore_case: bool) -> Option<usize> {
    if bytes.get(i) != Some(&b'\'') {
        return None;
    }
    let fold = |k: usize| {
        let c = bytes.get(i + k).copied().unwrap_or(0);
        if ignore_case {
            c.to_ascii_lowercase()
        } else {
            c
        }
    };
    let (c1, c2) = (fold(1), fold(2));
    match (c1, c2) {
        (b's' | b'd' | b'm' | b't', _) => Some(2),
        (b'l', b'l') | (b'v' | b'r', b'e') => Some(3),
        // U+017F LATIN SMALL LETTER LONG S is "\xC5\xBF" and folds to 's'.
        (0xC5, 0xBF) if ignore_case => Some(3),
        _ => None,
    }
}

/// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls that are not whitespace.
#[inline(always)]
pub fn is_other(flags: u8) -> bool {
    flags & (SPACE | LETTER | NUMBER) == 0
}

/// `[^\r\n\p{L}\p{N}]`: the optional one-char prefix of a letter run.
#[inline(always)]
pub fn is_letter_prefix(c: Char) -> bool {
    c.flags & (LETTER | NUMBER) == 0 && c.cp != '\r' as u32 && c.cp != '\n' as u32
}

/// How a whitespace run is cut, following the tail alternatives of each pattern.
#[derive(Clone, Copy)]
pub struct SpaceRules {
    /// `\s*[\r\n]+` (or `\s*[\r\n]`): a run with a line break ends after its last break.
    pub newline: bool,
    /// Whether the newline rule is tried before `\s++$` (o200k) or after it (cl100k).
    pub newline_first: bool,
}

impl Scanner<'_> {
    /// The end of the piece that starts with the whitespace char at `i`, given `rules`:
    /// `\s++$`, then `\s*[\r\n]`, then `\s+(?!\S)`, then a single `\s` (or `\s+`, the same here).
    #[inline]
    pub fn space_piece_end(&self, i: usize, rules: SpaceRules) -> usize {
        let n = self.len();
        let mut end = i;
        let mut chars = 0usize;
        let mut last_start = i;
        let mut last_break = None;
        while end < n {
            let c = self.at(end);
            if c.flags & SPACE == 0 {
                break;
            }
            if c.cp == '\r' as u32 || c.cp == '\n' as u32 {
                last_break = Some(end);
            }
            last_start = end;
            end += c.len;
            chars += 1;
        }
        let newline_end = last_break.filter(|_| rules.newline).map(|p| p + 1);
        if rules.newline_first {
            if let Some(e) = newline_end {
                return e;
            }
        }
        if end == n {
            return end;
        }
        if let Some(e) = newline_end {
            return e;
        }
        if chars >= 2 {
            last_start
        } else {
            end
        }
    }
}
