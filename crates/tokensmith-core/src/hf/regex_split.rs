//! HF's `Split` pre-tokenizer: a literal string or an Oniguruma regex, a behavior, `invert`.
//!
//! HF compiles `Regex` patterns with Oniguruma; this runs them with `fancy-regex`. The two
//! agree on the patterns tokenizer files use (Unicode classes, look-ahead, alternation), with
//! one difference that matters: after a counted repeat, `+` is possessive in fancy-regex
//! (`\p{N}{1,3}+` never gives back a digit) but a second, greedy repeat in Oniguruma
//! (`(?:\p{N}{1,3})+`). [`onig_to_fancy`] rewrites that form before compiling.
//!
//! ```
//! use tokensmith_core::hf::regex_split::onig_to_fancy;
//! assert_eq!(onig_to_fancy(r"\p{N}{1,3}+"), r"(?:\p{N}{1,3})+");
//! assert_eq!(onig_to_fancy(r"[a-z]{2}+x"), r"(?:[a-z]{2})+x");
//! assert_eq!(onig_to_fancy(r"\d{1,3}"), r"\d{1,3}");
//! ```

use super::known_split::{KnownSplit, LLAMA3_PATTERN, QWEN2_PATTERN};
use super::normalized::NormalizedString;
use super::split::{cut, Behavior};
use crate::error::{Error, Result};
use crate::limits::Limit;

/// A compiled `Split` pre-tokenizer.
#[derive(Clone, Debug)]
pub struct Split {
    regex: fancy_regex::Regex,
    /// The hand-written splitter that cuts where `regex` does, for a known pattern.
    known: Option<KnownSplit>,
    behavior: Behavior,
    invert: bool,
}

impl PartialEq for Split {
    fn eq(&self, other: &Self) -> bool {
        self.regex.as_str() == other.regex.as_str()
            && self.behavior == other.behavior
            && self.invert == other.invert
    }
}

impl Eq for Split {}

impl Split {
    /// The pattern, when it is the Llama-3 or Qwen2 one and its pieces are kept as they are
    /// (`Isolated`, not inverted): then the pieces are those the regex finds.
    pub fn known_words_pattern(&self) -> Option<&'static str> {
        if self.behavior != Behavior::Isolated || self.invert {
            return None;
        }
        match self.known? {
            KnownSplit::Words { max_digits: 3 } => Some(LLAMA3_PATTERN),
            KnownSplit::Words { max_digits: 1 } => Some(QWEN2_PATTERN),
            _ => None,
        }
    }

    /// A split at `pattern`: a literal string when `literal`, else an Oniguruma regex
    /// (run by a hand-written splitter when it is a [`KnownSplit`] pattern).
    pub fn new(pattern: &str, literal: bool, behavior: Behavior, invert: bool) -> Result<Self> {
        let mut split = Self::regex_only(pattern, literal, behavior, invert)?;
        if !literal {
            split.known = KnownSplit::recognise(pattern);
        }
        Ok(split)
    }

    /// Like [`Self::new`] but always runs the regex engine (for tests and benchmarks).
    pub fn regex_only(
        pattern: &str,
        literal: bool,
        behavior: Behavior,
        invert: bool,
    ) -> Result<Self> {
        let source = if literal {
            fancy_regex::escape(pattern).into_owned()
        } else {
            onig_to_fancy(pattern)
        };
        let regex = fancy_regex::RegexBuilder::new(&source)
            .backtrack_limit(Limit::RegexBacktrackLimit.get() as usize)
            .build()
            .map_err(|e| {
                Error::InvalidOption(format!("the pattern {pattern:?} does not compile: {e}"))
            })?;
        Ok(Self {
            regex,
            known: None,
            behavior,
            invert,
        })
    }

    /// Cuts `piece` at the pattern's matches; fails when the regex gives up (it hit the
    /// backtracking limit) rather than leave the rest of the piece unsplit.
    pub fn split(&self, piece: &NormalizedString) -> Result<Vec<(usize, usize)>> {
        self.split_chars(piece.chars())
    }

    /// [`Self::split`] of the characters `chars`.
    pub fn split_chars(&self, chars: &[char]) -> Result<Vec<(usize, usize)>> {
        let matches = match &self.known {
            Some(known) => {
                let matches = known.matches(chars);
                if known.tiles() && self.behavior == Behavior::Isolated && !self.invert {
                    return Ok(matches);
                }
                matches
            }
            None => self.regex_matches(chars)?,
        };
        let mut spans = Vec::with_capacity(2 * matches.len() + 1);
        let mut prev = 0;
        for (s, e) in matches {
            if prev != s {
                spans.push(((prev, s), self.invert));
            }
            spans.push(((s, e), !self.invert));
            prev = e;
        }
        if prev != chars.len() {
            spans.push(((prev, chars.len()), self.invert));
        }
        Ok(cut(&spans, self.behavior))
    }

    /// The regex's matches in `chars`, as ranges of characters.
    fn regex_matches(&self, chars: &[char]) -> Result<Vec<(usize, usize)>> {
        let text: String = chars.iter().collect();
        // Byte offsets of the matches, turned into character offsets.
        let mut char_at = Vec::with_capacity(text.len() + 1);
        for (i, c) in chars.iter().enumerate() {
            char_at.extend(std::iter::repeat_n(i, c.len_utf8()));
        }
        char_at.push(chars.len());
        let mut matches = Vec::new();
        for m in self.regex.find_iter(&text) {
            let m = m.map_err(|e| match e {
                fancy_regex::Error::RuntimeError(
                    fancy_regex::RuntimeError::BacktrackLimitExceeded,
                ) => Error::Pattern(format!(
                    "the Split pattern {:?} hit the backtracking limit on a piece of {} \
                         characters (regex_backtrack_limit = {}; raise it with \
                         tokensmith.limits.set_limits(regex_backtrack_limit=...) before loading)",
                    self.regex.as_str(),
                    chars.len(),
                    Limit::RegexBacktrackLimit.get()
                )),
                other => Error::Pattern(format!(
                    "the Split pattern {:?} failed: {other}",
                    self.regex.as_str()
                )),
            })?;
            matches.push((char_at[m.start()], char_at[m.end()]));
        }
        Ok(matches)
    }

    /// The pattern as compiled.
    pub fn pattern(&self) -> &str {
        self.regex.as_str()
    }
}

/// Rewrites Oniguruma's `X{n,m}+` (a greedy repeat of a counted repeat) as `(?:X{n,m})+`.
pub fn onig_to_fancy(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len() + 8);
    // Where each atom written to `out` starts, so the last one can be wrapped.
    let mut atom_start: Option<usize> = None;
    let mut groups: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let start = out.len();
                out.push(c);
                i += 1;
                if i < chars.len() {
                    let e = chars[i];
                    out.push(e);
                    i += 1;
                    if matches!(e, 'p' | 'P' | 'x' | 'u') && chars.get(i) == Some(&'{') {
                        while i < chars.len() {
                            out.push(chars[i]);
                            i += 1;
                            if chars[i - 1] == '}' {
                                break;
                            }
                        }
                    }
                }
                atom_start = Some(start);
            }
            '[' => {
                let start = out.len();
                out.push(c);
                i += 1;
                // A `]` right after `[` or `[^` is a literal.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push(']');
                    i += 1;
                }
                let mut depth = 1;
                while i < chars.len() {
                    let d = chars[i];
                    out.push(d);
                    i += 1;
                    match d {
                        '\\' if i < chars.len() => {
                            out.push(chars[i]);
                            i += 1;
                        }
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                atom_start = Some(start);
            }
            '(' => {
                groups.push(out.len());
                out.push(c);
                i += 1;
                atom_start = None;
            }
            ')' => {
                out.push(c);
                i += 1;
                atom_start = groups.pop();
            }
            '{' => {
                let close = chars[i..].iter().position(|&d| d == '}').map(|p| i + p);
                let counted = close.filter(|&e| {
                    let body: String = chars[i + 1..e].iter().collect();
                    !body.is_empty() && body.chars().all(|d| d.is_ascii_digit() || d == ',')
                });
                match (counted, atom_start) {
                    (Some(e), Some(start)) if chars.get(e + 1) == Some(&'+') => {
                        let atom: Vec<char> = out.drain(start..).collect();
                        out.extend("(?:".chars());
                        out.extend(atom);
                        out.extend(chars[i..=e].iter());
                        out.push(')');
                        i = e + 1;
                        atom_start = Some(start);
                    }
                    (Some(e), _) => {
                        out.extend(chars[i..=e].iter());
                        i = e + 1;
                    }
                    _ => {
                        out.push(c);
                        i += 1;
                        atom_start = Some(out.len() - 1);
                    }
                }
            }
            _ => {
                if !matches!(c, '|' | '*' | '+' | '?' | '^' | '$') {
                    atom_start = Some(out.len());
                } else if c == '|' {
                    atom_start = None;
                }
                out.push(c);
                i += 1;
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(split: &Split, text: &str) -> Vec<String> {
        let piece = NormalizedString::new(text);
        split
            .split(&piece)
            .unwrap()
            .into_iter()
            .map(|(s, e)| piece.chars()[s..e].iter().collect())
            .collect()
    }

    #[test]
    fn a_pattern_that_gives_up_is_an_error_not_one_piece() {
        let s = Split::new("(a|aa)+(?=b)|.", false, Behavior::Isolated, false).unwrap();
        let piece = NormalizedString::new(&("a".repeat(100) + "c"));
        let err = s.split(&piece).unwrap_err().to_string();
        assert!(err.contains("regex_backtrack_limit"), "{err}");
        assert_eq!(words(&s, "aac"), ["a", "a", "c"]);
    }

    #[test]
    fn groups_of_three_digits() {
        let s = Split::new(r"\p{N}{1,3}", false, Behavior::Isolated, false).unwrap();
        assert_eq!(words(&s, "a1234567b"), ["a", "123", "456", "7", "b"]);
    }

    #[test]
    fn onig_possessive_form_is_greedy() {
        let s = Split::new(r"\p{N}{1,3}+", false, Behavior::Isolated, false).unwrap();
        assert_eq!(words(&s, "x12345"), ["x", "12345"]);
        assert_eq!(onig_to_fancy(r"(ab){2}+"), r"(?:(ab){2})+");
        assert_eq!(onig_to_fancy(r"a|b{1,2}+"), r"a|(?:b{1,2})+");
        assert_eq!(onig_to_fancy(r"[^\]x]{3}+"), r"(?:[^\]x]{3})+");
    }

    #[test]
    fn literal_and_invert() {
        let s = Split::new(".", true, Behavior::Removed, false).unwrap();
        assert_eq!(words(&s, "a.b.c"), ["a", "b", "c"]);
        let s = Split::new(r"\d+", false, Behavior::Removed, true).unwrap();
        assert_eq!(words(&s, "ab12cd3"), ["12", "3"]);
        assert!(Split::new("(", false, Behavior::Removed, false).is_err());
    }
}
