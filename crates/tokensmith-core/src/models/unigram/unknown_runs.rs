//! Runs of unknown pieces as the word cache keeps them: one span per run.
//!
//! The Viterbi gives one unknown piece per character that no piece covers. The processor
//! merges a run of them into one unknown id anyway, so the word cache keeps a Unigram word
//! with such a run as one span over the run ([`merge_runs`]): a word of Cyrillic or Thai
//! under an English model then has a few pieces instead of one per character, fits a short
//! slot, and its ids need no merging when they are read back. Nothing is lost: every unknown
//! piece is exactly one character (the lattice's unknown node is one character long, and the
//! unknown id names no piece of the trie, see `Unigram::new`), so the run's text gives back
//! its pieces ([`push_chars`]) and their number ([`chars_in`]), which the score before a word
//! segmented in context needs.

use super::model::Span;

/// The number of characters in `bytes` (whole UTF-8 characters): the bytes that are not
/// continuation bytes.
#[inline]
pub(crate) fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Writes `spans` into `out` (cleared first) with each run of consecutive `unk` spans made
/// one span from the run's start to its end.
pub(crate) fn merge_runs(spans: &[Span], unk: u32, out: &mut Vec<Span>) {
    out.clear();
    for &(start, end, id) in spans {
        match out.last_mut() {
            Some(last) if id == unk && last.2 == unk => last.1 = end,
            _ => out.push((start, end, id)),
        }
    }
}

/// Appends one `unk` span per character of `text[start..end]`: the pieces of a merged run.
#[inline]
pub(crate) fn push_chars(text: &[u8], start: usize, end: usize, unk: u32, out: &mut Vec<Span>) {
    let mut from = start;
    for (at, &byte) in text[start..end].iter().enumerate().skip(1) {
        if (byte as i8) >= -0x40 {
            out.push((from, start + at, unk));
            from = start + at;
        }
    }
    if from < end {
        out.push((from, end, unk));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of a text as the Viterbi gives them when some characters are unknown: a
    /// known piece of one or two characters, or one unknown piece per character.
    fn viterbi_like(text: &str, known: &[&str], unk: u32) -> Vec<Span> {
        let mut spans = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let rest = &text[at..];
            if let Some(k) = known.iter().position(|k| rest.starts_with(k)) {
                spans.push((at, at + known[k].len(), k as u32 + 1));
                at += known[k].len();
            } else {
                let len = rest.chars().next().map_or(1, char::len_utf8);
                spans.push((at, at + len, unk));
                at += len;
            }
        }
        spans
    }

    /// Merging then expanding each run character by character gives the pieces back, and a
    /// run's character count is its number of pieces, on texts of one- to four-byte
    /// characters.
    #[test]
    fn merged_runs_expand_to_the_same_pieces() {
        let alphabet = ['a', 'b', 'é', 'я', '語', '😀', '\u{2581}'];
        let known = ["a", "ab", "\u{2581}a", "é"];
        let unk = 0;
        let mut rng = super::super::sample::SplitMix64::new(11);
        let mut merged = Vec::new();
        for _ in 0..3000 {
            let len = (rng.next_u64() % 20) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize])
                .collect();
            let spans = viterbi_like(&text, &known, unk);
            merge_runs(&spans, unk, &mut merged);
            let mut expanded = Vec::new();
            let mut count = 0;
            for &(s, e, id) in &merged {
                if id == unk {
                    push_chars(text.as_bytes(), s, e, unk, &mut expanded);
                    count += chars_in(&text.as_bytes()[s..e]);
                } else {
                    expanded.push((s, e, id));
                }
            }
            assert_eq!(expanded, spans, "{text:?}");
            assert_eq!(
                count,
                spans.iter().filter(|s| s.2 == unk).count(),
                "{text:?}"
            );
            // No two unknown spans follow each other once merged.
            assert!(
                merged.windows(2).all(|w| w[0].2 != unk || w[1].2 != unk),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_run_becomes_one_span() {
        let text = "▁яяa";
        let spans = [(0, 3, 5), (3, 5, 0), (5, 7, 0), (7, 8, 6)];
        let mut merged = Vec::new();
        merge_runs(&spans, 0, &mut merged);
        assert_eq!(merged, [(0, 3, 5), (3, 7, 0), (7, 8, 6)]);
        assert_eq!(chars_in(&text.as_bytes()[3..7]), 2);
    }
}
