//! The options of the Unigram trainer, with sentencepiece's defaults, and their validation.
//!
//! Every option keeps the name and default of sentencepiece's `TrainerSpec` field it mirrors
//! (`max_piece_length` is `max_sentencepiece_length`). [`UnigramConfig::validate`] names the
//! option at fault and the range that works, using the ranges sentencepiece enforces.
//!
//! ```
//! use tokensmith_core::trainers::unigram::UnigramConfig;
//! let config = UnigramConfig::new(8000);
//! assert_eq!(config.character_coverage, 0.9995);
//! assert!(config.validate().is_ok());
//! let bad = UnigramConfig { shrinking_factor: 1.5, ..UnigramConfig::new(8000) };
//! assert!(bad.validate().unwrap_err().to_string().contains("shrinking_factor"));
//! ```

use crate::error::{Error, Result};
use crate::normalizers::charsmap_builder::{precompiled_charsmap, Rule};

/// How the trainer normalizes text before counting words: sentencepiece's
/// `normalization_rule_name`. The charsmap is built by
/// [`crate::normalizers::charsmap_builder`], applied to the training text and written into the
/// model, so that sentencepiece normalizes the same way when it loads the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Normalization {
    /// No character mapping; only the whitespace rules (dummy prefix, extra spaces, `▁`).
    Identity,
    /// A rule with a charsmap: NFKC, with or without the NMT rules and case folding.
    Charsmap(Rule),
}

impl Normalization {
    /// sentencepiece's default, `nmt_nfkc`.
    pub const DEFAULT: Self = Self::Charsmap(Rule::NmtNfkc);

    /// The name written to `NormalizerSpec.name`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::Charsmap(rule) => rule.name(),
        }
    }

    /// Parses a rule name: `nmt_nfkc`, `nfkc`, `nmt_nfkc_cf`, `nfkc_cf` or `identity`.
    pub fn parse(name: &str) -> Result<Self> {
        if name == "identity" {
            return Ok(Self::Identity);
        }
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .map(Self::Charsmap)
            .ok_or_else(|| {
                Error::InvalidOption(format!(
                    "normalization_rule_name={name:?} is not known; use \"nmt_nfkc\", \"nfkc\", \
                     \"nmt_nfkc_cf\", \"nfkc_cf\" or \"identity\""
                ))
            })
    }

    /// The precompiled charsmap (empty for identity), built once per process.
    pub fn precompiled_charsmap(self) -> Result<Vec<u8>> {
        match self {
            Self::Identity => Ok(Vec::new()),
            Self::Charsmap(rule) => Ok(precompiled_charsmap(rule)?.to_vec()),
        }
    }
}

/// Everything the Unigram trainer can be told. Build with [`UnigramConfig::new`] and struct
/// update syntax; call [`UnigramConfig::validate`] before use (the trainer does).
#[derive(Debug, Clone, PartialEq)]
pub struct UnigramConfig {
    /// The size of the result: meta pieces, user-defined and control symbols, byte pieces and
    /// learned pieces.
    pub vocab_size: usize,
    /// The share of character occurrences that must be covered by single-character pieces;
    /// rarer characters become unknown.
    pub character_coverage: f64,
    /// Characters always kept in the alphabet (as single-character pieces), whatever
    /// `character_coverage` says and even when the corpus lacks them.
    pub required_chars: Vec<char>,
    /// Adds the 256 `<0xNN>` byte pieces, so that unknown characters are spelt as bytes.
    pub byte_fallback: bool,
    /// Digits never join other characters in a piece.
    pub split_digits: bool,
    /// The longest piece, in characters.
    pub max_piece_length: usize,
    /// Pieces that are always whole tokens and never split (ids after the meta pieces).
    pub user_defined_symbols: Vec<String>,
    /// Pieces that only appear when asked for (ids after the meta pieces).
    pub control_symbols: Vec<String>,
    /// Train on at most this many sentences (0: all of them).
    pub input_sentence_size: usize,
    /// With `input_sentence_size`, sample the sentences uniformly (reservoir sampling with
    /// `seed`) instead of taking the first ones.
    pub shuffle_input_sentence: bool,
    /// The seed of the sentence sampler.
    pub seed: u64,
    /// Each pruning step keeps this share of the pieces.
    pub shrinking_factor: f64,
    /// EM rounds between two pruning steps.
    pub num_sub_iterations: usize,
    /// The number of frequent substrings that seed the EM.
    pub seed_sentencepiece_size: usize,
    /// Sentences longer than this many bytes are skipped, as sentencepiece does.
    pub max_sentence_length: usize,
    pub split_by_whitespace: bool,
    pub split_by_unicode_script: bool,
    pub split_by_number: bool,
    pub treat_whitespace_as_suffix: bool,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub normalization: Normalization,
    /// Worker threads (0: one per core). The result does not depend on it.
    pub num_threads: usize,
    /// sentencepiece's `hard_vocab_limit`: when false, a corpus too small for `vocab_size`
    /// gives a smaller vocabulary instead of an error (`unigram`: every piece the EM keeps;
    /// `word`: every word seen).
    pub hard_vocab_limit: bool,
    /// Seed substrings are counted once per distinct word, not once per occurrence in the
    /// corpus: HF's `UnigramTrainer` seeds this way (single characters keep their counts).
    pub seeds_per_distinct_word: bool,
    pub unk_id: i32,
    pub bos_id: i32,
    pub eos_id: i32,
    pub pad_id: i32,
    /// `char` and `word` models only: keep every character (or word) seen, whatever
    /// `vocab_size` and `character_coverage` say; the vocabulary is as large as that makes it.
    pub use_all_vocab: bool,
}

impl UnigramConfig {
    /// sentencepiece's defaults with the given vocabulary size (`nmt_nfkc` normalization).
    pub fn new(vocab_size: usize) -> Self {
        Self {
            vocab_size,
            character_coverage: 0.9995,
            required_chars: Vec::new(),
            byte_fallback: false,
            split_digits: false,
            max_piece_length: 16,
            user_defined_symbols: Vec::new(),
            control_symbols: Vec::new(),
            input_sentence_size: 0,
            shuffle_input_sentence: true,
            seed: 0,
            shrinking_factor: 0.75,
            num_sub_iterations: 2,
            seed_sentencepiece_size: 1_000_000,
            max_sentence_length: 4192,
            split_by_whitespace: true,
            split_by_unicode_script: true,
            split_by_number: true,
            treat_whitespace_as_suffix: false,
            add_dummy_prefix: true,
            remove_extra_whitespaces: true,
            normalization: Normalization::DEFAULT,
            num_threads: 0,
            hard_vocab_limit: true,
            seeds_per_distinct_word: false,
            unk_id: 0,
            bos_id: 1,
            eos_id: 2,
            pad_id: -1,
            use_all_vocab: false,
        }
    }

    /// Checks every option; the error names the first bad one and what would work.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::InvalidOption(msg));
        if !(0.98..=1.0).contains(&self.character_coverage) {
            return bad(format!(
                "character_coverage={} must be between 0.98 and 1.0",
                self.character_coverage
            ));
        }
        if !(0.5..=0.95).contains(&self.shrinking_factor) {
            return bad(format!(
                "shrinking_factor={} must be between 0.5 and 0.95",
                self.shrinking_factor
            ));
        }
        if !(1..=512).contains(&self.max_piece_length) {
            return bad(format!(
                "max_piece_length={} must be between 1 and 512",
                self.max_piece_length
            ));
        }
        if !(1..=10).contains(&self.num_sub_iterations) {
            return bad(format!(
                "num_sub_iterations={} must be between 1 and 10",
                self.num_sub_iterations
            ));
        }
        if self.seed_sentencepiece_size < 1000 {
            return bad(format!(
                "seed_sentencepiece_size={} must be at least 1000",
                self.seed_sentencepiece_size
            ));
        }
        if self.max_sentence_length == 0 {
            return bad("max_sentence_length must be at least 1".into());
        }
        if self.unk_id < 0 {
            return bad(format!(
                "unk_id={} must be >= 0: the unknown piece is required",
                self.unk_id
            ));
        }
        let ids = [
            ("unk_id", self.unk_id),
            ("bos_id", self.bos_id),
            ("eos_id", self.eos_id),
            ("pad_id", self.pad_id),
        ];
        for (i, (name, id)) in ids.iter().enumerate() {
            if *id >= 0 && *id as usize >= self.vocab_size {
                return bad(format!(
                    "{name}={id} is not below vocab_size={}",
                    self.vocab_size
                ));
            }
            if let Some((other, _)) = ids[..i].iter().find(|(_, o)| *o == *id && *id >= 0) {
                return bad(format!("{name}={id} is the same id as {other}"));
            }
        }
        if let Some(c) = self
            .required_chars
            .iter()
            .find(|c| matches!(c, ' ' | '\0' | '\u{2585}'))
        {
            return bad(format!(
                "required_chars holds {c:?}, which never is a piece (spaces are written \
                 U+2581; U+2585 is reserved for unknown characters)"
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (option, symbols) in [
            ("control_symbols", &self.control_symbols),
            ("user_defined_symbols", &self.user_defined_symbols),
        ] {
            for s in symbols {
                if s.is_empty() {
                    return bad(format!("{option} holds an empty string"));
                }
                if s == "<unk>" {
                    return bad(format!("{option} must not hold <unk>, the unknown piece"));
                }
                if !seen.insert(s.as_str()) {
                    return bad(format!("{option}: {s:?} is given twice"));
                }
            }
        }
        let meta = self.meta_piece_count();
        if self.vocab_size <= meta {
            return bad(format!(
                "vocab_size={} leaves no room for learned pieces after the {meta} meta, \
                 symbol and byte pieces; use vocab_size > {meta}",
                self.vocab_size
            ));
        }
        Ok(())
    }

    /// Pieces that are not learned: `<unk>`, `<s>`, `</s>`, `<pad>` (those with an id >= 0),
    /// the control and user-defined symbols, and the 256 byte pieces with `byte_fallback`.
    pub fn meta_piece_count(&self) -> usize {
        let specials = [self.unk_id, self.bos_id, self.eos_id, self.pad_id]
            .iter()
            .filter(|&&id| id >= 0)
            .count();
        let named = ["<s>", "</s>", "<pad>"];
        // A symbol spelled like a special piece retypes it instead of adding one.
        let symbols = self
            .control_symbols
            .iter()
            .chain(&self.user_defined_symbols)
            .filter(|s| {
                let idx = named.iter().position(|n| n == s);
                !matches!(idx, Some(i) if [self.bos_id, self.eos_id, self.pad_id][i] >= 0)
            })
            .count();
        specials + symbols + if self.byte_fallback { 256 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_pieces_are_counted_like_sentencepiece() {
        let mut c = UnigramConfig::new(1000);
        assert_eq!(c.meta_piece_count(), 3);
        c.byte_fallback = true;
        c.user_defined_symbols = vec!["<sep>".into(), "</s>".into()];
        assert_eq!(c.meta_piece_count(), 3 + 1 + 256);
    }

    #[test]
    fn each_bad_option_is_named() {
        let base = UnigramConfig::new(100);
        let cases = [
            (
                UnigramConfig {
                    vocab_size: 3,
                    ..base.clone()
                },
                "vocab_size=3",
            ),
            (
                UnigramConfig {
                    character_coverage: 0.5,
                    ..base.clone()
                },
                "character_coverage",
            ),
            (
                UnigramConfig {
                    max_piece_length: 0,
                    ..base.clone()
                },
                "max_piece_length",
            ),
            (
                UnigramConfig {
                    num_sub_iterations: 0,
                    ..base.clone()
                },
                "num_sub_iterations",
            ),
            (
                UnigramConfig {
                    bos_id: 0,
                    ..base.clone()
                },
                "bos_id=0 is the same id as unk_id",
            ),
            (
                UnigramConfig {
                    user_defined_symbols: vec!["a".into(), "a".into()],
                    ..base.clone()
                },
                "user_defined_symbols",
            ),
            (
                UnigramConfig {
                    required_chars: vec!['a', ' '],
                    ..base.clone()
                },
                "required_chars holds ' '",
            ),
        ];
        for (config, needle) in cases {
            let err = config.validate().unwrap_err().to_string();
            assert!(err.contains(needle), "{err} lacks {needle}");
        }
        assert_eq!(Normalization::parse("nfkc_cf").unwrap().name(), "nfkc_cf");
        assert!(Normalization::parse("bogus")
            .unwrap_err()
            .to_string()
            .contains("bogus"));
    }
}
