//! A hint to the CPU to start loading a cache line before it is needed.
//!
//! The encoder's tables (the piece cache, the merge table, the parts of a megabyte-long piece)
//! are larger than the L2 cache, and their lookups land at random places. Looked up one after
//! another, each miss waits for memory in turn; when the next addresses are known early, a
//! prefetch lets those misses overlap. A prefetch changes no result: on other architectures it
//! compiles to nothing.

/// Starts loading the cache line that holds `value` into L1.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults, reads nothing the program observes,
    // and the address comes from a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
