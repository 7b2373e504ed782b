//! Hand-written splitters for the regexes that tokenizer files use most: the `Split`
//! pre-tokenizers of Llama-3 and Qwen2, and the ` {2,}` of the `Replace` normalizer that
//! `transformers` writes into converted SentencePiece files (T5, ALBERT, XLM-R).
//!
//! The Llama-3 pattern is
//!
//! ```text
//! (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! Qwen2's pattern is the same with `\p{N}` (one digit) for `\p{N}{1,3}`. The head is
//! cl100k's (greedy where cl100k is possessive, which cuts the same pieces here) and the tail
//! is o200k's: a whitespace run with a line break ends after its last break, even at the end
//! of the text, where cl100k's `\s++$` would keep the whole run. Every character is matched
//! by some alternative, so the pieces tile the text and only the end of the piece that starts
//! at each position has to be found, trying the alternatives in order as the regex engine
//! does. The character classes are those of [`crate::pre_tokenizers::char_class`], the ones
//! the regex engine uses. Equality with the regex engine on the same characters is
//! property-tested (`tests/hf_known_split.rs`).
//!
//! ```
//! use tokensmith_core::hf::known_split::{KnownSplit, LLAMA3_PATTERN};
//! let split = KnownSplit::recognise(LLAMA3_PATTERN).unwrap();
//! let chars: Vec<char> = "I'm 12345 x\n ".chars().collect();
//! let words: Vec<String> = split
//!     .matches(&chars)
//!     .into_iter()
//!     .map(|(s, e)| chars[s..e].iter().collect())
//!     .collect();
//! assert_eq!(words, ["I", "'m", " ", "123", "45", " x", "\n", " "]);
//! ```

use crate::pre_tokenizers::char_class::{Classes, LETTER, NUMBER, SPACE};
use crate::pre_tokenizers::scan::is_other;

/// The pre-tokenizer regex of Llama-3 tokenizer files.
pub const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The pre-tokenizer regex of Qwen2 tokenizer files.
pub const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// Runs of two or more spaces (the `Replace` normalizer of converted SentencePiece files).
pub const SPACE_RUNS_PATTERN: &str = " {2,}";

/// A matcher equal to one of the known patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownSplit {
    /// The Llama-3 or Qwen2 pattern, whose matches tile the text.
    Words {
        /// The most digits in one piece: 3 for Llama-3, 1 for Qwen2.
        max_digits: usize,
    },
    /// [`SPACE_RUNS_PATTERN`].
    SpaceRuns,
}

impl KnownSplit {
    /// The matcher for `pattern` (the regex as `tokenizer.json` writes it), if it is known.
    pub fn recognise(pattern: &str) -> Option<Self> {
        match pattern {
            LLAMA3_PATTERN => Some(Self::Words { max_digits: 3 }),
            QWEN2_PATTERN => Some(Self::Words { max_digits: 1 }),
            SPACE_RUNS_PATTERN => Some(Self::SpaceRuns),
            _ => None,
        }
    }

    /// Whether the matches always tile the text (no text lies between them).
    pub fn tiles(&self) -> bool {
        matches!(self, Self::Words { .. })
    }

    /// The matches in `chars`, as `(start, end)` ranges in order, as the regex engine finds
    /// them (leftmost first, none empty).
    pub fn matches(&self, chars: &[char]) -> Vec<(usize, usize)> {
        match *self {
            Self::Words { max_digits } => words(chars, max_digits),
            Self::SpaceRuns => space_runs(chars),
        }
    }
}

/// Runs of at least two `' '`.
fn space_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != ' ' {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i] == ' ' {
            i += 1;
        }
        if i - start >= 2 {
            out.push((start, i));
        }
    }
    out
}

/// The pieces of the Llama-3 pattern (with at most `max_digits` digits a piece), which tile
/// `chars`, in order.
fn words(chars: &[char], max_digits: usize) -> Vec<(usize, usize)> {
    let scan = CharScan {
        chars,
        classes: Classes::new(),
    };
    // Pieces are a few characters long on most text.
    let mut out = Vec::with_capacity(chars.len() / 3 + 1);
    let mut i = 0;
    while i < chars.len() {
        let end = piece_end(&scan, i, max_digits);
        out.push((i, end));
        i = end;
    }
    out
}

/// The end of the Llama-3 piece that starts at `i` (below the number of characters).
#[inline]
fn piece_end(s: &CharScan, i: usize, max_digits: usize) -> usize {
    let c = s.chars[i];
    let flags = s.flags(i);
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if c == '\'' {
        if let Some(e) = s.contraction_end(i) {
            return e;
        }
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if flags & LETTER != 0 {
        return s.run_end(i + 1, LETTER);
    }
    let prefixes_letters = flags & NUMBER == 0 && c != '\r' && c != '\n';
    if prefixes_letters && i + 1 < s.chars.len() && s.flags(i + 1) & LETTER != 0 {
        return s.run_end(i + 2, LETTER);
    }
    // \p{N}{1,3} (or \p{N})
    if flags & NUMBER != 0 {
        let limit = s.chars.len().min(i + max_digits);
        return s.run_end(i + 1, NUMBER).min(limit);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
    let other_start = if is_other(flags) {
        Some(i)
    } else if c == ' ' && i + 1 < s.chars.len() && is_other(s.flags(i + 1)) {
        Some(i + 1)
    } else {
        None
    };
    if let Some(start) = other_start {
        let mut end = start + 1;
        while end < s.chars.len() && is_other(s.flags(end)) {
            end += 1;
        }
        while end < s.chars.len() && matches!(s.chars[end], '\r' | '\n') {
            end += 1;
        }
        return end;
    }
    // Only whitespace is left: `\s*[\r\n]+|\s+(?!\S)|\s+`.
    s.space_piece_end(i)
}

/// Characters with their class flags.
struct CharScan<'a> {
    chars: &'a [char],
    classes: Classes,
}

impl CharScan<'_> {
    #[inline(always)]
    fn flags(&self, i: usize) -> u8 {
        self.classes.of(self.chars[i] as u32)
    }

    /// The end of the run, from `i`, of characters that have `flag`.
    #[inline(always)]
    fn run_end(&self, mut i: usize, flag: u8) -> usize {
        while i < self.chars.len() && self.flags(i) & flag != 0 {
            i += 1;
        }
        i
    }

    /// The end of the contraction at `i` (an apostrophe), letters in either case; `ſ`
    /// (U+017F) folds to `s`, as the regex engines fold case.
    #[inline]
    fn contraction_end(&self, i: usize) -> Option<usize> {
        let fold = |j: usize| match self.chars.get(j) {
            Some('ſ') => Some('s'),
            Some(c) => Some(c.to_ascii_lowercase()),
            None => None,
        };
        match (fold(i + 1), fold(i + 2)) {
            (Some('s' | 't' | 'm' | 'd'), _) => Some(i + 2),
            (Some('r' | 'v'), Some('e')) | (Some('l'), Some('l')) => Some(i + 3),
            _ => None,
        }
    }

    /// The end of the piece that starts with the whitespace character at `i`: after the
    /// run's last line break if it has one (`\s*[\r\n]+`); else the whole run at the end of
    /// the text, or all of it but its last character before anything else (`\s+(?!\S)`); a
    /// run of one is one piece (`\s+`).
    #[inline]
    fn space_piece_end(&self, i: usize) -> usize {
        let n = self.chars.len();
        let mut end = i;
        let mut last_break = None;
        while end < n && self.flags(end) & SPACE != 0 {
            if matches!(self.chars[end], '\r' | '\n') {
                last_break = Some(end);
            }
            end += 1;
        }
        match last_break {
            Some(b) => b + 1,
            None if end == n || end - i == 1 => end,
            None => end - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(pattern: &str, text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        KnownSplit::recognise(pattern)
            .unwrap()
            .matches(&chars)
            .into_iter()
            .map(|(s, e)| chars[s..e].iter().collect())
            .collect()
    }

    #[test]
    fn digits_per_family() {
        assert_eq!(words(LLAMA3_PATTERN, "a12345"), ["a", "123", "45"]);
        assert_eq!(words(QWEN2_PATTERN, "a123"), ["a", "1", "2", "3"]);
    }

    #[test]
    fn whitespace_at_the_end_splits_after_the_last_break() {
        assert_eq!(words(LLAMA3_PATTERN, "x \n\t\n  "), ["x", " \n\t\n", "  "]);
        assert_eq!(words(LLAMA3_PATTERN, "x   y"), ["x", "  ", " y"]);
        assert_eq!(words(LLAMA3_PATTERN, "x\t.\n"), ["x", "\t", ".\n"]);
    }

    #[test]
    fn contractions_fold_case() {
        assert_eq!(
            words(LLAMA3_PATTERN, "IT'S 'ſ'LL'x"),
            ["IT", "'S", " '", "ſ", "'LL", "'x"]
        );
        assert_eq!(words(LLAMA3_PATTERN, "x'ſ'Ve"), ["x", "'ſ", "'Ve"]);
        assert!(KnownSplit::recognise(r"\s+").is_none());
    }

    #[test]
    fn space_runs_of_two_or_more() {
        assert_eq!(words(SPACE_RUNS_PATTERN, "a  b c   d "), ["  ", "   "]);
        assert!(words(SPACE_RUNS_PATTERN, " a b ").is_empty());
    }
}
