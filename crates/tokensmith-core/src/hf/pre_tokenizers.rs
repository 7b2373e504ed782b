//! Pre-tokenizers: BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits,
//! CharDelimiterSplit, Metaspace, Split, ByteLevel, UnicodeScripts, FixedLength and Sequence.
//!
//! A pre-tokenizer cuts the normalized string into words, each a [`NormalizedString`] that
//! keeps its characters' spans in the original text (Metaspace also rewrites characters).
//!
//! ```
//! use tokensmith_core::hf::pre_tokenizers::PreTokenizer;
//! let chars: Vec<char> = "don't stop".chars().collect();
//! assert_eq!(PreTokenizer::Bert.split(&chars), vec![(0, 3), (3, 4), (4, 5), (6, 10)]);
//! ```

use super::byte_level::ByteLevel;
use super::char_props::{is_onig_word, is_punctuation};
use super::metaspace::Metaspace;
use super::normalized::NormalizedString;
use super::regex_split::Split;
use super::split::{char_spans, cut, Behavior};
use super::unicode_scripts::{fixed_length, script_runs};

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
    /// Splits at punctuation (BERT's definition), with a behavior.
    Punctuation(Behavior),
    /// Splits at numeric characters: each alone (`individual`) or runs of them.
    Digits { individual: bool },
    /// Splits at one character, which is removed.
    CharDelimiterSplit(char),
    /// SentencePiece's `▁` marking.
    Metaspace(Metaspace),
    /// A string or regex split.
    Split(Box<Split>),
    /// GPT-2's byte-level spelling (and regex).
    ByteLevel(ByteLevel),
    /// Each pre-tokenizer splits the words of the one before.
    Sequence(Vec<PreTokenizer>),
    /// Cuts where the Unicode script changes ([`super::unicode_scripts`]).
    UnicodeScripts,
    /// Cuts every `n` characters (`n > 0`).
    FixedLength(usize),
}

/// What the BertPreTokenizer does with one character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BertRole {
    /// Whitespace: ends the current word and is dropped.
    Space,
    /// Punctuation: a word of its own.
    Alone,
    /// Anything else: grows the current word.
    Word,
}

/// The BertPreTokenizer's rule for `c` (see [`BertRole`]).
pub(super) fn bert_role(c: char) -> BertRole {
    if c.is_whitespace() {
        BertRole::Space
    } else if is_bert_punctuation(c) {
        BertRole::Alone
    } else {
        BertRole::Word
    }
}

pub(super) fn is_bert_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    is_punctuation(c)
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

/// The words of one piece of text, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Words {
    /// The piece (rewritten by Metaspace or ByteLevel) and its words as ranges of its
    /// characters; no range is empty.
    Ranges(NormalizedString, Vec<(usize, usize)>),
    /// Each word as its own string (after a Sequence); none is empty.
    Owned(Vec<NormalizedString>),
}

impl PreTokenizer {
    /// The words of a piece, without copying them out of it when the pre-tokenizer only
    /// cuts (or rewrites the piece as a whole). Fails only when a Split regex gives up.
    pub fn cut_words(&self, piece: NormalizedString) -> crate::Result<Words> {
        let (piece, mut ranges) = match self {
            PreTokenizer::Metaspace(m) => m.cut(piece),
            PreTokenizer::ByteLevel(b) => b.cut(piece),
            PreTokenizer::Split(s) => {
                let ranges = s.split(&piece)?;
                (piece, ranges)
            }
            PreTokenizer::Sequence(all) => match Self::cut_sequence(all, piece)? {
                Ok(cut) => cut,
                Err(piece) => return Ok(Words::Owned(self.words_of(piece)?)),
            },
            _ => {
                let ranges = self.split(piece.chars());
                (piece, ranges)
            }
        };
        ranges.retain(|(s, e)| e > s);
        Ok(Words::Ranges(piece, ranges))
    }

    /// A `Sequence` whose steps only cut the text, the last one possibly a ByteLevel without
    /// a prefix space, as ranges of one piece (no string per word); any other sequence gives
    /// the piece back (as the inner `Err`).
    #[allow(clippy::type_complexity)]
    fn cut_sequence(
        all: &[PreTokenizer],
        piece: NormalizedString,
    ) -> crate::Result<Result<(NormalizedString, Vec<(usize, usize)>), NormalizedString>> {
        let (cuts, byte_level) = match all.split_last() {
            Some((PreTokenizer::ByteLevel(b), cuts)) if !b.add_prefix_space => (cuts, Some(b)),
            _ => (all, None),
        };
        if !cuts.iter().all(PreTokenizer::only_cuts) {
            return Ok(Err(piece));
        }
        let mut ranges = if piece.is_empty() {
            Vec::new()
        } else {
            vec![(0, piece.len())]
        };
        let mut next = Vec::new();
        for p in cuts {
            next.clear();
            for &(s, e) in &ranges {
                let chars = &piece.chars()[s..e];
                let words = match p {
                    PreTokenizer::Split(split) => split.split_chars(chars)?,
                    _ => p.split(chars),
                };
                next.extend(
                    words
                        .into_iter()
                        .filter(|(a, b)| b > a)
                        .map(|(a, b)| (a + s, b + s)),
                );
            }
            std::mem::swap(&mut ranges, &mut next);
        }
        Ok(Ok(match byte_level {
            Some(b) => b.cut_within(piece, ranges),
            None => (piece, ranges),
        }))
    }

    /// Whether this pre-tokenizer only cuts the text into words (never rewrites it).
    fn only_cuts(&self) -> bool {
        !matches!(
            self,
            PreTokenizer::Metaspace(_) | PreTokenizer::ByteLevel(_) | PreTokenizer::Sequence(_)
        )
    }

    /// The words of the whole normalized string, in order; none is empty.
    pub fn pre_tokenize(&self, text: NormalizedString) -> crate::Result<Vec<NormalizedString>> {
        self.words_of(text)
    }

    fn words_of(&self, piece: NormalizedString) -> crate::Result<Vec<NormalizedString>> {
        let sliced = |ranges: Vec<(usize, usize)>| -> Vec<NormalizedString> {
            ranges
                .into_iter()
                .filter(|(s, e)| e > s)
                .map(|(s, e)| piece.slice(s, e))
                .collect()
        };
        Ok(match self {
            PreTokenizer::Metaspace(m) => m.pre_tokenize(piece),
            PreTokenizer::ByteLevel(b) => b.pre_tokenize(piece),
            PreTokenizer::Split(s) => sliced(s.split(&piece)?),
            PreTokenizer::Sequence(all) => {
                let mut words = vec![piece];
                for p in all {
                    let mut next = Vec::with_capacity(words.len());
                    for w in words {
                        next.extend(p.words_of(w)?);
                    }
                    words = next;
                }
                words.retain(|w| !w.is_empty());
                words
            }
            _ => sliced(self.split(piece.chars())),
        })
    }

    /// The words of `chars`, as `(start, end)` ranges in order, for the pre-tokenizers
    /// that only cut (Metaspace and ByteLevel rewrite characters: use
    /// [`Self::pre_tokenize`] for them).
    pub fn split(&self, chars: &[char]) -> Vec<(usize, usize)> {
        match self {
            PreTokenizer::Bert => split_bert(chars),
            PreTokenizer::WhitespaceSplit => split_runs(chars, |c| u8::from(!c.is_whitespace())),
            PreTokenizer::Whitespace => split_runs(chars, whitespace_class),
            PreTokenizer::Punctuation(b) => cut(&char_spans(chars, is_bert_punctuation), *b),
            PreTokenizer::Digits { individual } => {
                let b = if *individual {
                    Behavior::Isolated
                } else {
                    Behavior::Contiguous
                };
                cut(&char_spans(chars, char::is_numeric), b)
            }
            PreTokenizer::CharDelimiterSplit(d) => {
                cut(&char_spans(chars, |c| c == *d), Behavior::Removed)
            }
            PreTokenizer::UnicodeScripts => script_runs(chars),
            PreTokenizer::FixedLength(n) => fixed_length(chars, *n),
            PreTokenizer::Metaspace(_)
            | PreTokenizer::Split(_)
            | PreTokenizer::ByteLevel(_)
            | PreTokenizer::Sequence(_) => {
                let text: NormalizedString =
                    NormalizedString::new(&chars.iter().collect::<String>());
                // Encoding goes through `cut_words`, which reports a Split that gives up;
                // here such a text stays one word.
                match self.words_of(text) {
                    Ok(words) => words.iter().map(|w| w.original_span(0, w.len())).collect(),
                    Err(_) => vec![(0, chars.len())],
                }
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
        let role = bert_role(c);
        if role == BertRole::Word {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            words.push((s, i));
        }
        if role == BertRole::Alone {
            words.push((i, i + 1));
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

    #[test]
    fn digits_and_punctuation() {
        let p = PreTokenizer::Sequence(vec![
            PreTokenizer::WhitespaceSplit,
            PreTokenizer::Digits { individual: true },
        ]);
        assert_eq!(words(&p, "ab12 3²"), ["ab", "1", "2", "3", "²"]);
        let p = PreTokenizer::Digits { individual: false };
        assert_eq!(words(&p, "ab12c"), ["ab", "12", "c"]);
        let p = PreTokenizer::Punctuation(Behavior::Isolated);
        assert_eq!(words(&p, "a,b!"), ["a", ",", "b", "!"]);
        let p = PreTokenizer::CharDelimiterSplit('-');
        assert_eq!(words(&p, "a-b--c"), ["a", "b", "c"]);
    }
}
