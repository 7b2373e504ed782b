//! A hint to the CPU to start loading a cache line before it is needed.
//!
//! The encoder's tables (the piece cache, the merge table, the parts of a megabyte-long piece)
//! are larger than the L2 cache, and their lookups land at random places. Looked up one after
//! another, each miss waits for memory in turn; when the next addresses are known early, a
//! prefetch lets those misses overlap. A prefetch changes no result: on other architectures it
//! compiles to nothing.

/// Starts loading the cache line at `address` into L1 (a `&T` coerces to it).
#[inline(always)]
pub fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults, even on an invalid address, and
    // reads nothing the program observes.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
