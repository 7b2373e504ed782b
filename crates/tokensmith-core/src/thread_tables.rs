//! Which model a thread's tables belong to, and letting go of the tables of models that are
//! gone: the word caches of SentencePiece models (`models/unigram/words.rs`) and the piece
//! caches of tiktoken-style BPE (`models/bpe/cache.rs`).
//!
//! Each thread keeps tables for its last few models, found by the model's tag. A model's
//! [`CacheTag`] is shared by its clones; when the last one is dropped, its tag is listed as
//! gone, and every thread frees that model's tables at its next lookup (a check of one atomic
//! counter per lookup). Before, the tables (up to 24 MiB each for a word cache) stayed until
//! newer models pushed them out, so a program that loaded models one after another kept
//! several of them.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A new tag for a model's tables; tags are never reused.
pub fn new_tag() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The tags of dropped models (a few bytes each, kept for the life of the process, since a
/// thread may look up long after the drop).
static GONE: Mutex<Vec<u64>> = Mutex::new(Vec::new());
/// How many tags [`GONE`] holds: a thread that has seen this many has nothing to free.
static GONE_COUNT: AtomicU64 = AtomicU64::new(0);

/// A model's claim on its tables in every thread (see the module's doc).
#[derive(Debug)]
pub struct CacheTag(u64);

impl CacheTag {
    /// A new tag, to be shared by the model and its clones.
    pub fn new() -> Arc<Self> {
        Arc::new(Self(new_tag()))
    }

    /// The tag the tables are found by.
    pub fn get(&self) -> u64 {
        self.0
    }
}

impl Drop for CacheTag {
    fn drop(&mut self) {
        // A poisoned list is still a list of tags.
        let mut gone = GONE.lock().unwrap_or_else(|e| e.into_inner());
        gone.push(self.0);
        GONE_COUNT.store(gone.len() as u64, Ordering::Release);
    }
}

/// The table of the model tagged `tag` in one thread's list `tables`, made by `make` on first
/// use. The list holds at most `most` tables: a new one pushes out the oldest. Tables of
/// models that are gone are freed first, unless no model was dropped since this list was last
/// checked (`seen`: one counter per list, kept by its owner next to the list).
pub fn table_for<'a, T>(
    tables: &'a mut Vec<(u64, T)>,
    seen: &Cell<u64>,
    tag: u64,
    most: usize,
    make: impl FnOnce() -> T,
) -> &'a mut T {
    let count = GONE_COUNT.load(Ordering::Acquire);
    if count != seen.get() {
        let gone = GONE.lock().unwrap_or_else(|e| e.into_inner());
        tables.retain(|(t, _)| !gone.contains(t));
        seen.set(gone.len() as u64);
    }
    let at = match tables.iter().position(|(t, _)| *t == tag) {
        Some(at) => at,
        None => {
            if tables.len() == most {
                tables.remove(0);
            }
            tables.push((tag, make()));
            tables.len() - 1
        }
    };
    &mut tables[at].1
}
