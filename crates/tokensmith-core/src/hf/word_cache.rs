//! The tokens of words seen before, shared by the threads of one model (BPE, Unigram).
//!
//! HF's models keep the same kind of cache, with the same policy: at most 10,000 words, and
//! once full no new word is added. A model's results never depend on it. A clone starts
//! empty: the cache is a speed-up of one model value, not part of the model.
//!
//! ```
//! use tokensmith_core::hf::word_cache::WordCache;
//! let cache = WordCache::default();
//! let word: Vec<char> = "ab".chars().collect();
//! let mut out = Vec::new();
//! cache.tokenize_into(&word, &mut out, |w| vec![(7, 0, w.len())]);
//! // The second time, the tokens come from the cache: the closure is not called.
//! cache.tokenize_into(&word, &mut out, |_| unreachable!());
//! assert_eq!(out, [(7, 0, 2), (7, 0, 2)]);
//! ```

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::RwLock;

/// Words remembered; once full, new words are no longer added.
const CAPACITY: usize = 10_000;
/// Longer words are not cached (they are rare, and each would hold much memory).
const MAX_CHARS: usize = 256;

/// One word's tokens: `(id, start, end)` in characters of the word.
pub type Tokens = Vec<(u32, usize, usize)>;

/// The tokens of words seen before, by word.
#[derive(Debug, Default)]
pub struct WordCache(RwLock<FxHashMap<String, Tokens>>);

impl Clone for WordCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl WordCache {
    /// Appends the tokens of `word` to `out`: from the cache, or from `tokenize`, whose
    /// result is then remembered (while there is room and the word is not too long).
    pub fn tokenize_into(
        &self,
        word: &[char],
        out: &mut Tokens,
        tokenize: impl FnOnce(&[char]) -> Tokens,
    ) {
        thread_local! {
            // The word as text, to look it up without allocating.
            static KEY: RefCell<String> = const { RefCell::new(String::new()) };
        }
        if word.is_empty() || word.len() > MAX_CHARS {
            out.extend(tokenize(word));
            return;
        }
        KEY.with_borrow_mut(|key| {
            key.clear();
            key.extend(word);
            // A poisoned lock only means another thread panicked mid-insert; skip the cache.
            if let Ok(cache) = self.0.read() {
                if let Some(hit) = cache.get(key.as_str()) {
                    out.extend_from_slice(hit);
                    return;
                }
            }
            let tokens = tokenize(word);
            out.extend_from_slice(&tokens);
            if let Ok(mut cache) = self.0.write() {
                if cache.len() < CAPACITY {
                    cache.insert(key.clone(), tokens);
                }
            }
        });
    }

    /// The number of words remembered.
    pub fn len(&self) -> usize {
        self.0.read().map_or(0, |c| c.len())
    }

    /// Whether no word is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
