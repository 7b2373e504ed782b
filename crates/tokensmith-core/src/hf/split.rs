//! Cutting a piece at matches: the `behavior`s of HF's Split, Digits and Metaspace.
//!
//! A pattern turns a piece into consecutive spans, each a match or not; the behavior then
//! decides what the matches become. For `"a1b"` with the digit `1` matched:
//! `Removed` gives `a`, `b`; `Isolated` `a`, `1`, `b`; `MergedWithPrevious` `a1`, `b`;
//! `MergedWithNext` `a`, `1b`; `Contiguous` is `Isolated` with runs of adjacent matches
//! joined. Empty pieces are dropped.
//!
//! ```
//! use tokensmith_core::hf::split::{cut, Behavior};
//! let chars: Vec<char> = "a12b".chars().collect();
//! let spans = [((0, 1), false), ((1, 2), true), ((2, 3), true), ((3, 4), false)];
//! assert_eq!(cut(&spans, Behavior::Contiguous), vec![(0, 1), (1, 3), (3, 4)]);
//! assert_eq!(cut(&spans, Behavior::MergedWithNext), vec![(0, 1), (1, 2), (2, 4)]);
//! # let _ = chars;
//! ```

/// What a split does with the matches (HF's `SplitDelimiterBehavior`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

impl Behavior {
    /// The behavior named as in `tokenizer.json`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "Removed" => Self::Removed,
            "Isolated" => Self::Isolated,
            "MergedWithPrevious" => Self::MergedWithPrevious,
            "MergedWithNext" => Self::MergedWithNext,
            "Contiguous" => Self::Contiguous,
            _ => return None,
        })
    }
}

/// The spans `[start, end)` kept from consecutive `(span, is_match)` entries.
pub fn cut(spans: &[((usize, usize), bool)], behavior: Behavior) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    match behavior {
        Behavior::Isolated => out.extend(spans.iter().map(|&(s, _)| s)),
        Behavior::Removed => out.extend(spans.iter().filter(|(_, m)| !m).map(|&(s, _)| s)),
        Behavior::Contiguous => {
            let mut previous = false;
            for &(span, is_match) in spans {
                match out.last_mut() {
                    Some(last) if is_match == previous => last.1 = span.1,
                    _ => out.push(span),
                }
                previous = is_match;
            }
        }
        Behavior::MergedWithPrevious => {
            let mut previous = false;
            for &(span, is_match) in spans {
                match out.last_mut() {
                    Some(last) if is_match && !previous => last.1 = span.1,
                    _ => out.push(span),
                }
                previous = is_match;
            }
        }
        Behavior::MergedWithNext => {
            let mut previous = false;
            for &(span, is_match) in spans.iter().rev() {
                match out.last_mut() {
                    Some(last) if is_match && !previous => last.0 = span.0,
                    _ => out.push(span),
                }
                previous = is_match;
            }
            out.reverse();
        }
    }
    out.retain(|(s, e)| e > s);
    out
}

/// The spans of `chars` where each character for which `matches` holds is one match.
pub fn char_spans(chars: &[char], matches: impl Fn(char) -> bool) -> Vec<((usize, usize), bool)> {
    let mut spans = Vec::new();
    let mut last = 0;
    for (i, &c) in chars.iter().enumerate() {
        if matches(c) {
            if last < i {
                spans.push(((last, i), false));
            }
            spans.push(((i, i + 1), true));
            last = i + 1;
        }
    }
    if last < chars.len() {
        spans.push(((last, chars.len()), false));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, matches: fn(char) -> bool, b: Behavior) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        cut(&char_spans(&chars, matches), b)
            .into_iter()
            .map(|(s, e)| chars[s..e].iter().collect())
            .collect()
    }

    #[test]
    fn every_behavior() {
        let d = |c: char| c.is_ascii_digit();
        assert_eq!(words("a12b3", d, Behavior::Removed), ["a", "b"]);
        assert_eq!(
            words("a12b3", d, Behavior::Isolated),
            ["a", "1", "2", "b", "3"]
        );
        assert_eq!(
            words("a12b3", d, Behavior::Contiguous),
            ["a", "12", "b", "3"]
        );
        assert_eq!(
            words("a12b3", d, Behavior::MergedWithPrevious),
            ["a1", "2", "b3"]
        );
        assert_eq!(
            words("1a12b", d, Behavior::MergedWithNext),
            ["1a", "1", "2b"]
        );
        assert!(words("", d, Behavior::Isolated).is_empty());
    }
}
