//! HF's rule for aligning a rewritten string: a list of `(char, change)` pairs.
//!
//! Normalizers that do more than map one character at a time (NFC, NFKC, Precompiled) describe
//! their output as pairs, read left to right against the input characters:
//! - `change == 0`: the character replaces the next input character and takes its span;
//! - `change < 0`: as 0, then the `-change` input characters after it are dropped;
//! - `change > 0`: the character is new and takes the span of the last input character
//!   consumed or dropped so far.
//!
//! Input characters left over at the end are dropped. This is how HF's
//! `NormalizedString::transform` aligns, quirks included: a composed `é` from `e` + U+0301
//! keeps only the `e`'s span.
//!
//! ```
//! use tokensmith_core::hf::transform::apply_changes;
//! use tokensmith_core::hf::NormalizedString;
//! let mut s = NormalizedString::new("e\u{301}x");
//! apply_changes(&mut s, [('é', -1), ('x', 0)]);
//! assert_eq!(s.text(), "éx");
//! assert_eq!(s.original_span(0, 1), (0, 1));
//! assert_eq!(s.original_span(1, 2), (2, 3));
//! ```
//!
//! Not handled: a new character before any input character is consumed. HF gives it an
//! empty span at the start; here it takes the first character's span. No normalizer here
//! produces one (decompositions and charsmap rules start with a replacing character).

use super::NormalizedString;
use unicode_normalization_alignments::UnicodeNormalization;
use unicode_normalization_alignments::{is_nfc_quick, is_nfkc_quick, IsNormalized};

/// Rewrites `s` by the `(char, change)` pairs, aligning as HF does (see the module docs).
pub fn apply_changes(s: &mut NormalizedString, changes: impl IntoIterator<Item = (char, isize)>) {
    let n = s.len();
    let mut out = Vec::with_capacity(n);
    let mut cursor = 0usize;
    for (c, change) in changes {
        let owner = if change > 0 {
            cursor.saturating_sub(1)
        } else {
            cursor += 1 + change.unsigned_abs();
            cursor - 1 - change.unsigned_abs()
        };
        if owner < n {
            out.push((owner, c));
        }
    }
    regroup(s, &out);
}

/// Replaces each of the `matches` (ranges of characters, in order, not overlapping, not
/// empty) by `content`, all of whose characters take the span of the match's last character,
/// as HF's `replace` aligns them.
pub fn replace_ranges(s: &mut NormalizedString, matches: &[(usize, usize)], content: &str) {
    let mut out = Vec::with_capacity(s.len());
    let mut next = matches.iter().peekable();
    for (i, &c) in s.chars().iter().enumerate() {
        while next.peek().is_some_and(|m| m.1 <= i) {
            next.next();
        }
        match next.peek() {
            Some(&&(start, end)) if start <= i => {
                if i + 1 == end {
                    out.extend(content.chars().map(|c| (i, c)));
                }
            }
            _ => out.push((i, c)),
        }
    }
    regroup(s, &out);
}

/// Rebuilds `s` from `(owner, char)` pairs: each character takes the span of input character
/// `owner`. Owners never decrease; an input character that owns nothing is dropped.
fn regroup(s: &mut NormalizedString, out: &[(usize, char)]) {
    let mut next = out.iter().peekable();
    let mut i = 0usize;
    // `expand` visits the input characters in order, once each.
    s.expand(|_, chars| {
        while let Some(&&(_, c)) = next.peek().filter(|(owner, _)| *owner == i) {
            chars.push(c);
            next.next();
        }
        i += 1;
    });
}

/// NFC (`compatible == false`) or NFKC, with HF's alignments: composition with the Unicode
/// 9.0 tables of `unicode-normalization-alignments`, as HF composes.
pub fn compose(s: &mut NormalizedString, compatible: bool) {
    // Text that the quick check (with the same tables) finds normalized is left as it is,
    // spans included: every pair would be `(c, 0)`.
    let chars = s.chars().iter().copied();
    let normalized = if compatible {
        is_nfkc_quick(chars)
    } else {
        is_nfc_quick(chars)
    };
    if normalized == IsNormalized::Yes {
        return;
    }
    let chars = s.chars().to_vec();
    if compatible {
        apply_changes(s, chars.into_iter().nfkc());
    } else {
        apply_changes(s, chars.into_iter().nfc());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, changes: &[(char, isize)]) -> NormalizedString {
        let mut s = NormalizedString::new(text);
        apply_changes(&mut s, changes.iter().copied());
        s
    }

    #[test]
    fn insertion_takes_the_previous_span() {
        let s = run("™g", &[('T', 0), ('M', 1), ('g', 0)]);
        assert_eq!(s.text(), "TMg");
        assert_eq!(s.original_span(1, 2), (0, 1));
        assert_eq!(s.original_span(2, 3), (1, 2));
    }

    #[test]
    fn removal_then_insertion() {
        // "x" replaces a and drops b, c; "y" is new and takes c's span.
        let s = run("abcd", &[('x', -2), ('y', 1), ('d', 0)]);
        assert_eq!(s.text(), "xyd");
        assert_eq!(s.original_span(0, 1), (0, 1));
        assert_eq!(s.original_span(1, 2), (2, 3));
        assert_eq!(s.original_span(2, 3), (3, 4));
    }

    #[test]
    fn leftover_input_is_dropped_and_spans_shift() {
        // A first character mapped to nothing: HF's pairs then consume from the start.
        let s = run("\u{1e}ab", &[('a', 0), ('b', 0)]);
        assert_eq!(s.text(), "ab");
        assert_eq!(s.original_span(0, 2), (0, 2));
    }

    #[test]
    fn replaced_ranges_take_the_last_span() {
        let mut s = NormalizedString::new("a   b  c");
        replace_ranges(&mut s, &[(1, 4), (5, 7)], "_");
        assert_eq!(s.text(), "a_b_c");
        assert_eq!(s.original_span(1, 2), (3, 4));
        assert_eq!(s.original_span(3, 4), (6, 7));
        assert_eq!(s.original_span(4, 5), (7, 8));
    }

    #[test]
    fn nfc_and_nfkc() {
        let mut s = NormalizedString::new("e\u{301}ﬁ");
        compose(&mut s, false);
        assert_eq!(s.text(), "éﬁ");
        assert_eq!(s.original_span(0, 1), (0, 1));
        let mut s = NormalizedString::new("e\u{301}ﬁ");
        compose(&mut s, true);
        assert_eq!(s.text(), "éfi");
        assert_eq!(s.original_span(1, 3), (2, 3));
    }
}
