//! The double-array layout of the character trie, built straight from its keys sorted by
//! their code sequences.
//!
//! In sorted order the keys below any node of the trie form one run, the key that ends at the
//! node first, and the keys below each child form consecutive runs in order of the child's
//! code. So the trie is never built as nodes: a node is a run of keys and a depth, its children
//! are read off the run, and the layout places them breadth first as it goes (no list of
//! children per node, no allocation per node).

use std::collections::VecDeque;

use super::char_trie::NONE;
use super::trie::Unit;

/// How many free slots the layout tries for a node's lowest child before it places the
/// children after every used slot.
const GAP_SEARCH: usize = 1 << 16;
/// Nodes with more children than this are wide (see [`layout`]).
const WIDE: usize = 32;

/// Keys as code sequences: what [`layout`] places.
pub(super) struct Keys {
    /// Every key as a record: the index of its value, its codes plus one, then 0. Records
    /// are grouped by first code (a counting sort, which keeps the given order within a
    /// group): the keys below any node then sit in one stretch of memory, which the layout's
    /// many small sorts read in cache, and a key is named by where its codes start.
    records: Vec<u32>,
    /// Where each key's codes start in `records`, in record order.
    starts: Vec<u32>,
    /// Each key's `(id, score)`, in the order given.
    values: Vec<(u32, f32)>,
}

impl Keys {
    /// The keys, each given as its codes and `(id, score)`; of equal keys the first one given
    /// is kept.
    pub(super) fn new<I, C>(keys: I) -> Self
    where
        I: IntoIterator<Item = (C, (u32, f32))>,
        C: IntoIterator<Item = u32>,
    {
        let mut codes = Vec::new();
        let mut ends = Vec::new();
        let mut values = Vec::new();
        for (key, value) in keys {
            codes.extend(key.into_iter().map(|code| code + 1));
            ends.push(codes.len());
            values.push(value);
        }
        let key = |i: usize| &codes[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        let first = |i: usize| key(i).first().map_or(0, |&code| code as usize);
        // Per first code (plus one; 0 for an empty key): the keys, then the records' length.
        let groups = (0..values.len()).map(first).max().map_or(0, |m| m + 1);
        let mut sizes = vec![(0usize, 0usize); groups];
        for i in 0..values.len() {
            let size = &mut sizes[first(i)];
            (size.0, size.1) = (size.0 + 1, size.1 + key(i).len() + 2);
        }
        let mut cursors = Vec::with_capacity(groups);
        let (mut keys_before, mut records_before) = (0, 0);
        for &(keys, records) in &sizes {
            cursors.push((keys_before, records_before));
            (keys_before, records_before) = (keys_before + keys, records_before + records);
        }
        let mut records = vec![0u32; records_before];
        let mut starts = vec![0u32; keys_before];
        for i in 0..values.len() {
            let cursor = &mut cursors[first(i)];
            let (at, start) = *cursor;
            let codes = key(i);
            records[start] = i as u32;
            records[start + 1..start + 1 + codes.len()].copy_from_slice(codes);
            starts[at] = (start + 1) as u32;
            *cursor = (at + 1, start + codes.len() + 2);
        }
        Self {
            records,
            starts,
            values,
        }
    }

    /// Sorts the keys at `run` of `order` (which share their first `depth` codes) by their
    /// code at `depth`, a key that has none (it ends there) first, ties in the order given;
    /// writes the node's children, as `(code, run)` by code, into `kids` (cleared first).
    /// `scratch` is reused space.
    fn sort_children(
        &self,
        order: &mut [u32],
        run: (u32, u32),
        depth: usize,
        scratch: &mut Vec<u64>,
        kids: &mut Vec<(u32, (u32, u32))>,
    ) {
        let run_keys = &mut order[run.0 as usize..run.1 as usize];
        // The key's code at `depth` plus one (0 when it ends there), above where its record
        // starts: numbers that sort as wanted (records keep the given order of the keys that
        // share a first code, which all keys below a node other than the root do).
        scratch.clear();
        scratch.extend(run_keys.iter().map(|&start| {
            u64::from(self.records[start as usize + depth]) << 32 | u64::from(start)
        }));
        if scratch.len() > 1 {
            scratch.sort_unstable();
        }
        kids.clear();
        for (i, (&packed, slot)) in scratch.iter().zip(run_keys.iter_mut()).enumerate() {
            *slot = packed as u32;
            let at = run.0 + i as u32;
            match (packed >> 32) as u32 {
                // The keys that end at this node (one, or copies of it).
                0 => {}
                code => match kids.last_mut() {
                    Some((last, run)) if *last == code - 1 => run.1 = at + 1,
                    _ => kids.push((code - 1, (at, at + 1))),
                },
            }
        }
    }

    /// The `(id, score)` of the key `order[at]` when there is one and it has `depth` codes.
    #[inline]
    fn value(&self, order: &[u32], at: u32, depth: usize) -> Option<(u32, f32)> {
        let start = *order.get(at as usize)? as usize;
        (self.records[start + depth] == 0).then(|| self.values[self.records[start - 1] as usize])
    }
}

/// Lays out the trie of `keys` breadth first, children in code order, each node's children at
/// the first base where all their slots are free, among the first [`GAP_SEARCH`] free slots
/// tried for the lowest child (past those, after every used slot, which bounds the build
/// time). State 0 is the root.
///
/// The search for that base (most of the build: the array is nearly full, and a node with
/// several children passes many holes that fit only one) tests 64 candidate slots at once,
/// with one shift and one AND of the free-slot bits per child.
pub(super) fn layout(keys: &Keys) -> Vec<Unit> {
    layout_with(keys, GAP_SEARCH)
}

/// [`layout`], trying `gap_search` free slots (a test makes it small, to reach the fallback).
fn layout_with(keys: &Keys, gap_search: usize) -> Vec<Unit> {
    let mut units = vec![Unit::FREE; 1];
    units[0].check = NONE - 1;
    let mut free = FreeSlots::default();
    free.take(0);
    let (mut last_used, mut wide_from) = (0usize, 0usize);
    // (run of keys, depth, state)
    let mut queue = VecDeque::from([((0u32, keys.starts.len() as u32), 0usize, 0usize)]);
    // The keys, by where their codes start, in an order where every node's keys form a run
    // (each node's run is sorted when the node is placed, a radix sort from the first code
    // on).
    let mut order = keys.starts.clone();
    let (mut kids, mut scratch) = (Vec::new(), Vec::new());
    while let Some((run, depth, state)) = queue.pop_front() {
        keys.sort_children(&mut order, run, depth, &mut scratch, &mut kids);
        // Sorted, the run starts with the key that ends at this node, if any.
        if let Some((id, score)) = keys.value(&order, run.0, depth) {
            (units[state].value, units[state].score) = (id, score);
        }
        let (Some(&(lowest, _)), Some(&(highest, _))) = (kids.first(), kids.last()) else {
            continue;
        };
        let (lowest, highest) = (lowest as usize, highest as usize);
        // Bases start at 1, so no child lands on the root. A wide node (one that begins
        // many pieces, such as a lead character or `▁`) rarely fits in the packed front, so
        // wide nodes search from where the last one went, sharing each other's gaps.
        let wide = kids.len() > WIDE;
        let start = free.first_from(if wide { wide_from } else { 0 }.max(lowest + 1));
        let base = free
            .first_fit(start, &kids, gap_search)
            .map(|slot| slot - lowest);
        let base = base.unwrap_or_else(|| (last_used + 1).max(lowest + 1) - lowest);
        if units.len() <= base + highest {
            units.resize(base + highest + 1, Unit::FREE);
        }
        units[state].base = base as u32;
        if wide {
            wide_from = base + lowest;
        }
        for &(code, run) in &kids {
            let slot = base + code as usize;
            last_used = last_used.max(slot);
            free.take(slot);
            units[slot] = Unit::child(state, None);
            queue.push_back((run, depth + 1, slot));
        }
    }
    units
}

/// The free slots of the layout, a bit per slot (a small array that stays in cache, unlike
/// the units), and a bit per word of those telling whether it is full, to step over the
/// packed front at once. Every slot past the end is free.
#[derive(Default)]
struct FreeSlots {
    used: Vec<u64>,
    full: Vec<u64>,
    /// The first word of `used` that is not full: every slot before it is used.
    packed: usize,
}

impl FreeSlots {
    /// The free bits of slots `at..at + 64` (bit `i` for slot `at + i`).
    #[inline]
    fn free_window(&self, at: usize) -> u64 {
        let word = |i: usize| !self.used.get(i).copied().unwrap_or(0);
        let (i, shift) = (at / 64, at % 64);
        if shift == 0 {
            word(i)
        } else {
            word(i) >> shift | word(i + 1) << (64 - shift)
        }
    }

    /// The slot for the lowest of `kids` (sorted by code) where every kid's slot is free,
    /// among the first `tries` free slots from `start` (a free slot) on; `None` when none of
    /// them fits. The same answer as trying the free slots one by one, 64 slots a step.
    fn first_fit<T>(&self, start: usize, kids: &[(u32, T)], tries: usize) -> Option<usize> {
        let lowest = kids.first()?.0;
        let (mut at, mut tried) = (start, 0usize);
        loop {
            // The candidates: free slots for the lowest kid...
            let candidates = self.free_window(at);
            let mut fit = candidates;
            // ...whose other kids' slots are free too.
            for &(code, _) in &kids[1..] {
                if fit == 0 {
                    break;
                }
                fit &= self.free_window(at + (code - lowest) as usize);
            }
            if fit != 0 {
                let before = fit.trailing_zeros();
                let skipped = (candidates & ((1u64 << before) - 1)).count_ones() as usize;
                return (tried + skipped < tries).then_some(at + before as usize);
            }
            tried += candidates.count_ones() as usize;
            if tried >= tries {
                return None;
            }
            at = self.first_from(at + 64);
        }
    }

    /// The first free slot at or after `at`.
    fn first_from(&self, at: usize) -> usize {
        let at = at.max(self.packed * 64);
        let word = at / 64;
        let Some(&used) = self.used.get(word) else {
            return at;
        };
        let open = !used & (!0u64 << (at % 64));
        if open != 0 {
            return word * 64 + open.trailing_zeros() as usize;
        }
        // The first word after `word` that is not full.
        let mut next = word + 1;
        loop {
            let Some(&full) = self.full.get(next / 64) else {
                return next * 64;
            };
            let open = !full & (!0u64 << (next % 64));
            if open != 0 {
                let word = next / 64 * 64 + open.trailing_zeros() as usize;
                let used = self.used.get(word).copied().unwrap_or(0);
                return word * 64 + (!used).trailing_zeros() as usize;
            }
            next = (next / 64 + 1) * 64;
        }
    }

    /// Marks `slot` used.
    fn take(&mut self, slot: usize) {
        let word = slot / 64;
        if self.used.len() <= word {
            self.used.resize(word + 1, 0);
            self.full.resize(word / 64 + 1, 0);
        }
        self.used[word] |= 1 << (slot % 64);
        if self.used[word] == !0 {
            self.full[word / 64] |= 1 << (word % 64);
            while self.used.get(self.packed) == Some(&!0) {
                self.packed += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::sample::SplitMix64;
    use super::*;

    /// A unit as plain numbers, to compare.
    fn bits(u: &Unit) -> (u32, u32, u32, u32) {
        (u.base, u.check, u.value, u.score.to_bits())
    }

    /// The layout the plain way: the trie as nodes with ordered child maps (the first value
    /// given for a key kept), placed breadth first, the free slots tried one by one by
    /// reading the units; the rules of [`layout`]. For keys that are not empty only: it never
    /// writes the root's value.
    fn reference_layout(keys: &[(Vec<u32>, (u32, f32))], gap_search: usize) -> Vec<Unit> {
        let mut children: Vec<BTreeMap<u32, usize>> = vec![BTreeMap::new()];
        let mut values: Vec<Option<(u32, f32)>> = vec![None];
        for (key, value) in keys {
            let mut node = 0;
            for &code in key {
                node = match children[node].get(&code) {
                    Some(&child) => child,
                    None => {
                        let child = children.len();
                        children.push(BTreeMap::new());
                        values.push(None);
                        children[node].insert(code, child);
                        child
                    }
                };
            }
            values[node].get_or_insert(*value);
        }
        let mut units = vec![Unit::FREE];
        units[0].check = NONE - 1;
        let is_free = |units: &[Unit], slot: usize| units.get(slot).is_none_or(|u| u.check == NONE);
        let (mut last_used, mut wide_from) = (0, 0);
        let mut queue = VecDeque::from([(0usize, 0usize)]);
        while let Some((node, state)) = queue.pop_front() {
            let kids: Vec<(usize, usize)> = children[node]
                .iter()
                .map(|(&c, &n)| (c as usize, n))
                .collect();
            let (Some(&(lowest, _)), Some(&(highest, _))) = (kids.first(), kids.last()) else {
                continue;
            };
            let wide = kids.len() > WIDE;
            let mut slot = if wide { wide_from } else { 0 }.max(lowest + 1);
            while !is_free(&units, slot) {
                slot += 1;
            }
            let mut base = None;
            for _ in 0..gap_search {
                if kids
                    .iter()
                    .all(|&(c, _)| is_free(&units, slot - lowest + c))
                {
                    base = Some(slot - lowest);
                    break;
                }
                slot += 1;
                while !is_free(&units, slot) {
                    slot += 1;
                }
            }
            let base = base.unwrap_or((last_used + 1).max(lowest + 1) - lowest);
            if units.len() <= base + highest {
                units.resize(base + highest + 1, Unit::FREE);
            }
            units[state].base = base as u32;
            if wide {
                wide_from = base + lowest;
            }
            for &(code, child) in &kids {
                let slot = base + code;
                last_used = last_used.max(slot);
                units[slot] = Unit::child(state, values[child]);
                queue.push_back((child, slot));
            }
        }
        units
    }

    /// Random keys (some repeated with another value) over a few frequent codes and many
    /// rare ones, so that some nodes are wide and the array has holes of every size.
    fn random_keys(rng: &mut SplitMix64, count: usize) -> Vec<(Vec<u32>, (u32, f32))> {
        let mut keys: Vec<(Vec<u32>, (u32, f32))> = Vec::new();
        for id in 0..count as u32 {
            if id % 17 == 5 && !keys.is_empty() {
                let again = keys[(rng.next_u64() % keys.len() as u64) as usize]
                    .0
                    .clone();
                keys.push((again, (id, id as f32)));
                continue;
            }
            let len = 1 + (rng.next_u64() % 5) as usize;
            let key = (0..len)
                .map(|_| match rng.next_u64() % 4 {
                    0 => (rng.next_u64() % 400) as u32,
                    _ => (rng.next_u64() % 12) as u32,
                })
                .collect();
            keys.push((key, (id, -(id as f32) / 3.0)));
        }
        keys
    }

    /// The layout built from sorted runs of keys, with the 64-slot search, is the plain
    /// layout unit for unit (so walks, and the walks' memory reads, are those of the plain
    /// build), with the search long enough never to give up and short enough to give up
    /// often.
    #[test]
    fn layout_is_the_plain_layout() {
        let mut rng = SplitMix64::new(5);
        for round in 0..40 {
            let keys = random_keys(&mut rng, 1 + round * 40);
            let built = Keys::new(keys.iter().map(|(k, v)| (k.iter().copied(), *v)));
            for gap_search in [GAP_SEARCH, 1, 2, 7, 100] {
                let want: Vec<_> = reference_layout(&keys, gap_search)
                    .iter()
                    .map(bits)
                    .collect();
                let got: Vec<_> = layout_with(&built, gap_search).iter().map(bits).collect();
                assert_eq!(got, want, "round {round}, gap search {gap_search}");
            }
        }
    }

    /// The pieces of a `.model` file as codes (each character numbered by first
    /// appearance), with their ids and scores.
    fn model_keys(path: &str) -> Vec<(Vec<u32>, (u32, f32))> {
        let proto = crate::formats::sentencepiece_model::read(std::path::Path::new(path)).unwrap();
        let mut numbers: BTreeMap<char, u32> = BTreeMap::new();
        proto
            .pieces
            .iter()
            .enumerate()
            .map(|(id, p)| {
                let key = p
                    .piece
                    .chars()
                    .map(|c| {
                        let next = numbers.len() as u32;
                        *numbers.entry(c).or_insert(next)
                    })
                    .collect();
                (key, (id as u32, p.score))
            })
            .collect()
    }

    /// On the real vocabularies of the shipped models (wide nodes, long pieces, thousands of
    /// characters), the layout is the plain layout unit for unit.
    #[test]
    fn layout_is_the_plain_layout_on_shipped_models() {
        for name in ["test_model.model", "test_ja_model.model"] {
            let path = format!("{}/../../tests/data/spm/{name}", env!("CARGO_MANIFEST_DIR"));
            let keys = model_keys(&path);
            let built = Keys::new(keys.iter().map(|(k, v)| (k.iter().copied(), *v)));
            let want: Vec<_> = reference_layout(&keys, GAP_SEARCH)
                .iter()
                .map(bits)
                .collect();
            let got: Vec<_> = layout(&built).iter().map(bits).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn no_keys_is_a_bare_root() {
        let units = layout(&Keys::new(std::iter::empty::<(Vec<u32>, (u32, f32))>()));
        assert_eq!(
            units.iter().map(bits).collect::<Vec<_>>(),
            vec![(0, NONE - 1, NONE, 0)]
        );
    }
}
