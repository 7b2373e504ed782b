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

use super::unigram::PieceTrie;

/// The whitespace marker.
const SPACE: char = '\u{2581}';

/// Splits a normalized sentence into words: a new word starts at each `▁` (or, with
/// `suffix`, ends after each `▁`).
pub fn split_words(text: &str, suffix: bool) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0;
    for (pos, c) in text.char_indices() {
        if c != SPACE {
            continue;
        }
        if suffix {
            let end = pos + c.len_utf8();
            words.push(&text[start..end]);
            start = end;
        } else if pos > start {
            words.push(&text[start..pos]);
            start = pos;
        }
    }
    if start < text.len() {
        words.push(&text[start..]);
    }
    words
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
