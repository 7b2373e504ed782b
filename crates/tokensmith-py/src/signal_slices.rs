//! Cutting a long batch into slices between which Ctrl-C is seen.
//!
//! A parallel batch hands out ranges of texts whose first shares are large (a quarter of the
//! batch), and a pending signal can only be handled once a range is done. Running the batch
//! slice by slice, each of at most [`SLICE_BYTES`] of text, bounds the wait after Ctrl-C to
//! one slice's work (tens of milliseconds) at the cost of one thread hand-off per slice.

use pyo3::prelude::*;
use std::ops::Range;
use tokensmith_core::parallel;

/// `parallel::map` over `items` slice by slice (at most `max_bytes` of text each, `len`
/// giving an item's bytes), checking for Ctrl-C before each slice; the results in input
/// order.
pub fn map_in_slices<T: Sync, R: Send>(
    py: Python<'_>,
    items: &[T],
    threads: usize,
    max_bytes: usize,
    len: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync + Send,
) -> PyResult<Vec<R>> {
    let mut out = Vec::with_capacity(items.len());
    for range in slices_by(items, max_bytes, len) {
        py.check_signals()?;
        out.extend(py.detach(|| parallel::map(&items[range], threads, &f)));
    }
    Ok(out)
}

/// The most text one slice holds, in bytes (a single longer text is a slice of its own).
pub const SLICE_BYTES: usize = 1 << 24;

/// The most text one slice of an HF-compatible batch holds: its encodings carry offsets,
/// tokens and masks, about ten times the work per byte of a bare-ids batch.
pub const HF_SLICE_BYTES: usize = 1 << 20;

/// Consecutive ranges of `texts` of at most `max_bytes` each (at least one text each):
/// `["ab", "cd", "e"]` with 4 bytes gives `[0..2, 2..3]`.
pub fn slices<S: AsRef<str>>(texts: &[S], max_bytes: usize) -> Vec<Range<usize>> {
    slices_by(texts, max_bytes, |t| t.as_ref().len())
}

/// [`slices`] over any items, `len` giving the bytes of text each holds.
pub fn slices_by<T>(items: &[T], max_bytes: usize, len: impl Fn(&T) -> usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        let len = len(item);
        if i > start && bytes + len > max_bytes {
            out.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += len;
    }
    if start < items.len() {
        out.push(start..items.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::slices;

    #[test]
    fn slices_cover_the_batch_in_order() {
        assert_eq!(slices(&["ab", "cd", "e"], 4), vec![0..2, 2..3]);
        assert_eq!(slices(&["abcdef", "g"], 4), vec![0..1, 1..2]);
        assert_eq!(slices::<&str>(&[], 4), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(slices(&["a"; 5], 100), vec![0..5]);
    }
}
