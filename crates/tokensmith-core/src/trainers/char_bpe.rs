//! The character-level BPE trainer: Sennrich's `</w>` words, `##`-continued subwords, and
//! SentencePiece-style Metaspace words (`▁the`), all from one merge loop.
//!
//! Words are strings (already pre-tokenized, `▁` included for Metaspace). The initial symbols
//! are their characters; a character not first in its word may carry the
//! `continuing_subword_prefix`, the last one the `end_of_word_suffix`. Merging `a` with `##b`
//! gives `ab` (the right side's prefix is dropped), and `a` with `b</w>` gives `ab</w>`.
//!
//! Ids, as HF `BpeTrainer` gives them: special tokens first, then the `reserved` tokens
//! (byte-fallback `<0x00>`..`<0xFF>`, which no word uses), then the alphabet in code point
//! order, then the prefixed/suffixed variants of alphabet characters, then learned tokens in
//! the order learned. `vocab_size` counts all of them, and ties between pairs of equal count
//! go to the smaller pair of ids ([`super::merge_loop`]).
//!
//! Two of HF's choices are left to its hash maps' iteration order, which changes from run to
//! run: which characters `limit_alphabet` drops among equally frequent ones, and the ids of
//! the variants (so HF itself learns different merges from run to run once a prefix or
//! suffix is set). Here the least frequent characters go first and, among equals, the
//! higher code point; variants are numbered in string order, or in the order given by
//! [`CharBpeTrainer::variant_order`] (which the parity tests read from HF's own vocabulary).
//!
//! ```
//! use tokensmith_core::trainers::{CharBpeTrainer, WordCounts};
//!
//! let words: WordCounts = [("low", 5u64), ("lower", 2), ("newest", 6), ("widest", 3)]
//!     .into_iter()
//!     .collect();
//! let trained = CharBpeTrainer::new(20).end_of_word_suffix("</w>").train(&words).unwrap();
//! // (e, s) and (s, t</w>) are both seen 9 times; e has the smaller id.
//! assert_eq!(trained.merges[0], ("e".to_string(), "s".to_string()));
//! assert_eq!(trained.merges[1], ("es".to_string(), "t</w>".to_string()));
//! assert_eq!(trained.vocab.len(), 20);
//! ```
//!
//! Not handled here: pre-tokenization (the caller counts words), and special tokens equal to
//! a learned token (the learned one keeps its own id).

use super::bpe::{check_specials_and_length, Compat};
use super::merge_loop::{LengthRule, MergeLoop, Scoring, Sym};
use super::setters::shared_setters;
use super::word_counts::WordCounts;
use crate::error::{Error, Result};
use rustc_hash::{FxHashMap, FxHashSet};

/// A trained character-level vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainedCharBpe {
    /// Every token, by id: specials, reserved, alphabet, variants, learned.
    pub vocab: Vec<String>,
    /// Every merge in the order learned.
    pub merges: Vec<(String, String)>,
}

/// Builder and runner of character-level BPE training.
#[derive(Debug, Clone)]
pub struct CharBpeTrainer {
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    reserved: Vec<String>,
    limit_alphabet: Option<usize>,
    initial_alphabet: Vec<char>,
    max_token_length: Option<usize>,
    prefix: Option<String>,
    suffix: Option<String>,
    variant_order: Vec<String>,
    compat: Compat,
    scoring: Scoring,
    keep_alphabet: bool,
}

shared_setters!(CharBpeTrainer, "characters, prefix and suffix not counted");

impl CharBpeTrainer {
    /// A trainer for `vocab_size` tokens in all.
    pub fn new(vocab_size: usize) -> Self {
        Self {
            vocab_size,
            min_frequency: 0,
            special_tokens: Vec::new(),
            reserved: Vec::new(),
            limit_alphabet: None,
            initial_alphabet: Vec::new(),
            max_token_length: None,
            prefix: None,
            suffix: None,
            variant_order: Vec::new(),
            compat: Compat::Hf,
            scoring: Scoring::Frequency,
            keep_alphabet: false,
        }
    }

    /// A `vocab_size` below the special and reserved tokens plus the alphabet keeps them
    /// all and learns no merge, as HF's `BpeTrainer` does, instead of failing.
    #[must_use]
    pub fn keep_alphabet(mut self, on: bool) -> Self {
        self.keep_alphabet = on;
        self
    }

    /// Tokens given the ids right after the specials that words never use (byte fallback).
    #[must_use]
    pub fn reserved<S: Into<String>>(mut self, tokens: impl IntoIterator<Item = S>) -> Self {
        self.reserved = tokens.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps at most this many characters in the alphabet (the most frequent ones; the
    /// `initial_alphabet` first). Words lose the characters dropped.
    #[must_use]
    pub fn limit_alphabet(mut self, n: Option<usize>) -> Self {
        self.limit_alphabet = n;
        self
    }

    /// Characters in the alphabet whether the corpus has them or not.
    #[must_use]
    pub fn initial_alphabet(mut self, chars: impl IntoIterator<Item = char>) -> Self {
        self.initial_alphabet = chars.into_iter().collect();
        self
    }

    /// The prefix of every symbol that does not start its word (`##`).
    #[must_use]
    pub fn continuing_subword_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into()).filter(|p| !p.is_empty());
        self
    }

    /// The suffix of the symbol that ends its word (`</w>`).
    #[must_use]
    pub fn end_of_word_suffix(mut self, suffix: impl Into<String>) -> Self {
        self.suffix = Some(suffix.into()).filter(|s| !s.is_empty());
        self
    }

    /// The order of the variants' ids, for those listed (the rest follow in string order).
    #[must_use]
    pub fn variant_order<S: Into<String>>(mut self, order: impl IntoIterator<Item = S>) -> Self {
        self.variant_order = order.into_iter().map(Into::into).collect();
        self
    }

    /// How each merge is chosen (see [`Scoring`]).
    #[must_use]
    pub fn scoring(mut self, scoring: Scoring) -> Self {
        self.scoring = scoring;
        self
    }

    /// Checks the options on their own, before any counting.
    pub fn validate(&self) -> Result<()> {
        check_specials_and_length(
            self.special_tokens.iter().chain(&self.reserved),
            self.max_token_length,
        )?;
        if let Some(s) = self.special_tokens.iter().find(|s| s.chars().count() == 1) {
            return Err(Error::InvalidOption(format!(
                "the special token {s:?} is a single character, which the alphabet may \
                 hold too; use a longer special token"
            )));
        }
        if self.limit_alphabet == Some(0) {
            return Err(Error::InvalidOption(
                "limit_alphabet must be at least 1".into(),
            ));
        }
        let fixed = self.special_tokens.len() + self.reserved.len();
        if self.vocab_size <= fixed && !self.keep_alphabet {
            return Err(Error::InvalidOption(format!(
                "vocab_size={} leaves no room beside the {fixed} special and reserved tokens; \
                 use vocab_size > {fixed}",
                self.vocab_size
            )));
        }
        Ok(())
    }

    /// Learns merges from word counts.
    pub fn train(&self, words: &WordCounts) -> Result<TrainedCharBpe> {
        self.train_with_progress(words, |_| true)
    }

    /// Like [`train`](Self::train), calling `progress(n)` after the n-th merge; training
    /// stops there when `progress` returns false.
    pub fn train_with_progress(
        &self,
        words: &WordCounts,
        progress: impl FnMut(usize) -> bool,
    ) -> Result<TrainedCharBpe> {
        self.validate()?;
        let words = decode_words(words)?;
        if words.is_empty() {
            return Err(Error::EmptyCorpus);
        }
        let alphabet = self.alphabet(&words);
        let fixed = self.special_tokens.len() + self.reserved.len();
        let floor = fixed + alphabet.len();
        if self.vocab_size < floor && !self.keep_alphabet {
            return Err(Error::InvalidOption(format!(
                "vocab_size={} is smaller than the alphabet of {} characters plus {fixed} \
                 special and reserved tokens; use vocab_size >= {floor} or a smaller \
                 limit_alphabet",
                self.vocab_size,
                alphabet.len()
            )));
        }
        let mut state = self.start(&words, &alphabet);
        if self.scoring == Scoring::Likelihood {
            state.use_likelihood();
        }
        let merges = state.run(
            self.vocab_size.saturating_sub(fixed),
            self.min_frequency,
            progress,
        );
        let text = |id: Sym| -> String {
            // Every token is a concatenation of whole characters and the prefix/suffix.
            String::from_utf8_lossy(&state.tokens()[id as usize]).into_owned()
        };
        let merges = merges
            .iter()
            .map(|m| (text(m.left), text(m.right)))
            .collect();
        let vocab = self
            .special_tokens
            .iter()
            .chain(&self.reserved)
            .cloned()
            .chain((0..state.tokens().len() as Sym).map(text))
            .collect();
        Ok(TrainedCharBpe { vocab, merges })
    }

    /// The kept characters in code point order.
    fn alphabet(&self, words: &[(String, u64)]) -> Vec<char> {
        let mut counts: FxHashMap<char, u64> = FxHashMap::default();
        for (w, n) in words {
            for c in w.chars() {
                *counts.entry(c).or_insert(0) += n;
            }
        }
        for &c in &self.initial_alphabet {
            counts.insert(c, u64::MAX);
        }
        let mut kept: Vec<(char, u64)> = counts.into_iter().collect();
        if let Some(limit) = self.limit_alphabet {
            if kept.len() > limit {
                // The most frequent first; among equals, the lower code point.
                kept.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                kept.truncate(limit);
            }
        }
        let mut chars: Vec<char> = kept.into_iter().map(|(c, _)| c).collect();
        chars.sort_unstable();
        chars
    }

    /// The symbol string of character `c` at a position of its word.
    fn symbol(&self, c: char, first: bool, last: bool) -> String {
        let mut s = String::new();
        if !first {
            if let Some(p) = &self.prefix {
                s.push_str(p);
            }
        }
        s.push(c);
        if last {
            if let Some(x) = &self.suffix {
                s.push_str(x);
            }
        }
        s
    }

    /// The merge loop over the alphabet and its variants.
    fn start(&self, words: &[(String, u64)], alphabet: &[char]) -> MergeLoop {
        let mut ids: FxHashMap<String, Sym> = alphabet
            .iter()
            .enumerate()
            .map(|(i, c)| (c.to_string(), i as Sym))
            .collect();
        let in_alphabet: FxHashSet<char> = alphabet.iter().copied().collect();
        let symbols_of = |word: &str| -> Vec<String> {
            let n = word.chars().count();
            word.chars()
                .enumerate()
                .filter(|(_, c)| in_alphabet.contains(c))
                .map(|(i, c)| self.symbol(c, i == 0, i + 1 == n))
                .collect()
        };
        let mut variants: FxHashSet<String> = FxHashSet::default();
        for (w, _) in words {
            for s in symbols_of(w) {
                if !ids.contains_key(&s) {
                    variants.insert(s);
                }
            }
        }
        let mut ordered: Vec<String> = Vec::with_capacity(variants.len());
        for v in &self.variant_order {
            if variants.remove(v) {
                ordered.push(v.clone());
            }
        }
        let mut rest: Vec<String> = variants.into_iter().collect();
        rest.sort_unstable();
        ordered.extend(rest);
        let mut tokens: Vec<Vec<u8>> = alphabet.iter().map(|c| c.to_string().into()).collect();
        for v in ordered {
            ids.insert(v.clone(), tokens.len() as Sym);
            tokens.push(v.into_bytes());
        }
        let mut list: Vec<(Vec<Sym>, u64)> = words
            .iter()
            .map(|(w, n)| (symbols_of(w).iter().map(|s| ids[s]).collect(), *n))
            .filter(|(syms, _): &(Vec<Sym>, u64)| syms.len() > 1)
            .collect();
        list.sort_unstable();
        let rule = match (self.max_token_length, self.compat) {
            (None, _) => LengthRule::Unlimited,
            (Some(n), Compat::Hf) => LengthRule::HfStrictlyBelow(n),
            (Some(n), Compat::Ranks) => LengthRule::AtMost(n),
        };
        let units = vec![1; tokens.len()];
        let prefix = self.prefix.clone().unwrap_or_default().into_bytes();
        MergeLoop::with_units(tokens, units, prefix, list, rule)
    }
}

/// The words as strings; they were counted from `str`s, so invalid UTF-8 is a caller bug
/// reported as an error rather than a panic.
fn decode_words(words: &WordCounts) -> Result<Vec<(String, u64)>> {
    let mut out: Vec<(String, u64)> = words
        .iter()
        .map(|(w, n)| {
            std::str::from_utf8(w)
                .map(|s| (s.to_string(), n))
                .map_err(|_| Error::InvalidOption("a counted word is not valid UTF-8".into()))
        })
        .collect::<Result<_>>()?;
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(words: &[(&str, u64)]) -> WordCounts {
        words.iter().map(|(w, n)| (w, *n)).collect()
    }

    #[test]
    fn ids_follow_hf_order() {
        let words = counts(&[("ab", 3), ("ba", 1)]);
        let t = CharBpeTrainer::new(10)
            .special_tokens(["<unk>"])
            .reserved(["<0x00>"])
            .end_of_word_suffix("</w>")
            .train(&words)
            .unwrap();
        assert_eq!(&t.vocab[..5], ["<unk>", "<0x00>", "a", "b", "a</w>"]);
        assert_eq!(t.vocab[5], "b</w>");
        assert_eq!(t.merges[0], ("a".into(), "b</w>".into()));
    }

    #[test]
    fn prefix_is_dropped_on_the_right() {
        let words = counts(&[("abc", 4)]);
        let t = CharBpeTrainer::new(20)
            .continuing_subword_prefix("##")
            .train(&words)
            .unwrap();
        assert_eq!(&t.vocab[3..], ["##b", "##c", "ab", "abc"]);
        assert_eq!(t.merges[0], ("a".into(), "##b".into()));
        assert_eq!(t.merges[1], ("ab".into(), "##c".into()));
    }

    #[test]
    fn likelihood_scoring_prefers_pairs_of_rare_symbols() {
        // Symbols: "ab" x10 is a ##b, "xya" x1 is x ##y ##a. Counts: a 10, ##b 10, x 1,
        // ##y 1, ##a 1. Frequency picks (a, ##b), seen 10 times. Likelihood scores
        // (a, ##b) 10/(10*10) = 0.1, (x, ##y) 1/(1*1) = 1, (##y, ##a) 1/(1*1) = 1: a tie at
        // 1, won by the smaller ids. Ids: a b x y (0..3), then ##a ##b ##y (4..6), so
        // (x=2, ##y=6) < (##y=6, ##a=4).
        let words = counts(&[("ab", 10), ("xya", 1)]);
        let trainer = CharBpeTrainer::new(9).continuing_subword_prefix("##");
        let freq = trainer.clone().train(&words).unwrap();
        assert_eq!(freq.merges[0], ("a".into(), "##b".into()));
        let lik = trainer.scoring(Scoring::Likelihood).train(&words).unwrap();
        assert_eq!(lik.merges[0], ("x".into(), "##y".into()));
        // Now xy 1, ##a 1: (xy, ##a) scores 1/(1*1) = 1 > (a, ##b) = 10/(10*10).
        assert_eq!(lik.merges[1], ("xy".into(), "##a".into()));
    }

    #[test]
    fn limit_alphabet_drops_rare_characters_from_words() {
        // 'z' is the rarest: it leaves the alphabet and "azb" becomes "ab".
        let words = counts(&[("azb", 1), ("ab", 2), ("ba", 5)]);
        let t = CharBpeTrainer::new(3)
            .limit_alphabet(Some(2))
            .train(&words)
            .unwrap();
        assert_eq!(t.vocab, ["a", "b", "ba"]);
        let t = CharBpeTrainer::new(4)
            .limit_alphabet(Some(2))
            .initial_alphabet(['z'])
            .train(&words);
        // 'z' is kept first, then the more frequent of a and b (a: 8, b: 8, a wins the tie).
        assert_eq!(t.unwrap().vocab[..2], ["a", "z"]);
    }

    #[test]
    fn options_are_checked() {
        let words = counts(&[("ab", 1)]);
        let e = CharBpeTrainer::new(2)
            .special_tokens(["<s>"])
            .train(&words)
            .unwrap_err();
        assert!(e.to_string().contains("vocab_size >= 3"), "{e}");
        // As HF: the special tokens and the whole alphabet, and no merge.
        let kept = CharBpeTrainer::new(1)
            .special_tokens(["<s>"])
            .keep_alphabet(true)
            .train(&words)
            .unwrap();
        assert_eq!(kept.vocab, ["<s>", "a", "b"]);
        assert!(kept.merges.is_empty());
        assert!(CharBpeTrainer::new(9)
            .special_tokens(["x"])
            .validate()
            .is_err());
        assert!(matches!(
            CharBpeTrainer::new(9).train(&WordCounts::new()),
            Err(Error::EmptyCorpus)
        ));
    }
}
