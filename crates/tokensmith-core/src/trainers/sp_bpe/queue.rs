//! A max-queue filled once with many entries and then fed a few at a time: the first
//! entries are sorted (on the pool) and read from the front, later ones go to a small heap,
//! and the larger of the two fronts comes out first.
//!
//! The BPE trainer seeds its queue with every pair of the words (millions on a large corpus)
//! and then pushes only the pairs each merge adds to. One heap of them all made each pop
//! walk a tree of millions of entries, a cache miss per level; here most pops read the next
//! entry of a sorted array, and the heap stays as small as the pushes since the seed.
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::Queue;
//! let mut q = Queue::seeded(vec![3, 9, 1]);
//! q.push(5);
//! let order: Vec<u32> = std::iter::from_fn(|| q.pop()).collect();
//! assert_eq!(order, [9, 5, 3, 1]);
//! ```

use std::collections::BinaryHeap;

use rayon::prelude::*;

/// See the module documentation.
#[derive(Debug)]
pub struct Queue<T> {
    /// The seed, largest first; `sorted[next..]` are still queued.
    sorted: Vec<T>,
    next: usize,
    heap: BinaryHeap<T>,
}

impl<T: Ord> Default for Queue<T> {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            next: 0,
            heap: BinaryHeap::new(),
        }
    }
}

impl<T: Ord + Copy + Send> Queue<T> {
    /// A queue holding `entries`.
    pub fn seeded(mut entries: Vec<T>) -> Self {
        entries.par_sort_unstable_by(|a, b| b.cmp(a));
        Self {
            sorted: entries,
            next: 0,
            heap: BinaryHeap::new(),
        }
    }

    pub fn push(&mut self, entry: T) {
        self.heap.push(entry);
    }

    /// The largest entry, left in the queue.
    pub fn peek(&self) -> Option<T> {
        match (self.sorted.get(self.next), self.heap.peek()) {
            (Some(&s), Some(&h)) => Some(s.max(h)),
            (s, h) => s.or(h).copied(),
        }
    }

    /// Takes out the largest entry.
    pub fn pop(&mut self) -> Option<T> {
        let from_sorted = match (self.sorted.get(self.next), self.heap.peek()) {
            (Some(s), Some(h)) => s >= h,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !from_sorted {
            return self.heap.pop();
        }
        let entry = self.sorted[self.next];
        self.next += 1;
        if self.next == self.sorted.len() {
            // The seed is used up: its memory goes back.
            self.sorted = Vec::new();
            self.next = 0;
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_the_order_of_one_heap() {
        let mut rng = crate::models::unigram::SplitMix64::new(11);
        let seed: Vec<u64> = (0..5000).map(|_| rng.next_u64() % 1000).collect();
        let mut queue = Queue::seeded(seed.clone());
        let mut heap = BinaryHeap::from(seed);
        for round in 0..12_000 {
            // Pushes and pops mixed, pushes sometimes larger than every seeded entry.
            if rng.next_u64().is_multiple_of(3) {
                let e = rng.next_u64() % (1000 + round);
                queue.push(e);
                heap.push(e);
            }
            assert_eq!(queue.peek(), heap.peek().copied());
            assert_eq!(queue.pop(), heap.pop());
        }
        assert_eq!(queue.pop(), heap.pop());
    }
}
