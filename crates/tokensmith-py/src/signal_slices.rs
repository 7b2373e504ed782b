//! Cutting a long batch into slices between which Ctrl-C is seen.
//!
//! A parallel batch hands out ranges of texts whose first shares are large (a quarter of the
//! batch), and a pending signal can only be handled once a range is done. Running the batch
//! slice by slice, each of at most [`SLICE_BYTES`] of text, bounds the wait after Ctrl-C to
//! one slice's work (tens of milliseconds) at the cost of one thread hand-off per slice.

use std::ops::Range;

/// The most text one slice holds, in bytes (a single longer text is a slice of its own).
pub const SLICE_BYTES: usize = 1 << 24;

/// Consecutive ranges of `texts` of at most `max_bytes` each (at least one text each):
/// `["ab", "cd", "e"]` with 4 bytes gives `[0..2, 2..3]`.
pub fn slices<S: AsRef<str>>(texts: &[S], max_bytes: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, text) in texts.iter().enumerate() {
        let len = text.as_ref().len();
        if i > start && bytes + len > max_bytes {
            out.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += len;
    }
    if start < texts.len() {
        out.push(start..texts.len());
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
