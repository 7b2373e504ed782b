//! The byte-level BPE trainer (GPT-2 / tiktoken style).
//!
//! Words are the UTF-8 bytes of pre-tokenized pieces. The initial alphabet is all 256 bytes,
//! ranked 0..=255 in byte order as tiktoken's vocabularies are; learned tokens take ranks
//! 256, 257, ... in the order they were learned, so a rank is also the merge's priority when
//! encoding. Special tokens come **after** the learned tokens (HF gives specials the first
//! ids; a tiktoken-style vocabulary keeps ranks 0..=255 for bytes, as `<|endoftext|>` = 50256
//! does in GPT-2).
//!
//! `vocab_size` counts everything: 256 bytes, the learned tokens and the special tokens.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
//! use tokensmith_core::trainers::{BpeTrainer, WordCounts};
//!
//! let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
//! let mut counts = WordCounts::new();
//! counts.add_texts(&pre, &["low lower lowest"; 10]).unwrap();
//! let trained = BpeTrainer::new(260).special_tokens(["<|end|>"]).train(&counts).unwrap();
//! assert_eq!(trained.ranks.len(), 259);
//! assert_eq!(trained.specials, vec![("<|end|>".to_string(), 259)]);
//! let enc = trained.into_encoding(R50K_PATTERN).unwrap();
//! assert_eq!(enc.encode_ordinary(" low").unwrap().len(), 1);
//! ```
//!
//! Not handled yet: the character-level (`</w>`) and Metaspace families, `limit_alphabet`,
//! `initial_alphabet`, vocabulary extension, and parallel merging within a step.

use super::merge_loop::{LengthRule, MergeLoop, Sym};
use super::setters::shared_setters;
use super::word_counts::WordCounts;
use crate::encoding::Encoding;
use crate::error::{Error, Result};

/// Which library's choices the trainer reproduces where BPE leaves them open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// HF `BpeTrainer` with a `ByteLevel` pre-tokenizer: ties go to the smallest pair of HF
    /// ids, where HF orders the 256 bytes by the code point of GPT-2's byte-to-unicode
    /// character (`!`..`~`, `¡`..`¬`, `®`..`ÿ`, then the remaining bytes in byte order), and
    /// `max_token_length = n` keeps merged tokens strictly shorter than `n` bytes (except
    /// 2-byte tokens, which HF never checks). The default.
    #[default]
    Hf,
    /// Ties go to the smallest pair of tokensmith ranks (bytes in byte order, then learned
    /// tokens in order); `max_token_length = n` keeps tokens of at most `n` bytes.
    Ranks,
}

/// A trained byte-level BPE vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainedBpe {
    /// Token bytes and rank: the 256 bytes, then learned tokens. Ranks are dense.
    pub ranks: Vec<(Vec<u8>, u32)>,
    /// Every merge in the order learned, as `(left bytes, right bytes)`. Usually one per
    /// learned token; a merge whose result was already a token adds no rank but is listed.
    pub merges: Vec<(Vec<u8>, Vec<u8>)>,
    /// Special tokens and their ids, right after the last rank.
    pub specials: Vec<(String, u32)>,
}

impl TrainedBpe {
    /// Builds an [`Encoding`] from the trained ranks and specials.
    pub fn into_encoding(self, pattern: &str) -> Result<Encoding> {
        Encoding::new(self.ranks, self.specials, pattern)
    }
}

/// Builder and runner of byte-level BPE training.
#[derive(Debug, Clone)]
pub struct BpeTrainer {
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    max_token_length: Option<usize>,
    compat: Compat,
}

shared_setters!(BpeTrainer, "bytes");

impl BpeTrainer {
    /// A trainer for a vocabulary of `vocab_size` tokens (bytes + learned + specials).
    pub fn new(vocab_size: usize) -> Self {
        Self {
            vocab_size,
            min_frequency: 0,
            special_tokens: Vec::new(),
            max_token_length: None,
            compat: Compat::default(),
        }
    }

    /// Checks the options on their own, before any counting.
    pub fn validate(&self) -> Result<()> {
        let floor = 256 + self.special_tokens.len();
        if self.vocab_size < floor {
            return Err(Error::InvalidOption(format!(
                "vocab_size={} is smaller than the 256 byte tokens plus {} special tokens; \
                 use vocab_size >= {floor}",
                self.vocab_size,
                self.special_tokens.len()
            )));
        }
        check_specials_and_length(&self.special_tokens, self.max_token_length)
    }

    /// Learns merges from word counts.
    pub fn train(&self, words: &WordCounts) -> Result<TrainedBpe> {
        self.train_with_progress(words, |_| true)
    }

    /// Like [`train`](Self::train), calling `progress(n)` after the n-th merge; training
    /// stops there, with the merges learned so far, when `progress` returns false.
    pub fn train_with_progress(
        &self,
        words: &WordCounts,
        mut progress: impl FnMut(usize) -> bool,
    ) -> Result<TrainedBpe> {
        self.validate()?;
        if words.is_empty() {
            return Err(Error::EmptyCorpus);
        }
        let (mut state, byte_of) = self.start(words);
        let target = self.vocab_size - self.special_tokens.len();
        let rank_of = |id: Sym| -> u32 {
            match byte_of.get(id as usize) {
                Some(&b) => b as u32,
                None => id,
            }
        };
        let merges = state.run(target, self.min_frequency, &mut progress);
        let tokens = state.tokens();
        let ranks = tokens
            .iter()
            .enumerate()
            .map(|(id, t)| (t.clone(), rank_of(id as Sym)))
            .collect();
        let merges = state.merge_bytes(&merges);
        let first_special = tokens.len() as u32;
        let specials = self
            .special_tokens
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), first_special + i as u32))
            .collect();
        Ok(TrainedBpe {
            ranks,
            merges,
            specials,
        })
    }

    /// The merge loop over all 256 bytes in this mode's tie-break order, and for each
    /// alphabet id the byte it stands for.
    fn start(&self, words: &WordCounts) -> (MergeLoop, Vec<u8>) {
        let mut byte_of: Vec<u8> = (0..=255).collect();
        if self.compat == Compat::Hf {
            byte_of.sort_by_key(|&b| gpt2_char(b));
        }
        let mut id_of = [0 as Sym; 256];
        for (id, &b) in byte_of.iter().enumerate() {
            id_of[b as usize] = id as Sym;
        }
        let alphabet = byte_of.iter().map(|&b| vec![b]).collect();
        let mut list: Vec<(Vec<Sym>, u64)> = words
            .iter()
            .map(|(w, n)| (w.iter().map(|&b| id_of[b as usize]).collect(), n))
            .collect();
        // The result does not depend on word order; sorting only makes runs reproducible
        // to the byte (same memory layout, same timings).
        list.sort_unstable();
        let rule = match (self.max_token_length, self.compat) {
            (None, _) => LengthRule::Unlimited,
            (Some(n), Compat::Hf) => LengthRule::HfStrictlyBelow(n),
            (Some(n), Compat::Ranks) => LengthRule::AtMost(n),
        };
        (MergeLoop::new(alphabet, list, rule), byte_of)
    }
}

/// Checks what every trainer requires: special tokens non-empty and distinct, and a
/// `max_token_length` of at least 1.
pub(crate) fn check_specials_and_length<'a>(
    specials: impl IntoIterator<Item = &'a String>,
    max_token_length: Option<usize>,
) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for s in specials {
        if s.is_empty() {
            return Err(Error::InvalidOption("a special token is empty".into()));
        }
        if !seen.insert(s) {
            return Err(Error::InvalidOption(format!(
                "the special token {s:?} is listed twice"
            )));
        }
    }
    if max_token_length == Some(0) {
        return Err(Error::InvalidOption(
            "max_token_length must be at least 1".into(),
        ));
    }
    Ok(())
}

/// The code point GPT-2's `bytes_to_unicode` gives byte `b`: printable Latin-1 bytes map to
/// themselves, the other 68 to U+0100 onwards in byte order.
pub fn gpt2_char(b: u8) -> u32 {
    let printable = |x: u8| matches!(x, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    if printable(b) {
        b as u32
    } else {
        256 + (0..b).filter(|&x| !printable(x)).count() as u32
    }
}

/// The byte that GPT-2's byte-to-unicode table shows as `c` ([`gpt2_char`] reversed), if any.
pub fn gpt2_byte(c: char) -> Option<u8> {
    static BYTE_OF: std::sync::OnceLock<rustc_hash::FxHashMap<char, u8>> =
        std::sync::OnceLock::new();
    let table = BYTE_OF.get_or_init(|| {
        (0..=255u8)
            .filter_map(|b| char::from_u32(gpt2_char(b)).map(|c| (c, b)))
            .collect()
    });
    table.get(&c).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpt2_alphabet() {
        assert_eq!(gpt2_char(b'a'), 'a' as u32);
        assert_eq!(gpt2_char(b' '), 'Ġ' as u32);
        assert_eq!(gpt2_char(b'\n'), 'Ċ' as u32);
        assert_eq!(gpt2_char(0xAD), 'Ń' as u32);
        let mut all: Vec<u32> = (0..=255).map(gpt2_char).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 256);
    }

    #[test]
    fn options_are_checked() {
        let words: WordCounts = [("ab", 1u64)].into_iter().collect();
        let err = BpeTrainer::new(256)
            .special_tokens(["<s>"])
            .train(&words)
            .unwrap_err();
        assert!(err.to_string().contains("vocab_size >= 257"), "{err}");
        assert!(matches!(
            BpeTrainer::new(300).train(&WordCounts::new()),
            Err(Error::EmptyCorpus)
        ));
        assert!(BpeTrainer::new(300)
            .special_tokens(["x", "x"])
            .validate()
            .is_err());
    }
}
