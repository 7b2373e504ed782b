//! One buffer of ids per thread, reused by the single-text encode calls.
//!
//! An encode call that returns a list or a `bytes` object needs its ids only until they are
//! copied out. Encoding into a buffer the thread keeps saves an allocation, its growth on
//! texts with more ids than guessed, and its release, on every call: a few hundred
//! nanoseconds, which is noticeable next to a 4 KB text. The buffer follows the core's rule
//! for kept buffers ([`release_if_large`]), so one huge text does not pin its memory.
//!
//! A parallel batch hands each text's ids from a worker thread to the caller, which copies
//! them into a Python list; those buffers come from a pool kept between calls
//! ([`pooled_ids`], [`return_ids`]). Allocated afresh on every call, a worker's buffers grew
//! its malloc arena and were freed on the caller's thread at the end, so the arena shrank
//! and grew again on the next batch: system calls and page faults on every call.

use std::cell::RefCell;
use std::sync::Mutex;
use tokensmith_core::scratch::{release_if_large, KEEP_BYTES};

/// How many buffers the pool keeps: more than a batch has in flight at once (a few a thread).
const POOL_SIZE: usize = 32;

/// The largest buffer the pool keeps, in ids: a text of ~128 KB. Texts with more ids cost so
/// much more to encode than to allocate for that keeping their buffer gains nothing. With
/// [`POOL_SIZE`], the pool holds at most [`KEEP_BYTES`], the rule for a set of kept buffers.
const POOL_IDS: usize = KEEP_BYTES / POOL_SIZE / std::mem::size_of::<u32>();

/// Empty id buffers left by earlier batches.
static POOL: Mutex<Vec<Vec<u32>>> = Mutex::new(Vec::new());

thread_local! {
    static IDS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's id buffer, empty; a nested call gets a fresh buffer.
pub(crate) fn with_ids<R>(f: impl FnOnce(&mut Vec<u32>) -> R) -> R {
    IDS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ids) => {
            ids.clear();
            let out = f(&mut ids);
            ids.clear();
            release_if_large(&mut ids);
            out
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// An empty buffer from the pool, or a new one.
pub(crate) fn pooled_ids() -> Vec<u32> {
    POOL.lock()
        .ok()
        .and_then(|mut pool| pool.pop())
        .unwrap_or_default()
}

/// Gives `ids` back to the pool, emptied; one too large to keep is freed, as is one that
/// finds the pool full.
pub(crate) fn return_ids(mut ids: Vec<u32>) {
    if ids.capacity() == 0 || ids.capacity() > POOL_IDS {
        return;
    }
    ids.clear();
    if let Ok(mut pool) = POOL.lock() {
        if pool.len() < POOL_SIZE {
            pool.push(ids);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pooled() -> usize {
        POOL.lock().map(|p| p.len()).unwrap_or(usize::MAX)
    }

    // The only test that uses the pool, so its counts are not disturbed by other tests.
    #[test]
    fn the_pool_gives_back_empty_buffers_keeps_small_ones_and_is_bounded() {
        while pooled() > 0 {
            drop(pooled_ids());
        }
        let mut ids = pooled_ids();
        assert_eq!(ids.capacity(), 0, "an empty pool gives a new buffer");
        ids.extend(0..100);
        return_ids(ids);
        assert_eq!(pooled(), 1);
        let again = pooled_ids();
        assert!(
            again.is_empty() && again.capacity() >= 100,
            "the same buffer, emptied"
        );
        return_ids(Vec::with_capacity(POOL_IDS + 1));
        return_ids(Vec::new());
        assert_eq!(pooled(), 0, "too large and empty buffers are not kept");
        for _ in 0..2 * POOL_SIZE {
            return_ids(vec![7; 8]);
        }
        assert_eq!(pooled(), POOL_SIZE);
    }
}
