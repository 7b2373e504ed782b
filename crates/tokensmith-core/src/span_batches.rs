//! Collects the spans of a text's pieces into batches of [`BATCH`] for the encoder
//! ([`crate::Encoding`]), taking the block path's pieces a block at a time
//! ([`PieceSink::block`]) without a branch per piece.
//!
//! ```
//! use tokensmith_core::span_batches::SpanBatches;
//! use tokensmith_core::pre_tokenizers::pieces::PieceSink;
//! let mut seen = Vec::new();
//! let mut batches = SpanBatches::new(|spans: &[(usize, usize)]| {
//!     seen.push(spans.to_vec());
//!     Ok(())
//! });
//! (&mut batches).block(0, 0b10100); // pieces 0..2 and 2..4
//! (&mut batches).piece(4, 9);
//! batches.finish().unwrap();
//! assert_eq!(seen, [vec![(0, 2), (2, 4), (4, 9)]]);
//! ```

use crate::error::Result;
use crate::models::bpe::BATCH;
use crate::pre_tokenizers::pieces::{each_piece, PieceSink};

/// The most pieces of a block written without a branch per piece; a block with more takes
/// them one at a time. A block of prose or of other scripts has about 9 to 11.
const WIDE: usize = 16;
const _: () = assert!(
    WIDE <= BATCH,
    "the spans kept after a batch fit before BATCH"
);

/// Spans of pieces, handed to `batch` [`BATCH`] at a time (the last batch may be shorter).
/// The first error that `batch` returns is kept, and later batches are still handed over.
pub struct SpanBatches<B: FnMut(&[(usize, usize)]) -> Result<()>> {
    /// Room for a batch and a block's pieces written past it.
    spans: [(usize, usize); BATCH + WIDE],
    /// How many spans are held (below [`BATCH`] between calls).
    held: usize,
    batch: B,
    failed: Option<crate::error::Error>,
}

impl<B: FnMut(&[(usize, usize)]) -> Result<()>> SpanBatches<B> {
    pub fn new(batch: B) -> Self {
        Self {
            spans: [(0, 0); BATCH + WIDE],
            held: 0,
            batch,
            failed: None,
        }
    }

    /// Hands over the spans still held; the first error any batch gave.
    pub fn finish(mut self) -> Result<()> {
        if self.held > 0 {
            self.hand_over(self.held);
        }
        self.failed.map_or(Ok(()), Err)
    }

    /// Hands over the first `n` spans held.
    #[inline]
    fn hand_over(&mut self, n: usize) {
        if let Err(e) = (self.batch)(&self.spans[..n]) {
            self.failed.get_or_insert(e);
        }
    }

    /// Hands over the first [`BATCH`] spans of the at least [`BATCH`] held, and keeps the
    /// rest (fewer than [`WIDE`]: a call adds at most that many to fewer than [`BATCH`]).
    #[inline]
    fn hand_over_batch(&mut self) {
        self.hand_over(BATCH);
        // A copy of fixed length, without a call to `memmove`.
        let (front, back) = self.spans.split_at_mut(BATCH);
        front[..WIDE].copy_from_slice(back);
        self.held -= BATCH;
    }
}

impl<B: FnMut(&[(usize, usize)]) -> Result<()>> PieceSink for &mut SpanBatches<B> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        self.spans[self.held] = (start, end);
        self.held += 1;
        if self.held >= BATCH {
            self.hand_over_batch();
        }
    }

    #[inline(always)]
    fn block(&mut self, i: usize, ends: u64) {
        let n = ends.count_ones() as usize;
        if n > WIDE {
            each_piece(i, ends, |start, end| self.piece(start, end));
            return;
        }
        // WIDE spans, those past the block's `n` pieces written and then dropped.
        let out: &mut [(usize, usize); WIDE] = (&mut self.spans[self.held..self.held + WIDE])
            .try_into()
            .expect("WIDE spans");
        let mut ends = ends;
        let mut start = i;
        for slot in out.iter_mut() {
            let end = i + ends.trailing_zeros() as usize;
            *slot = (start, end);
            start = end;
            ends &= ends.wrapping_sub(1);
        }
        self.held += n;
        if self.held >= BATCH {
            self.hand_over_batch();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    /// Random blocks (a few with more than [`WIDE`] pieces) and single pieces: the batches
    /// are the spans in order, cut every [`BATCH`], and a failing batch does not stop the
    /// later ones.
    #[test]
    fn batches_are_the_spans_in_order() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..300 {
            let mut want = Vec::new();
            let mut got: Vec<Vec<(usize, usize)>> = Vec::new();
            let mut calls = 0;
            let mut batches = SpanBatches::new(|spans: &[(usize, usize)]| {
                got.push(spans.to_vec());
                calls += 1;
                if calls == 2 {
                    return Err(Error::Pattern("second batch".into()));
                }
                Ok(())
            });
            let mut i = 0;
            for _ in 0..round % 40 {
                let r = next();
                if r % 5 == 0 {
                    let end = i + 1 + (r >> 8) as usize % 300;
                    want.push((i, end));
                    (&mut batches).piece(i, end);
                    i = end;
                    continue;
                }
                // About 4, 8, 16 (around WIDE) or 32 pieces a block, up to 63.
                let mut ends = next();
                for _ in 0..(r >> 20) % 4 {
                    ends &= next();
                }
                let ends = ends & !1;
                let ends = if ends == 0 { 1 << 63 } else { ends };
                let mut start = i;
                for j in (1..64).filter(|j| ends >> j & 1 == 1) {
                    want.push((start, i + j));
                    start = i + j;
                }
                (&mut batches).block(i, ends);
                i = start;
            }
            let result = batches.finish();
            let expected: Vec<Vec<(usize, usize)>> =
                want.chunks(BATCH).map(|c| c.to_vec()).collect();
            assert_eq!(got, expected, "round {round}");
            assert_eq!(result.is_err(), expected.len() >= 2, "round {round}");
        }
    }
}
