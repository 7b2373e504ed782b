//! The rule for buffers a thread keeps between calls.
//!
//! Encoders keep their working buffers (the normalized text, spans, ids, Viterbi tables) in
//! thread-locals, so that encoding a short text allocates nothing. A buffer only grows, so
//! one long text would pin its working memory to the thread for the rest of the process
//! (encoding a 50 MB string left 1.8 GB behind). At the end of a call, a buffer larger than
//! [`KEEP_BYTES`] is freed instead; the next long text allocates again, which costs little
//! next to encoding it. HF's `Tokenizer` keeps or drops its whole encodings by the same rule.

/// The most memory one kept buffer holds on to between calls.
pub const KEEP_BYTES: usize = 4 << 20;

/// Frees `buffer`'s memory if it is larger than [`KEEP_BYTES`] (keeps it otherwise).
///
/// ```
/// use tokensmith_core::scratch::{release_if_large, KEEP_BYTES};
/// let mut small: Vec<u32> = Vec::with_capacity(16);
/// let mut large: Vec<u32> = Vec::with_capacity(KEEP_BYTES);
/// release_if_large(&mut small);
/// release_if_large(&mut large);
/// assert!(small.capacity() >= 16);
/// assert_eq!(large.capacity(), 0);
/// ```
#[inline]
pub fn release_if_large<T>(buffer: &mut Vec<T>) {
    if !worth_keeping(buffer.capacity().saturating_mul(std::mem::size_of::<T>())) {
        *buffer = Vec::new();
    }
}

/// [`release_if_large`] for a `String`.
#[inline]
pub fn release_text_if_large(buffer: &mut String) {
    if !worth_keeping(buffer.capacity()) {
        *buffer = String::new();
    }
}

/// Whether a buffer (or a set of buffers kept together) of `bytes` may be kept for the next
/// call.
#[inline]
pub fn worth_keeping(bytes: usize) -> bool {
    bytes <= KEEP_BYTES
}
