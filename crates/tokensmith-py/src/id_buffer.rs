//! One buffer of ids per thread, reused by the single-text encode calls.
//!
//! An encode call that returns a list or a `bytes` object needs its ids only until they are
//! copied out. Encoding into a buffer the thread keeps saves an allocation, its growth on
//! texts with more ids than guessed, and its release, on every call: a few hundred
//! nanoseconds, which is noticeable next to a 4 KB text. The buffer follows the core's rule
//! for kept buffers ([`release_if_large`]), so one huge text does not pin its memory.

use std::cell::RefCell;
use tokensmith_core::scratch::release_if_large;

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
