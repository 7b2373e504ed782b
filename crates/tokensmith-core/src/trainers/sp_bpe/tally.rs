//! The changes of one merge, summed per pair: what each pair gained (its weight and the words
//! it gained in, in the order the pairs first appear) and what each lost.
//!
//! Merging `left`+`right` into `merged` only touches pairs with a known side: a gained pair
//! is `(x, merged)` or `(merged, x)`, a lost one `(x, left)` or `(right, x)`. So a pair is
//! found by its other symbol `x` and its side in [`Slots`], arrays indexed by symbol id and
//! reused from merge to merge, instead of by hashing the pair for every change. A tally is
//! taken out of its slots when its run ends ([`Tally::clear`]), so only the threads at work
//! hold slots.
//!
//! The words of a merge are merged in runs on the pool, each run summing its own changes;
//! the runs' tallies are then added in word order ([`Tally::absorb`]), so the pairs keep
//! the order in which they first appear word by word, as one tally of every word would give
//! them, and the calling thread sums per pair and run instead of per change.
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::{Change, Slots, Tally};
//! // Merging 1+1 into 7, with 9 symbols so far.
//! let mut slots = Slots::default();
//! slots.fit(9);
//! let mut first = Tally::new((1, 1, 7));
//! first.add(&mut slots, 3, 2, Change::Gained(7, 1));
//! first.add(&mut slots, 3, 2, Change::Lost(1, 1));
//! first.clear(&mut slots);
//! let mut second = Tally::new((1, 1, 7));
//! second.add(&mut slots, 5, 1, Change::Gained(8, 7));
//! second.add(&mut slots, 5, 1, Change::Gained(7, 1));
//! second.clear(&mut slots);
//! first.mark(&mut slots);
//! first.absorb(&mut slots, &second);
//! first.clear(&mut slots);
//! let (gains, lost) = first.into_parts();
//! assert_eq!(gains, [((7, 1), 3, vec![3, 5]), ((8, 7), 1, vec![5])]);
//! assert_eq!(lost, [((1, 1), 2)]);
//! ```

use super::words::Change;

/// A pair's parts, the weight it gained and the words it gained in (ascending).
pub type Gain = ((u32, u32), u64, Vec<u32>);
/// A pair's parts and the weight it lost.
pub type Loss = ((u32, u32), u64);

/// Where each pair of a tally is, by its other symbol and side: entry + 1, 0 for none. All
/// zero between tallies; one per thread at a time, kept from merge to merge.
#[derive(Debug, Default)]
pub struct Slots {
    gained: Vec<u32>,
    lost: Vec<u32>,
}

impl Slots {
    /// Slots for `symbols` symbols.
    pub fn fit(&mut self, symbols: usize) {
        if self.gained.len() < 2 * symbols {
            self.gained.resize(2 * symbols, 0);
            self.lost.resize(2 * symbols, 0);
        }
    }
}

/// See the module documentation.
#[derive(Debug)]
pub struct Tally {
    /// `(left, right, merged)` of the merge.
    merge: (u32, u32, u32),
    /// Each gained pair, its weight and the last word it gained in.
    gains: Vec<((u32, u32), u64, u32)>,
    /// `(gain, word)` for each word a pair gained in, in word order.
    gained_in: Vec<(u32, u32)>,
    lost: Vec<Loss>,
    /// A buffer for one word's changes, lent to whoever merges the words.
    changes: Vec<Change>,
}

impl Tally {
    /// An empty tally of the merge `(left, right, merged)`.
    pub fn new(merge: (u32, u32, u32)) -> Self {
        Self {
            merge,
            gains: Vec::new(),
            gained_in: Vec::new(),
            lost: Vec::new(),
            changes: Vec::new(),
        }
    }

    /// This tally's buffer for one word's changes, kept from merge to merge (see
    /// [`Self::give_changes`]).
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    /// Gives back the buffer of [`Self::take_changes`].
    pub fn give_changes(&mut self, changes: Vec<Change>) {
        self.changes = changes;
    }

    /// Empties this tally for the merge `(left, right, merged)`, keeping its memory: a tally
    /// grown afresh for each of tens of thousands of merges spent a tenth of the merging
    /// thread's time in the allocator.
    pub fn reset(&mut self, merge: (u32, u32, u32)) {
        self.merge = merge;
        self.gains.clear();
        self.gained_in.clear();
        self.lost.clear();
    }

    /// Adds one change made in word `wid` (its place in the word store), whose count is
    /// `weight`. Words come in ascending order; `slots` hold this tally's pairs (see [`Self::mark`]).
    pub fn add(&mut self, slots: &mut Slots, wid: u32, weight: u64, change: Change) {
        match change {
            Change::Lost(a, b) => {
                let at = self.lost_at(slots, (a, b));
                self.lost[at].1 += weight;
            }
            Change::Gained(a, b) => {
                let at = self.gain_at(slots, (a, b));
                let gain = &mut self.gains[at];
                gain.1 += weight;
                if gain.2 != wid {
                    gain.2 = wid;
                    self.gained_in.push((at as u32, wid));
                }
            }
        }
    }

    /// Adds the tally of the words after this one's.
    pub fn absorb(&mut self, slots: &mut Slots, later: &Tally) {
        let mut moved: Vec<u32> = Vec::with_capacity(later.gains.len());
        for &(pair, weight, last) in &later.gains {
            let at = self.gain_at(slots, pair);
            self.gains[at].1 += weight;
            self.gains[at].2 = last;
            moved.push(at as u32);
        }
        self.gained_in.extend(
            later
                .gained_in
                .iter()
                .map(|&(g, wid)| (moved[g as usize], wid)),
        );
        for &(pair, weight) in &later.lost {
            let at = self.lost_at(slots, pair);
            self.lost[at].1 += weight;
        }
    }

    /// Puts this tally's pairs in `slots` (all zero before).
    pub fn mark(&self, slots: &mut Slots) {
        for (i, g) in self.gains.iter().enumerate() {
            slots.gained[self.gain_slot(g.0)] = i as u32 + 1;
        }
        for (i, l) in self.lost.iter().enumerate() {
            slots.lost[self.lost_slot(l.0)] = i as u32 + 1;
        }
    }

    /// Takes this tally's pairs out of `slots`, all zero again.
    pub fn clear(&self, slots: &mut Slots) {
        for g in &self.gains {
            slots.gained[self.gain_slot(g.0)] = 0;
        }
        for l in &self.lost {
            slots.lost[self.lost_slot(l.0)] = 0;
        }
    }

    /// The gains in the order the pairs first appeared, and the losses by pair; the tally is
    /// left empty, its memory kept (see [`Self::reset`]).
    pub fn into_parts(&mut self) -> (Vec<Gain>, Vec<Loss>) {
        let mut sizes = vec![0usize; self.gains.len()];
        for &(g, _) in &self.gained_in {
            sizes[g as usize] += 1;
        }
        let mut gains: Vec<Gain> = self
            .gains
            .iter()
            .zip(sizes)
            .map(|(&(pair, weight, _), n)| (pair, weight, Vec::with_capacity(n)))
            .collect();
        for &(g, wid) in &self.gained_in {
            gains[g as usize].2.push(wid);
        }
        self.gains.clear();
        self.gained_in.clear();
        let room = self.lost.len();
        let mut lost = std::mem::replace(&mut self.lost, Vec::with_capacity(room));
        lost.sort_unstable();
        (gains, lost)
    }

    /// The slot of a gained pair: `(x, merged)` by `x`, else `(merged, x)` by `x`.
    fn gain_slot(&self, (a, b): (u32, u32)) -> usize {
        if b == self.merge.2 {
            2 * a as usize
        } else {
            2 * b as usize + 1
        }
    }

    /// The slot of a lost pair: `(x, left)` by `x`, else `(right, x)` by `x`.
    fn lost_slot(&self, (a, b): (u32, u32)) -> usize {
        if b == self.merge.0 {
            2 * a as usize
        } else {
            2 * b as usize + 1
        }
    }

    fn gain_at(&mut self, slots: &mut Slots, pair: (u32, u32)) -> usize {
        let slot = self.gain_slot(pair);
        match slots.gained[slot] {
            0 => {
                self.gains.push((pair, 0, u32::MAX));
                slots.gained[slot] = self.gains.len() as u32;
                self.gains.len() - 1
            }
            at => at as usize - 1,
        }
    }

    fn lost_at(&mut self, slots: &mut Slots, pair: (u32, u32)) -> usize {
        let slot = self.lost_slot(pair);
        match slots.lost[slot] {
            0 => {
                self.lost.push((pair, 0));
                slots.lost[slot] = self.lost.len() as u32;
                self.lost.len() - 1
            }
            at => at as usize - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::words::merge_word_into;
    use super::*;

    /// Every change summed in one hash map per kind: what the runs and slots must give.
    fn one_map(changes: &[(u32, u64, Change)]) -> (Vec<Gain>, Vec<Loss>) {
        let mut gains: Vec<Gain> = Vec::new();
        let mut at: HashMap<(u32, u32), usize> = HashMap::new();
        let mut lost: HashMap<(u32, u32), u64> = HashMap::new();
        for &(wid, weight, change) in changes {
            match change {
                Change::Lost(a, b) => *lost.entry((a, b)).or_insert(0) += weight,
                Change::Gained(a, b) => {
                    let k = *at.entry((a, b)).or_insert_with(|| {
                        gains.push(((a, b), 0, Vec::new()));
                        gains.len() - 1
                    });
                    gains[k].1 += weight;
                    if gains[k].2.last() != Some(&wid) {
                        gains[k].2.push(wid);
                    }
                }
            }
        }
        let mut lost: Vec<Loss> = lost.into_iter().collect();
        lost.sort_unstable();
        (gains, lost)
    }

    #[test]
    fn runs_and_slots_sum_as_one_map() {
        let mut rng = crate::models::unigram::SplitMix64::new(11);
        let mut next = |m: u64| rng.next_u64() % m;
        // Symbols 0..4 in words; merging 1+1 (overlaps) and 1+2 into 5.
        for (left, right) in [(1, 1), (1, 2)] {
            let mut changes = Vec::new();
            for wid in 0..300u32 {
                let mut word: Vec<u32> = (0..2 + next(8)).map(|_| next(4) as u32).collect();
                let mut buf = Vec::new();
                merge_word_into(&mut word, left, right, 5, &mut buf);
                let weight = 1 + next(3);
                changes.extend(buf.into_iter().map(|c| (wid, weight, c)));
            }
            let mut slots = Slots::default();
            slots.fit(6);
            // Runs of 37 words, as the pool splits a merge's words.
            let runs: Vec<Tally> = changes
                .chunk_by(|a, b| a.0 / 37 == b.0 / 37)
                .map(|run| {
                    let mut t = Tally::new((left, right, 5));
                    for &(wid, weight, change) in run {
                        t.add(&mut slots, wid, weight, change);
                    }
                    t.clear(&mut slots);
                    t
                })
                .collect();
            let mut runs = runs.into_iter();
            let mut total = runs.next().unwrap();
            total.mark(&mut slots);
            for t in runs {
                total.absorb(&mut slots, &t);
            }
            total.clear(&mut slots);
            assert!(slots.gained.iter().chain(&slots.lost).all(|&s| s == 0));
            assert_eq!(total.into_parts(), one_map(&changes));
        }
    }
}
