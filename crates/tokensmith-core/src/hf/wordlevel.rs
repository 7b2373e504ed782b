//! The WordLevel model: each word is one token, or the unknown token.
//!
//! ```
//! use tokensmith_core::hf::wordlevel::WordLevel;
//! let vocab = [("<unk>", 0), ("hello", 1)];
//! let m = WordLevel::new(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect(), "<unk>")
//!     .unwrap();
//! assert_eq!(m.tokenize(&"hello".chars().collect::<Vec<_>>()), vec![(1, 0, 5)]);
//! assert_eq!(m.tokenize(&"bye".chars().collect::<Vec<_>>()), vec![(0, 0, 3)]);
//! ```
//!
//! Not handled: training (HF's WordLevelTrainer is a word count; tokensmith has none yet).

use crate::{Error, Result};
use rustc_hash::FxHashMap;

/// A WordLevel vocabulary.
#[derive(Clone, Debug)]
pub struct WordLevel {
    vocab: FxHashMap<String, u32>,
    unk_id: u32,
}

impl WordLevel {
    /// Builds the model; `unk_token` must be in `vocab` (HF fails on the first unknown word
    /// otherwise, so the file is refused up front).
    pub fn new(vocab: FxHashMap<String, u32>, unk_token: &str) -> Result<Self> {
        let unk_id = *vocab.get(unk_token).ok_or_else(|| {
            Error::InvalidVocab(format!(
                "the unknown token {unk_token:?} is not in the vocabulary"
            ))
        })?;
        Ok(Self { vocab, unk_id })
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// The one token of `word`, spanning all of it.
    pub fn tokenize(&self, word: &[char]) -> Vec<(u32, usize, usize)> {
        let mut out = Vec::with_capacity(1);
        self.tokenize_into(word, &mut out);
        out
    }

    /// Appends the one token of `word` to `out`.
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) {
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
        out.push((id.unwrap_or(self.unk_id), 0, word.len()));
    }
}
