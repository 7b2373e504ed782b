//! sentencepiece's `char` and `word` models (`char_model.cc`, `word_model.cc`): no search,
//! the normalized text is cut and each part looked up whole.
//!
//! - `char`: one character at a time, or the longest user-defined symbol that starts there;
//! - `word`: before each `▁` (the text's start begins a word too), whatever
//!   `treat_whitespace_as_suffix` says, as sentencepiece's word model cuts.
//!
//! A part that is not a piece gets the unknown id; the processor then merges unknown runs or
//! spells them in bytes, as for every model. There is nothing to sample and no n-best list:
//! sentencepiece offers neither for these models.
//!
//! ```
//! use tokensmith_core::models::sentencepiece_split::{Split, SplitModel};
//! let model = SplitModel::new(Split::Word, &[]);
//! let mut spans = Vec::new();
//! model.segment_into("▁a▁bc", &mut spans, |piece| if piece == "▁a" { 3 } else { 0 });
//! assert_eq!(spans, [(0, 4, 3), (4, 9, 0)]);
//! ```

use super::sentencepiece_parts::{split_words, UserSymbols};
use super::unigram::Span;

/// How a [`SplitModel`] cuts text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Char,
    Word,
}

/// A `char` or `word` model: how it cuts, and the user-defined symbols a `char` model keeps
/// whole.
#[derive(Debug, Clone)]
pub struct SplitModel {
    split: Split,
    user_defined: UserSymbols,
}

impl SplitModel {
    /// A model that cuts by `split`; `user_defined` lists the model's user-defined symbols
    /// (only a `char` model matches them; sentencepiece's word model does not).
    pub fn new(split: Split, user_defined: &[&str]) -> Self {
        let user_defined = match split {
            Split::Char => UserSymbols::new(user_defined.iter().zip(0..).map(|(s, i)| (*s, i))),
            Split::Word => UserSymbols::default(),
        };
        Self {
            split,
            user_defined,
        }
    }

    /// How the model cuts.
    pub fn split(&self) -> Split {
        self.split
    }

    /// The parts of `normalized` into `spans` (cleared first), each with `id_of(part)`.
    pub fn segment_into(
        &self,
        normalized: &str,
        spans: &mut Vec<Span>,
        id_of: impl Fn(&str) -> u32,
    ) {
        spans.clear();
        match self.split {
            Split::Word => {
                let mut start = 0;
                for word in split_words(normalized, false) {
                    let end = start + word.len();
                    spans.push((start, end, id_of(word)));
                    start = end;
                }
            }
            Split::Char => {
                let mut start = 0;
                while start < normalized.len() {
                    let (len, _) = self.user_defined.part_at(&normalized[start..]);
                    let end = start + len;
                    spans.push((start, end, id_of(&normalized[start..end])));
                    start = end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(model: &SplitModel, text: &str) -> Vec<String> {
        let mut spans = Vec::new();
        model.segment_into(text, &mut spans, |_| 0);
        spans
            .iter()
            .map(|&(s, e, _)| text[s..e].to_string())
            .collect()
    }

    #[test]
    fn chars_keep_user_defined_symbols_whole() {
        let model = SplitModel::new(Split::Char, &["<sep>", "<se"]);
        assert_eq!(parts(&model, "▁a<sep>é"), ["▁", "a", "<sep>", "é"]);
        assert_eq!(parts(&model, "<s"), ["<", "s"]);
        assert!(parts(&model, "").is_empty());
    }

    #[test]
    fn words_start_at_each_space_mark() {
        let model = SplitModel::new(Split::Word, &["<sep>"]);
        assert_eq!(parts(&model, "a▁b▁▁c▁"), ["a", "▁b", "▁", "▁c", "▁"]);
        assert_eq!(parts(&model, "▁x<sep>"), ["▁x<sep>"]);
    }
}
