//! The tokens of words seen before, shared by the threads of one model (BPE, Unigram,
//! WordPiece).
//!
//! HF's models keep the same kind of cache, with the same policy: at most 10,000 words, and
//! once full no new word is added. A model's results never depend on it. A clone starts
//! empty: the cache is a speed-up of one model value, not part of the model.
//!
//! While it fills, the words sit behind a read-write lock. Once full it never changes again,
//! so it moves out from behind the lock and is read without one: taking even a read lock
//! writes the lock's counter, and threads encoding a batch would pass that cache line back
//! and forth on every word.
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
use std::convert::Infallible;
use std::sync::{OnceLock, RwLock};

/// Words remembered; once full, new words are no longer added.
const CAPACITY: usize = 10_000;
/// Longer words are not cached (they are rare, and each would hold much memory).
const MAX_CHARS: usize = 256;

/// One word's tokens: `(id, start, end)` in characters of the word.
pub type Tokens = Vec<(u32, usize, usize)>;

/// The tokens of words seen before, by word.
#[derive(Debug, Default)]
pub struct WordCache {
    /// The words while there is room for more.
    filling: RwLock<FxHashMap<String, Tokens>>,
    /// All the words, once there is no more room: read without a lock.
    full: OnceLock<FxHashMap<String, Tokens>>,
}

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
        let done: Result<(), Infallible> = self.try_tokenize_into(word, out, |w| Ok(tokenize(w)));
        match done {
            Ok(()) => {}
            Err(never) => match never {},
        }
    }

    /// [`Self::tokenize_into`] for a `tokenize` that can fail: its error is returned, `out`
    /// is left as it was, and nothing is remembered for the word.
    pub fn try_tokenize_into<E>(
        &self,
        word: &[char],
        out: &mut Tokens,
        tokenize: impl FnOnce(&[char]) -> Result<Tokens, E>,
    ) -> Result<(), E> {
        thread_local! {
            // The word as text, to look it up without allocating.
            static KEY: RefCell<String> = const { RefCell::new(String::new()) };
        }
        if word.is_empty() || word.len() > MAX_CHARS {
            out.extend(tokenize(word)?);
            return Ok(());
        }
        KEY.with_borrow_mut(|key| {
            key.clear();
            key.extend(word);
            self.try_visit(key, |_| tokenize(word), |hit| out.extend_from_slice(hit))
        })
    }

    /// Hands the tokens of `word` (given as text) to `visit`: from the cache, or from
    /// `tokenize`, whose result is then remembered as [`Self::try_tokenize_into`] does. On an
    /// error `visit` is not called.
    pub fn try_visit<E>(
        &self,
        word: &str,
        tokenize: impl FnOnce(&str) -> Result<Tokens, E>,
        visit: impl FnOnce(&[(u32, usize, usize)]),
    ) -> Result<(), E> {
        // Checked on bytes first: a word of at most MAX_CHARS bytes has at most that many
        // characters.
        if word.is_empty() || (word.len() > MAX_CHARS && word.chars().count() > MAX_CHARS) {
            visit(&tokenize(word)?);
            return Ok(());
        }
        if let Some(full) = self.full.get() {
            match full.get(word) {
                Some(hit) => visit(hit),
                None => visit(&tokenize(word)?),
            }
            return Ok(());
        }
        // A poisoned lock only means another thread panicked mid-insert; skip the cache.
        if let Ok(cache) = self.filling.read() {
            if let Some(hit) = cache.get(word) {
                visit(hit);
                return Ok(());
            }
        }
        let tokens = tokenize(word)?;
        visit(&tokens);
        if let Ok(mut cache) = self.filling.write() {
            // Another thread may have filled it since the check above.
            if self.full.get().is_none() && cache.len() < CAPACITY {
                cache.insert(word.to_string(), tokens);
                if cache.len() == CAPACITY {
                    let _ = self.full.set(std::mem::take(&mut *cache));
                }
            }
        }
        Ok(())
    }

    /// The number of words remembered.
    pub fn len(&self) -> usize {
        match self.full.get() {
            Some(full) => full.len(),
            None => self.filling.read().map_or(0, |c| c.len()),
        }
    }

    /// Whether no word is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_cache_keeps_its_words_and_takes_no_more() {
        let cache = WordCache::default();
        let mut out = Vec::new();
        let word = |i: usize| -> Vec<char> { format!("w{i}").chars().collect() };
        for i in 0..CAPACITY + 5 {
            cache.tokenize_into(&word(i), &mut out, |w| vec![(i as u32, 0, w.len())]);
        }
        assert_eq!(cache.len(), CAPACITY);
        assert!(cache.full.get().is_some());
        // Words seen before the cache filled come from it; later ones are tokenized again.
        out.clear();
        cache.tokenize_into(&word(7), &mut out, |_| unreachable!());
        cache.tokenize_into(&word(CAPACITY + 1), &mut out, |w| vec![(99, 0, w.len())]);
        assert_eq!(out, [(7, 0, 2), (99, 0, 6)]);
        assert_eq!(cache.len(), CAPACITY);
        assert!(cache.clone().is_empty());
    }

    #[test]
    fn a_failed_word_is_not_remembered() {
        let cache = WordCache::default();
        let word: Vec<char> = "ab".chars().collect();
        let mut out = vec![(1, 0, 1)];
        let failed = cache.try_tokenize_into(&word, &mut out, |_| Err("no unknown id"));
        assert_eq!(failed, Err("no unknown id"));
        assert_eq!(out, [(1, 0, 1)]);
        assert!(cache.is_empty());
        // The next attempt tokenizes the word again.
        cache
            .try_tokenize_into(&word, &mut out, |w| Ok::<_, ()>(vec![(3, 0, w.len())]))
            .unwrap();
        assert_eq!(out, [(1, 0, 1), (3, 0, 2)]);
        assert_eq!(cache.len(), 1);
    }
}
