//! A max-queue filled once with many entries and then fed a few at a time: the first
//! entries are sorted (on the pool) and read from the front, later ones go to a small heap
//! (or, below a floor, to an unordered list), and the larger of the two fronts comes out
//! first.
//!
//! The BPE trainer seeds its queue with every pair of the words (millions on a large corpus)
//! and then pushes only the pairs each merge adds to. One heap of them all made each pop
//! walk a tree of millions of entries, a cache miss per level; here most pops read the next
//! entry of a sorted array.
//!
//! Most pushes are pairs a merge has just made, with counts far below the ones still to be
//! chosen, and most of them never come out. A pushed entry below a floor (the seed's
//! [`HEAP_ROOM`]th entry at first) goes to an unordered list instead of the heap; when the
//! fronts fall below the floor, the largest listed entries move to the heap and the floor
//! drops to the least of them. The heap stays small enough to stay in cache.
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

/// About how many entries the heap holds when the floor is set.
pub const HEAP_ROOM: usize = 4096;

/// See the module documentation.
#[derive(Debug)]
pub struct Queue<T> {
    /// The seed, largest first; `sorted[next..]` are still queued.
    sorted: Vec<T>,
    next: usize,
    heap: BinaryHeap<T>,
    /// Every entry of `below` is at most the floor; `None` once every listed entry has moved
    /// to the heap (pushes then go to the heap).
    floor: Option<T>,
    below: Vec<T>,
}

impl<T: Ord> Default for Queue<T> {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            next: 0,
            heap: BinaryHeap::new(),
            floor: None,
            below: Vec::new(),
        }
    }
}

impl<T: Ord + Copy + Send> Queue<T> {
    /// A queue holding `entries`.
    pub fn seeded(mut entries: Vec<T>) -> Self {
        entries.par_sort_unstable_by(|a, b| b.cmp(a));
        let floor = entries.get(HEAP_ROOM).copied();
        Self {
            sorted: entries,
            next: 0,
            heap: BinaryHeap::new(),
            floor,
            below: Vec::new(),
        }
    }

    pub fn push(&mut self, entry: T) {
        match self.floor {
            Some(floor) if entry <= floor => self.below.push(entry),
            _ => self.heap.push(entry),
        }
    }

    /// The larger of the two fronts: the largest entry when it is not below the floor.
    fn front(&self) -> Option<T> {
        match (self.sorted.get(self.next), self.heap.peek()) {
            (Some(&s), Some(&h)) => Some(s.max(h)),
            (s, h) => s.or(h).copied(),
        }
    }

    /// Moves listed entries to the heap until the fronts are not below the floor.
    fn settle(&mut self) {
        while let Some(floor) = self.floor {
            if self.front().is_some_and(|f| f >= floor) {
                return;
            }
            if self.below.len() <= HEAP_ROOM {
                self.heap.extend(self.below.drain(..));
                self.floor = None;
                return;
            }
            // The HEAP_ROOM largest listed entries go up; the least of them is the floor.
            let at = self.below.len() - HEAP_ROOM;
            self.below.select_nth_unstable(at);
            let floor = self.below[at];
            self.heap.extend(self.below.drain(at..));
            self.floor = Some(floor);
        }
    }

    /// The largest entry, left in the queue.
    pub fn peek(&mut self) -> Option<T> {
        self.settle();
        self.front()
    }

    /// Takes out the largest entry.
    pub fn pop(&mut self) -> Option<T> {
        self.settle();
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

    #[test]
    fn many_small_pushes_keep_the_order() {
        // Far more pushes below the floor than the heap's room, so listed entries move up
        // several times, and now and then a push above every entry.
        let mut rng = crate::models::unigram::SplitMix64::new(5);
        let seed: Vec<u64> = (0..3 * HEAP_ROOM as u64)
            .map(|_| rng.next_u64() % 5000)
            .collect();
        let mut queue = Queue::seeded(seed.clone());
        let mut heap = BinaryHeap::from(seed);
        for round in 0..40 * HEAP_ROOM {
            let r = rng.next_u64();
            if !r.is_multiple_of(4) {
                let e = if r % 97 == 1 { 6000 } else { r % 300 };
                queue.push(e);
                heap.push(e);
            }
            if round.is_multiple_of(2) {
                assert_eq!(queue.peek(), heap.peek().copied());
                assert_eq!(queue.pop(), heap.pop());
            }
        }
        while let Some(e) = heap.pop() {
            assert_eq!(queue.pop(), Some(e));
        }
        assert_eq!(queue.pop(), None);
    }
}
