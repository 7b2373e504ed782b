//! How sentencepiece cuts normalized text before a model sees it, shared by its models and
//! trainers: words start at each `▁` ([`split_words`]), and the `char` and BPE models take
//! the longest user-defined symbol at a place whole, else one character
//! ([`UserSymbols::part_at`]).
//!
//! ```
//! use tokensmith_core::models::sentencepiece_parts::{split_words, UserSymbols};
//! assert_eq!(split_words("▁a▁bc▁▁d", false), ["▁a", "▁bc", "▁", "▁d"]);
//! assert_eq!(split_words("a▁bc▁", true), ["a▁", "bc▁"]);
//! let symbols = UserSymbols::new(["<sep>", "<se"].into_iter().enumerate().map(|(i, s)| (s, i as u32)));
//! assert_eq!(symbols.part_at("<sep>x"), (5, Some(0)));
//! assert_eq!(symbols.part_at("éx"), (2, None));
//! ```

use super::unigram::{next_mark, PieceTrie, MARK};

/// Splits a normalized sentence into words: a new word starts at each `▁` (or, with
/// `suffix`, ends after each `▁`).
pub fn split_words(text: &str, suffix: bool) -> Vec<&str> {
    words_of(text, suffix).collect()
}

/// The words of [`split_words`], one at a time (no list is made).
pub fn words_of(text: &str, suffix: bool) -> Words<'_> {
    Words {
        text,
        start: 0,
        suffix,
    }
}

/// The iterator of [`words_of`].
#[derive(Debug, Clone)]
pub struct Words<'a> {
    text: &'a str,
    /// Where the next word starts.
    start: usize,
    suffix: bool,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (text, start) = (self.text, self.start);
        if start >= text.len() {
            return None;
        }
        // A word starts with its `▁` (ends with it, with `suffix`).
        let bytes = text.as_bytes();
        let end = if self.suffix {
            (next_mark(bytes, start) + MARK.len()).min(text.len())
        } else {
            next_mark(bytes, start + 1)
        };
        self.start = end;
        text.get(start..end)
    }
}

/// A model's user-defined symbols, matched longest first.
#[derive(Debug, Clone, Default)]
pub struct UserSymbols {
    trie: Option<PieceTrie>,
}

impl UserSymbols {
    /// The symbols `(text, id)`; none makes every part one character.
    pub fn new<'a>(symbols: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        let mut trie: Option<PieceTrie> = None;
        for (text, id) in symbols {
            if !text.is_empty() {
                trie.get_or_insert_with(PieceTrie::new)
                    .insert(text.as_bytes(), id);
            }
        }
        Self { trie }
    }

    /// The longest user-defined symbol that starts `rest`: its byte length and id.
    #[inline]
    pub fn longest_at(&self, rest: &str) -> Option<(usize, u32)> {
        let trie = self.trie.as_ref()?;
        let mut found = None;
        trie.common_prefixes(rest.as_bytes(), |len, id| found = Some((len, id)));
        found.filter(|&(len, _)| len > 0 && rest.is_char_boundary(len))
    }

    /// The first part of `rest` (not empty): its byte length, and the id of the user-defined
    /// symbol it is (`None` for one character).
    pub fn part_at(&self, rest: &str) -> (usize, Option<u32>) {
        match self.longest_at(rest) {
            Some((len, id)) => (len, Some(id)),
            None => (rest.chars().next().map_or(1, char::len_utf8), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPACE: char = '\u{2581}';

    /// Words as a walk over every character finds them.
    fn char_by_char(text: &str, suffix: bool) -> Vec<&str> {
        let mut words = Vec::new();
        let mut start = 0;
        for (pos, c) in text.char_indices() {
            if c != SPACE {
                continue;
            }
            let end = if suffix { pos + c.len_utf8() } else { pos };
            if suffix || pos > start {
                words.push(&text[start..end]);
                start = end;
            }
        }
        if start < text.len() {
            words.push(&text[start..]);
        }
        words
    }

    #[test]
    fn words_are_cut_at_each_space_marker() {
        let mut rng = crate::models::unigram::SplitMix64::new(11);
        // '⁁' (U+2041) and '∁' (U+2201) end in the last byte of '▁' (U+2581); U+2580
        // shares its first two.
        let alphabet = ['▁', 'a', '⁁', '∁', 'é', '\u{2580}'];
        for _ in 0..5_000 {
            let len = (rng.next_u64() % 8) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng.next_u64() % 6) as usize])
                .collect();
            for suffix in [false, true] {
                let want = char_by_char(&text, suffix);
                assert_eq!(split_words(&text, suffix), want, "{text:?} {suffix}");
                assert_eq!(words_of(&text, suffix).count(), want.len());
            }
        }
        assert_eq!(split_words("▁▁a▁", false), ["▁", "▁a", "▁"]);
        assert_eq!(split_words("▁▁a", true), ["▁", "▁", "a"]);
    }
}
