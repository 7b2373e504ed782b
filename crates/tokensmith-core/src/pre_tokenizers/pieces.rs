//! Where a splitter hands its pieces: one at a time, or all the pieces that the block path
//! cut from one block at once (as a mask of their ends), so that a receiver can take a block
//! without a branch per piece.
//!
//! Any `FnMut(usize, usize)` is a receiver that takes the pieces one at a time.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::pieces::PieceSink;
//! let mut pieces = Vec::new();
//! let mut push = |s: usize, e: usize| pieces.push((s, e));
//! push.block(10, 0b1010); // pieces end at 11 and 13
//! push.piece(13, 20);
//! assert_eq!(pieces, [(10, 11), (11, 13), (13, 20)]);
//! ```

/// A receiver of a text's pieces, in order.
pub trait PieceSink {
    /// Takes the piece `start..end`.
    fn piece(&mut self, start: usize, end: usize);

    /// Takes the pieces from `i` to `i + j` for each set bit `j` of `ends`, in order: the
    /// first starts at `i`, each next one where the one before ends. `ends` has no bit 0.
    #[inline(always)]
    fn block(&mut self, i: usize, ends: u64) {
        each_piece(i, ends, |start, end| self.piece(start, end));
    }
}

/// Calls `f` with each piece of a block, as [`PieceSink::block`] describes them.
#[inline(always)]
pub fn each_piece(i: usize, ends: u64, mut f: impl FnMut(usize, usize)) {
    let mut ends = ends;
    let mut start = i;
    while ends != 0 {
        let end = i + ends.trailing_zeros() as usize;
        f(start, end);
        start = end;
        ends &= ends - 1;
    }
}

impl<F: FnMut(usize, usize)> PieceSink for F {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        self(start, end)
    }
}
