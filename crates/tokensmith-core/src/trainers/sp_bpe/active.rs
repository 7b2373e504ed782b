//! The active pairs, among which each step picks the next merge, as sentencepiece's
//! `UpdateActiveSymbols` and its scan of `active_symbols_` do.
//!
//! Every 100 pieces the active set becomes the `max(1000, 5% of the cache)` most frequent
//! pairs in the cache (all of them when fewer); a pair made by a merge joins it at once.
//! The best active pair has the highest count; ties go to the shorter piece, then to the
//! smaller text (by bytes). A pair outside the active set is not picked even when it counts
//! more, which sentencepiece's result depends on. sentencepiece leaves open which of
//! several pairs with the boundary count join the set; here the older pairs do.
//!
//! A max-heap holds the active pairs with the count they had when pushed; an entry whose
//! pair has left the set or changed count since is stale and dropped when it reaches the top.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::symbols::{State, Symbols};

/// Pairs kept active at least.
const MIN_ACTIVE: i64 = 1000;
/// The share of the cache kept active.
const TOP_SHARE: f32 = 0.05;

/// `(count, shorter first, smaller text prefix first, older first)`.
type Entry = (u64, Reverse<u32>, Reverse<u64>, Reverse<u32>);

/// The active set. See the module documentation.
#[derive(Default)]
pub struct Active {
    member: Vec<bool>,
    heap: BinaryHeap<Entry>,
}

impl Active {
    /// Makes the most frequent pairs of the cache the active set.
    pub fn refresh(&mut self, symbols: &Symbols) {
        let mut pairs: Vec<(u64, u32)> = (0..symbols.len() as u32)
            .into_par_iter()
            .filter(|&id| symbols.is_pair(id) && symbols.state[id as usize] != State::Erased)
            .map(|id| (symbols.count(id), id))
            .collect();
        let wanted = MIN_ACTIVE.max((symbols.cache_size as f32 * TOP_SHARE) as i64);
        let size = (wanted.max(0) as usize).min(pairs.len());
        if size > 0 && size < pairs.len() {
            pairs.select_nth_unstable_by(size - 1, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        pairs.truncate(size);
        self.member.clear();
        self.member.resize(symbols.len(), false);
        for &(_, id) in &pairs {
            self.member[id as usize] = true;
        }
        self.heap = pairs
            .into_iter()
            .map(|(count, id)| entry(symbols, id, count))
            .collect();
    }

    /// Adds `id` to the set (sentencepiece's `AddNewPair`).
    pub fn insert(&mut self, id: u32) {
        let i = id as usize;
        if i >= self.member.len() {
            self.member.resize(i + 1, false);
        }
        self.member[i] = true;
    }

    /// Takes `id` out of the set.
    pub fn remove(&mut self, id: u32) {
        if let Some(m) = self.member.get_mut(id as usize) {
            *m = false;
        }
    }

    /// Notes the current count of `id`, if it is active.
    pub fn update(&mut self, symbols: &Symbols, id: u32) {
        if self.is_member(id) {
            self.heap.push(entry(symbols, id, symbols.count(id)));
        }
    }

    fn is_member(&self, id: u32) -> bool {
        self.member.get(id as usize).copied().unwrap_or(false)
    }

    fn is_current(&self, symbols: &Symbols, e: &Entry) -> bool {
        let id = e.3 .0;
        self.is_member(id) && symbols.count(id) == e.0
    }

    /// The best active pair (left in the set), or `None` when the set is empty.
    pub fn best(&mut self, symbols: &Symbols) -> Option<u32> {
        let top = loop {
            let e = *self.heap.peek()?;
            if self.is_current(symbols, &e) {
                break e;
            }
            self.heap.pop();
        };
        // Entries equal in count, length and first bytes: the texts decide.
        let mut group: Vec<Entry> = Vec::new();
        while let Some(e) = self.heap.peek().copied() {
            if (e.0, e.1, e.2) != (top.0, top.1, top.2) {
                break;
            }
            self.heap.pop();
            if self.is_current(symbols, &e) && !group.iter().any(|g| g.3 == e.3) {
                group.push(e);
            }
        }
        let best = if group.len() == 1 {
            group[0]
        } else {
            let mut texts: Vec<(String, Entry)> =
                group.iter().map(|&e| (symbols.text(e.3 .0), e)).collect();
            texts.sort_by(|a, b| a.0.cmp(&b.0).then(b.1 .3.cmp(&a.1 .3)));
            texts[0].1
        };
        for e in group {
            self.heap.push(e);
        }
        Some(best.3 .0)
    }
}

fn entry(symbols: &Symbols, id: u32, count: u64) -> Entry {
    let i = id as usize;
    (
        count,
        Reverse(symbols.chars[i]),
        Reverse(symbols.prefix[i]),
        Reverse(id),
    )
}
