//! Pre-tokenizers: BertPreTokenizer, Whitespace, WhitespaceSplit and Sequence.
//!
//! A pre-tokenizer cuts the normalized string into words, as ranges of normalized characters.
//!
//! ```
//! use tokensmith_core::hf::pre_tokenizers::PreTokenizer;
//! let chars: Vec<char> = "don't stop".chars().collect();
//! assert_eq!(PreTokenizer::Bert.split(&chars), vec![(0, 3), (3, 4), (4, 5), (6, 10)]);
//! ```
//!
//! Not handled yet: ByteLevel, Metaspace, Punctuation, Digits, Split, CharDelimiterSplit,
//! UnicodeScripts and FixedLength.

use super::char_props::{is_onig_word, is_punctuation};

/// One pre-tokenizer of a `tokenizer.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreTokenizer {
    /// Splits on whitespace (removed), then isolates each punctuation character.
    Bert,
    /// HF's `\w+|[^\w\s]+` (Oniguruma classes): runs of word characters and runs of other
    /// non-space characters; whitespace is dropped.
    Whitespace,
    /// Splits on whitespace, which is removed.
    WhitespaceSplit,
    /// Each pre-tokenizer splits the words of the one before.
    Sequence(Vec<PreTokenizer>),
}

fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || is_punctuation(c)
}

/// The class of a character for the Whitespace pre-tokenizer: 0 space, 1 word, 2 other.
fn whitespace_class(c: char) -> u8 {
    if c.is_whitespace() {
        0
    } else if is_onig_word(c) {
        1
    } else {
        2
    }
}

impl PreTokenizer {
    /// The words of `chars`, as `(start, end)` ranges in order.
    pub fn split(&self, chars: &[char]) -> Vec<(usize, usize)> {
        match self {
            PreTokenizer::Bert => split_bert(chars),
            PreTokenizer::WhitespaceSplit => split_runs(chars, |c| u8::from(!c.is_whitespace())),
            PreTokenizer::Whitespace => split_runs(chars, whitespace_class),
            PreTokenizer::Sequence(all) => {
                let mut words = vec![(0, chars.len())];
                if chars.is_empty() {
                    words.clear();
                }
                for p in all {
                    words = words
                        .into_iter()
                        .flat_map(|(s, e)| {
                            p.split(&chars[s..e])
                                .into_iter()
                                .map(move |(a, b)| (s + a, s + b))
                        })
                        .collect();
                }
                words
            }
        }
    }
}

/// Maximal runs of characters of one non-zero class; class 0 is dropped.
fn split_runs(chars: &[char], class: impl Fn(char) -> u8) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut run: Option<(usize, u8)> = None;
    for (i, &c) in chars.iter().enumerate() {
        let k = class(c);
        match run {
            Some((_, rk)) if rk == k => {}
            _ => {
                if let Some((s, _)) = run.take() {
                    words.push((s, i));
                }
                if k != 0 {
                    run = Some((i, k));
                }
            }
        }
    }
    if let Some((s, _)) = run {
        words.push((s, chars.len()));
    }
    words
}

fn split_bert(chars: &[char]) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_whitespace() || is_bert_punctuation(c) {
            if let Some(s) = start.take() {
                words.push((s, i));
            }
            if !c.is_whitespace() {
                words.push((i, i + 1));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        words.push((s, chars.len()));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(p: &PreTokenizer, text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        p.split(&chars)
            .into_iter()
            .map(|(s, e)| chars[s..e].iter().collect())
            .collect()
    }

    #[test]
    fn bert_isolates_punctuation() {
        assert_eq!(
            words(&PreTokenizer::Bert, " Hey,  you...¿\u{3000}x$ "),
            ["Hey", ",", "you", ".", ".", ".", "¿", "x", "$"]
        );
    }

    #[test]
    fn whitespace_split() {
        assert_eq!(
            words(&PreTokenizer::WhitespaceSplit, " a,b \t c "),
            ["a,b", "c"]
        );
    }

    #[test]
    fn whitespace_groups_word_and_other_runs() {
        assert_eq!(
            words(&PreTokenizer::Whitespace, "Hey, you...xⅫ_y!? a²b ok"),
            ["Hey", ",", "you", "...", "xⅫ_y", "!?", "a", "²", "b", "ok"]
        );
    }

    #[test]
    fn sequence_splits_each_word() {
        let p = PreTokenizer::Sequence(vec![PreTokenizer::WhitespaceSplit, PreTokenizer::Bert]);
        assert_eq!(words(&p, "a.b  c"), ["a", ".", "b", "c"]);
        assert!(p.split(&[]).is_empty());
    }
}
