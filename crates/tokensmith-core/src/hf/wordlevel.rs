//! The WordLevel model: each word is one token, or the unknown token.
//!
//! ```
//! use tokensmith_core::hf::wordlevel::WordLevel;
//! let vocab = [("<unk>", 0), ("hello", 1)];
//! let m = WordLevel::new(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect(), "<unk>")
//!     .unwrap();
//! assert_eq!(m.tokenize(&"hello".chars().collect::<Vec<_>>()).unwrap(), vec![(1, 0, 5)]);
//! assert_eq!(m.tokenize(&"bye".chars().collect::<Vec<_>>()).unwrap(), vec![(0, 0, 3)]);
//! ```
//!
//! As in HF, an `unk_token` missing from the vocabulary is accepted: only a word that needs
//! it fails ([`super::model::missing_unknown`]).
//!
//! Not handled: training (HF's WordLevelTrainer is a word count; tokensmith has none yet).

use super::model::missing_unknown;
use crate::Result;
use rustc_hash::FxHashMap;

/// A WordLevel vocabulary.
#[derive(Clone, Debug)]
pub struct WordLevel {
    vocab: FxHashMap<String, u32>,
    unk_token: String,
    /// The id of `unk_token`, if the vocabulary has it.
    unk_id: Option<u32>,
}

impl WordLevel {
    /// Builds the model; an `unk_token` missing from `vocab` fails the words that need it.
    ///
    /// # Errors
    /// None today; kept fallible like the other models' constructors.
    pub fn new(vocab: FxHashMap<String, u32>, unk_token: &str) -> Result<Self> {
        let unk_id = vocab.get(unk_token).copied();
        Ok(Self {
            vocab,
            unk_token: unk_token.to_string(),
            unk_id,
        })
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// The one token of `word`, spanning all of it.
    ///
    /// # Errors
    /// The word is unknown and the vocabulary has no `unk_token`.
    pub fn tokenize(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let mut out = Vec::with_capacity(1);
        self.tokenize_into(word, &mut out)?;
        Ok(out)
    }

    /// Appends the one token of `word` to `out`.
    ///
    /// # Errors
    /// As [`Self::tokenize`] (then `out` is unchanged).
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        thread_local! {
            // The word as text, to look it up without allocating.
            static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let id = KEY.with_borrow_mut(|key| {
            key.clear();
            key.extend(word);
            let id = self.vocab.get(key.as_str()).copied();
            // A long word's copy is freed, not kept (see `crate::scratch`).
            crate::scratch::release_text_if_large(key);
            id
        });
        let id = id
            .or(self.unk_id)
            .ok_or_else(|| missing_unknown("unk_token", &format!("{:?}", self.unk_token), word))?;
        out.push((id, 0, word.len()));
        Ok(())
    }
}
