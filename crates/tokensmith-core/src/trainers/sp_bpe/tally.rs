//! The changes of one merge, summed per pair: what each pair gained (its weight and the words
//! it gained in, in the order the pairs first appear) and what each lost.
//!
//! The words of a merge are merged in runs on the pool, each run summing its own changes;
//! the runs' tallies are then added in word order ([`Tally::absorb`]), so the pairs keep
//! the order in which they first appear word by word, as one tally of every word would give
//! them, and the calling thread sums per pair and run instead of per change.
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::{Change, Tally};
//! let mut first = Tally::default();
//! first.add(3, 2, Change::Gained(7, 1));
//! first.add(3, 2, Change::Lost(1, 1));
//! let mut second = Tally::default();
//! second.add(5, 1, Change::Gained(9, 9));
//! second.add(5, 1, Change::Gained(7, 1));
//! first.absorb(second);
//! let (gains, lost) = first.into_parts();
//! assert_eq!(gains, [((7, 1), 3, vec![3, 5]), ((9, 9), 1, vec![5])]);
//! assert_eq!(lost, [((1, 1), 2)]);
//! ```

use rustc_hash::FxHashMap;

use super::words::Change;

/// A pair's parts, the weight it gained and the words it gained in (ascending).
pub type Gain = ((u32, u32), u64, Vec<u32>);
/// A pair's parts and the weight it lost.
pub type Loss = ((u32, u32), u64);

/// See the module documentation.
#[derive(Debug, Default)]
pub struct Tally {
    at: FxHashMap<(u32, u32), usize>,
    gains: Vec<Gain>,
    lost: FxHashMap<(u32, u32), u64>,
}

impl Tally {
    /// Adds one change made in word `wid`, whose count is `weight`. Words come in
    /// ascending order.
    pub fn add(&mut self, wid: u32, weight: u64, change: Change) {
        match change {
            Change::Lost(a, b) => *self.lost.entry((a, b)).or_insert(0) += weight,
            Change::Gained(a, b) => {
                let (_, total, words) = self.gain_of((a, b));
                *total += weight;
                if words.last() != Some(&wid) {
                    words.push(wid);
                }
            }
        }
    }

    /// Adds the tally of the words after this one's.
    pub fn absorb(&mut self, later: Tally) {
        if self.gains.is_empty() && self.lost.is_empty() {
            *self = later;
            return;
        }
        for (pair, weight, words) in later.gains {
            let (_, total, mine) = self.gain_of(pair);
            *total += weight;
            mine.extend(words);
        }
        for (pair, weight) in later.lost {
            *self.lost.entry(pair).or_insert(0) += weight;
        }
    }

    fn gain_of(&mut self, pair: (u32, u32)) -> &mut Gain {
        let gains = &mut self.gains;
        let at = *self.at.entry(pair).or_insert_with(|| {
            gains.push((pair, 0, Vec::new()));
            gains.len() - 1
        });
        &mut self.gains[at]
    }

    /// The gains in the order the pairs first appeared, and the losses by pair.
    pub fn into_parts(self) -> (Vec<Gain>, Vec<Loss>) {
        let mut lost: Vec<Loss> = self.lost.into_iter().collect();
        lost.sort_unstable();
        (self.gains, lost)
    }
}
