//! Metaspace: SentencePiece's word marking, as an HF pre-tokenizer and decoder.
//!
//! Spaces become `▁` (the `replacement`), a `▁` is put before the text (`prepend_scheme`:
//! `always`, only before the `first` piece of the text, or `never`), and with `split` each
//! `▁` starts a new word. Decoding turns `▁` back into spaces, dropping those of the first
//! token when a `▁` was prepended.
//!
//! ```
//! use tokensmith_core::hf::metaspace::{Metaspace, Prepend};
//! use tokensmith_core::hf::NormalizedString;
//! let m = Metaspace { replacement: '▁', prepend: Prepend::Always, split: true };
//! let words: Vec<String> = m
//!     .pre_tokenize(NormalizedString::new("Hey  you"))
//!     .iter()
//!     .map(NormalizedString::text)
//!     .collect();
//! assert_eq!(words, ["▁Hey", "▁", "▁you"]);
//! assert_eq!(m.decode_chain(&["▁Hey".into(), "▁".into(), "▁you".into()]).concat(), "Hey  you");
//! ```

use super::normalized::NormalizedString;

/// The words of `chars` when each `mark` starts a new one (HF's `MergedWithNext` split at
/// `mark`): a word ends before every `mark` but the first character.
fn words_before_each(chars: &[char], mark: char) -> Vec<(usize, usize)> {
    let mut words = Vec::with_capacity(chars.len() / 4 + 1);
    let mut start = 0;
    for (i, &c) in chars.iter().enumerate().skip(1) {
        if c == mark {
            words.push((start, i));
            start = i;
        }
    }
    if !chars.is_empty() {
        words.push((start, chars.len()));
    }
    words
}

/// When a `▁` is put before the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepend {
    Always,
    First,
    Never,
}

impl Prepend {
    /// The scheme named as in `tokenizer.json`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "always" => Self::Always,
            "first" => Self::First,
            "never" => Self::Never,
            _ => return None,
        })
    }
}

/// The Metaspace pre-tokenizer and decoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metaspace {
    pub replacement: char,
    pub prepend: Prepend,
    pub split: bool,
}

impl Metaspace {
    /// The words of one piece.
    pub fn pre_tokenize(&self, piece: NormalizedString) -> Vec<NormalizedString> {
        let (piece, words) = self.cut(piece);
        words.into_iter().map(|(s, e)| piece.slice(s, e)).collect()
    }

    /// The piece with its spaces replaced (and `▁` prepended), and its words as ranges of
    /// its characters.
    pub fn cut(&self, mut piece: NormalizedString) -> (NormalizedString, Vec<(usize, usize)>) {
        piece.replace_char(' ', self.replacement);
        let starts_marked = piece.chars().first() == Some(&self.replacement);
        let prepend = match self.prepend {
            Prepend::Always => !starts_marked,
            Prepend::First => !starts_marked && piece.original_start() == 0,
            Prepend::Never => false,
        };
        if prepend {
            piece.prepend(self.replacement);
        }
        let words = if !self.split {
            if piece.is_empty() {
                vec![]
            } else {
                vec![(0, piece.len())]
            }
        } else {
            words_before_each(piece.chars(), self.replacement)
        };
        (piece, words)
    }

    /// Each token with `▁` turned into spaces (none in the first token when prepending).
    pub fn decode_chain(&self, tokens: &[String]) -> Vec<String> {
        tokens
            .iter()
            .enumerate()
            .map(|(i, t)| {
                t.chars()
                    .filter_map(|c| match c {
                        c if c != self.replacement => Some(c),
                        _ if i == 0 && self.prepend != Prepend::Never => None,
                        _ => Some(' '),
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hf::split::{char_spans, cut, Behavior};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn words_are_the_merged_with_next_split(text in "[▁a ▁▁b]{0,24}") {
            let chars: Vec<char> = text.chars().collect();
            let by_cut = cut(&char_spans(&chars, |c| c == '▁'), Behavior::MergedWithNext);
            prop_assert_eq!(words_before_each(&chars, '▁'), by_cut);
        }
    }

    fn words(m: &Metaspace, piece: NormalizedString) -> Vec<(String, (usize, usize))> {
        m.pre_tokenize(piece)
            .iter()
            .map(|p| (p.text(), p.original_span(0, p.len())))
            .collect()
    }

    #[test]
    fn prepend_schemes() {
        let mut m = Metaspace {
            replacement: '▁',
            prepend: Prepend::First,
            split: true,
        };
        let text = NormalizedString::new("ab cd");
        assert_eq!(
            words(&m, text.slice(3, 5)),
            [("cd".to_string(), (3, 5))],
            "not the first piece"
        );
        assert_eq!(
            words(&m, text.clone()),
            [("▁ab".to_string(), (0, 2)), ("▁cd".to_string(), (2, 5))]
        );
        m.prepend = Prepend::Never;
        m.split = false;
        assert_eq!(words(&m, text), [("ab▁cd".to_string(), (0, 5))]);
        assert!(words(&m, NormalizedString::new("")).is_empty());
    }
}
