//! When a word cache doubles its tables.
//!
//! A cache too small for the text's words loses words it will see again, and each one comes
//! back as a miss and a Viterbi. On the 50 MB benchmark corpus (82 languages, code, manuals)
//! with its 32k model, the words that came back after they had been let go were 9.3 MB of the
//! 52.7 MB of words in one pass through 6 MiB of tables, against 3.0 MB through four times as
//! many sets; on a text read again they are most of the misses. A text of few distinct words
//! (the `encode_spm.py` mix: 35 such misses in 80,559 words) gains nothing from larger tables,
//! and would only spread its words over more memory. So a cache starts at its usual size and
//! doubles, up to [`MAX_DOUBLINGS`] times, when such returns are frequent.
//!
//! Words that leave a set are marked in a bit filter (one bit per word, by hash); a put (which
//! follows a miss) of a marked word counts as a return. Over each window of puts as long as
//! half the short table's slots, the tables double when at least one put in
//! [`RETURNS_PER_PUT`] was a return. A word that was never let go may share a marked bit: the
//! filter is cleared when one bit in 16 has been marked, so such false returns stay under one
//! put in 16, half the rule's threshold, on their own; a text of words that never come
//! back (each seen once) does not grow the tables. The filter remembers the last 131,072 to
//! 262,144 words let go: on the 8 MB part of the corpus read again, more than 90% of the
//! misses were returns, and over one pass of the 50 MB corpus 48%.
//!
//! Doubling moves every word to the same set index with one more bit, so the words of one old
//! set spread over two new sets, in the same order of use, and none is lost. The new tables
//! are zeroed memory, touched only where words land.

use super::{hash_of, long_set_of, short_set_of, Keyed, Set, WordCache};
use crate::models::bpe::huge::HugeSlice;

/// How many times the tables may double: at most 16 MiB of short and 8 MiB of long slots.
pub(crate) const MAX_DOUBLINGS: u32 = 2;
/// The tables double when at least one put in this many, over a window, was a return. With
/// one in four, one pass of the 50 MB corpus doubled the tables once (its windows at 12 MiB
/// counted 11-20% returns, which the filter undercounts: it forgets some words let go) and
/// missed 1.06 million of its 4.74 million words in a second pass; with one in eight they
/// double twice, and the second pass misses 0.72 million. False returns stay under one put
/// in 16 (see the module's doc).
pub(super) const RETURNS_PER_PUT: usize = 8;
/// Bits of the filter of words let go (a power of two): 256 KiB.
const FILTER_BITS: usize = 1 << 21;
/// Marks after which the filter is cleared: at most one bit in 16 is set, so at most one
/// word in 16 that was never let go looks like a return.
const FILTER_MARKS: usize = FILTER_BITS / 16;

/// The counts behind the doubling rule (see the module's doc).
pub(super) struct Growth {
    /// One bit per hash value (its bits 20 to 40, below the bits that pick a short set).
    let_go: Box<[u64]>,
    marks: usize,
    /// Puts and returns in the current window.
    puts: usize,
    returns: usize,
    doublings: u32,
}

impl Growth {
    pub(super) fn new() -> Self {
        Self {
            let_go: vec![0; FILTER_BITS / 64].into_boxed_slice(),
            marks: 0,
            puts: 0,
            returns: 0,
            doublings: 0,
        }
    }

    /// The filter word and bit of a hash.
    #[inline(always)]
    fn bit(hash: u64) -> (usize, u64) {
        let at = (hash >> 20) as usize & (FILTER_BITS - 1);
        (at / 64, 1 << (at % 64))
    }

    /// Marks the word of `slot`, which just left its set.
    pub(super) fn note_evicted<S: Keyed>(&mut self, slot: &S) {
        if self.doublings == MAX_DOUBLINGS {
            return;
        }
        let (len, key) = slot.word();
        let (word, bit) = Self::bit(hash_of(len, &key));
        if self.marks == FILTER_MARKS {
            self.let_go.fill(0);
            self.marks = 0;
        }
        self.let_go[word] |= bit;
        self.marks += 1;
    }

    /// Counts the put of a word with this hash into tables of `slots` short slots; whether
    /// the tables should double now.
    #[inline]
    pub(super) fn count_put(&mut self, hash: u64, slots: usize) -> bool {
        if self.doublings == MAX_DOUBLINGS {
            return false;
        }
        let (word, bit) = Self::bit(hash);
        self.puts += 1;
        self.returns += usize::from(self.let_go[word] & bit != 0);
        if self.puts < slots / 2 {
            return false;
        }
        let grow = self.returns * RETURNS_PER_PUT >= self.puts;
        self.puts = 0;
        self.returns = 0;
        if grow {
            self.doublings += 1;
            self.let_go.fill(0);
            self.marks = 0;
        }
        grow
    }

    /// How many times the tables have doubled.
    #[cfg(test)]
    pub(super) fn doublings(&self) -> u32 {
        self.doublings
    }
}

impl WordCache {
    /// Doubles both tables, keeping every word and each set's order of use.
    pub(super) fn grow(&mut self) {
        let (short_sets, long_sets) = (self.short.len(), self.long.len());
        let short = std::mem::replace(&mut self.short, HugeSlice::zeroed(2 * short_sets));
        let long = std::mem::replace(&mut self.long, HugeSlice::zeroed(2 * long_sets));
        for set in short.iter() {
            move_set(set, &mut self.short, short_set_of);
        }
        for set in long.iter() {
            move_set(set, &mut self.long, long_set_of);
        }
    }

    /// The number of short sets.
    #[cfg(test)]
    pub(super) fn short_sets(&self) -> usize {
        self.short.len()
    }

    /// How many times the tables have doubled.
    #[cfg(test)]
    pub(super) fn doublings(&self) -> u32 {
        self.growth.doublings()
    }
}

/// Moves the words of one set of a table into `to`, twice its size, most recently used first
/// (each lands in the first empty way of its new set: the words of one old set share their
/// two new sets with no other set's words, so none leaves).
fn move_set<S: Keyed, const W: usize>(
    set: &Set<S, W>,
    to: &mut HugeSlice<Set<S, W>>,
    set_of: fn(u64, usize) -> usize,
) {
    let sets = to.len();
    for slot in set.ways.iter().filter(|slot| !slot.is_empty()) {
        let (len, key) = slot.word();
        let left = to[set_of(hash_of(len, &key), sets)].insert(*slot, len, &key);
        debug_assert!(left.is_none(), "a doubled table has room for every word");
    }
}

/// Doubles every table this thread keeps that may still double (for tests: a grown cache
/// must give the same segmentations as a fresh one); returns how many it doubled.
#[cfg(test)]
pub(crate) fn double_this_threads_tables() -> usize {
    super::TABLES.with(|cell| {
        let mut doubled = 0;
        for (_, cache) in cell.borrow_mut().iter_mut() {
            if cache.short.len() < super::SHORT_SETS << MAX_DOUBLINGS {
                cache.grow();
                doubled += 1;
            }
        }
        doubled
    })
}

#[cfg(test)]
mod tests;
