//! A writer (and a walker) for the darts-clone double-array trie that sentencepiece's
//! precompiled charsmap holds; [`super::precompiled`] reads it.
//!
//! Unit layout (facts from darts-clone's `darts.h`, the format sentencepiece reads): each unit
//! is a little-endian `u32`. An inner unit packs a `label` (bits 0-7, the byte that leads to
//! it), `has_leaf` (bit 8), and an `offset` (bits 10-31, shifted left by 8 more when bit 9 is
//! set). A node's children sit at `position ^ offset ^ byte`; a key that ends at a node is a
//! child with byte 0, the leaf, whose unit is `value | 1 << 31` (so no byte matches its
//! label). The root is unit 0. Readers do not check bounds: every base lies in a block of 256
//! units that is wholly in the array, so `base ^ byte` always is too.
//!
//! The layout is darts-clone's, so that a charsmap is byte for byte the one sentencepiece
//! builds from the same rules (facts from `darts.h`, code ours). The keys' word graph
//! ([`super::dawg`]) is laid out depth first; a group of children that several nodes share is
//! placed once and pointed at again whenever the relative offset fits. Each node's children
//! take the first base, walking the ring of free units from its head, whose units are free and
//! that starts no other node's children; with none, a new block of 256 units is appended.
//! Only the last 16 blocks are open: when a 17th is added, the oldest is closed, and its free
//! units get the label `unit ^ spare`, where `spare` is the block's first unit that starts no
//! node's children; a walk from a real base `b` reaches such a unit by the byte `unit ^ b`,
//! which differs, so it stops there.
//!
//! ```
//! use tokensmith_core::normalizers::double_array::{build, entries};
//! let keys = vec![(b"a".to_vec(), 7), (b"ab".to_vec(), 9)];
//! let units = build(&keys).unwrap();
//! assert_eq!(entries(&units), keys);
//! ```

use super::dawg::Dawg;
use crate::error::{Error, Result};

const BLOCK: u32 = 256;
/// Only the last blocks are open; their bookkeeping lives in a ring of this many units.
const OPEN_BLOCKS: u32 = 16;
const OPEN_UNITS: u32 = BLOCK * OPEN_BLOCKS;
/// A relative offset must not have bits both here and in [`LOWER_MASK`] (it would need
/// bit 9's shift and a non-zero low byte).
const UPPER_MASK: u32 = 0xFF << 21;
const LOWER_MASK: u32 = 0xFF;
const LEAF_BIT: u32 = 1 << 31;

/// The units of a double array holding `keys` (sorted, distinct, non-empty, without a 0
/// byte) with their values (below 2^31): darts-clone's layout of their word graph.
pub fn build(keys: &[(Vec<u8>, u32)]) -> Result<Vec<u32>> {
    for pair in keys.windows(2) {
        if pair[0].0 >= pair[1].0 {
            return Err(Error::InvalidOption(
                "charsmap trie: keys are not sorted and distinct".into(),
            ));
        }
    }
    let dawg = Dawg::build(keys)?;
    let mut builder = Builder {
        dawg: &dawg,
        units: Vec::new(),
        ring: vec![Slot::default(); OPEN_UNITS as usize],
        labels: Vec::new(),
        placed: vec![0; dawg.num_intersections()],
        head: 0,
    };
    builder.reserve(0);
    builder.slot(0).used = true;
    builder.set_offset(0, 1)?;
    if dawg.child(0) != 0 {
        builder.place(0, 0)?;
    }
    let blocks = builder.units.len() as u32 / BLOCK;
    for block in blocks.saturating_sub(OPEN_BLOCKS)..blocks {
        builder.close_block(block);
    }
    Ok(builder.units)
}

/// The bookkeeping of one open unit: a ring of the free units (`prev`, `next`), whether the
/// unit is taken (`fixed`) and whether some node's children start at it (`used`).
#[derive(Clone, Copy, Default)]
struct Slot {
    prev: u32,
    next: u32,
    fixed: bool,
    used: bool,
}

struct Builder<'a> {
    dawg: &'a Dawg,
    units: Vec<u32>,
    /// Slots of the open units, indexed by unit id modulo [`OPEN_UNITS`].
    ring: Vec<Slot>,
    /// The labels of the children being placed.
    labels: Vec<u8>,
    /// Where each shared group was placed (its base), or 0.
    placed: Vec<u32>,
    /// The first free unit, or `units.len()` when none is.
    head: u32,
}

impl Builder<'_> {
    fn slot(&mut self, id: u32) -> &mut Slot {
        &mut self.ring[(id % OPEN_UNITS) as usize]
    }

    fn peek(&self, id: u32) -> Slot {
        self.ring[(id % OPEN_UNITS) as usize]
    }

    fn size(&self) -> u32 {
        self.units.len() as u32
    }

    fn set_offset(&mut self, id: u32, offset: u32) -> Result<()> {
        if offset >= 1 << 29 {
            return Err(Error::InvalidOption(
                "charsmap trie: an offset needs more than 29 bits; too many rules".into(),
            ));
        }
        let unit = &mut self.units[id as usize];
        *unit &= LEAF_BIT | (1 << 8) | 0xFF;
        *unit |= if offset < 1 << 21 {
            offset << 10
        } else {
            (offset << 2) | (1 << 9)
        };
        Ok(())
    }

    fn set_label(&mut self, id: u32, label: u8) {
        let unit = &mut self.units[id as usize];
        *unit = (*unit & !0xFF) | u32::from(label);
    }

    /// Places the children of graph unit `node`, whose double-array unit is `id`, then their
    /// subtrees. A shared group already placed is pointed at again when the offset fits.
    fn place(&mut self, node: u32, id: u32) -> Result<()> {
        let dawg = self.dawg;
        let first = dawg.child(node);
        let shared = dawg.intersection(first);
        if let Some(index) = shared {
            if self.placed[index] != 0 {
                let offset = self.placed[index] ^ id;
                if offset & UPPER_MASK == 0 || offset & LOWER_MASK == 0 {
                    if dawg.is_leaf(first) {
                        self.units[id as usize] |= 1 << 8;
                    }
                    return self.set_offset(id, offset);
                }
            }
        }
        let base = self.arrange(node, id)?;
        if let Some(index) = shared {
            self.placed[index] = base;
        }
        let mut child = first;
        while child != 0 {
            let label = dawg.label(child);
            if label != 0 {
                self.place(child, base ^ u32::from(label))?;
            }
            child = dawg.sibling(child);
        }
        Ok(())
    }

    /// Finds a base for the children of `node` and writes them; returns the base.
    fn arrange(&mut self, node: u32, id: u32) -> Result<u32> {
        let dawg = self.dawg;
        self.labels.clear();
        let mut child = dawg.child(node);
        while child != 0 {
            self.labels.push(dawg.label(child));
            child = dawg.sibling(child);
        }
        let base = self.find_base(id);
        self.set_offset(id, id ^ base)?;
        let mut child = dawg.child(node);
        for i in 0..self.labels.len() {
            let label = self.labels[i];
            let unit = base ^ u32::from(label);
            self.reserve(unit);
            if dawg.is_leaf(child) {
                self.units[id as usize] |= 1 << 8;
                self.units[unit as usize] = dawg.value(child) | LEAF_BIT;
            } else {
                self.set_label(unit, label);
            }
            child = dawg.sibling(child);
        }
        self.slot(base).used = true;
        Ok(base)
    }

    /// The first base, walking the free units from the head, where every label lands on a
    /// free unit; past the end of the array when there is none.
    fn find_base(&self, id: u32) -> u32 {
        let past_end = self.size() | (id & LOWER_MASK);
        if self.head >= self.size() {
            return past_end;
        }
        let mut free = self.head;
        loop {
            let base = free ^ u32::from(self.labels[0]);
            if self.fits(id, base) {
                return base;
            }
            free = self.peek(free).next;
            if free == self.head {
                return past_end;
            }
        }
    }

    fn fits(&self, id: u32, base: u32) -> bool {
        if self.peek(base).used {
            return false;
        }
        let relative = id ^ base;
        if relative & LOWER_MASK != 0 && relative & UPPER_MASK != 0 {
            return false;
        }
        self.labels[1..]
            .iter()
            .all(|&label| !self.peek(base ^ u32::from(label)).fixed)
    }

    /// Takes unit `id` off the free ring, growing the array when `id` is past its end.
    fn reserve(&mut self, id: u32) {
        if id >= self.size() {
            self.grow();
        }
        if id == self.head {
            self.head = self.peek(id).next;
            if self.head == id {
                self.head = self.size();
            }
        }
        let Slot { prev, next, .. } = self.peek(id);
        self.slot(prev).next = next;
        self.slot(next).prev = prev;
        self.slot(id).fixed = true;
    }

    /// Adds a block of free units, closing the block that leaves the open window.
    fn grow(&mut self) {
        let start = self.size();
        let end = start + BLOCK;
        let blocks = end / BLOCK;
        if blocks > OPEN_BLOCKS {
            self.close_block(blocks - 1 - OPEN_BLOCKS);
        }
        self.units.resize(end as usize, 0);
        if blocks > OPEN_BLOCKS {
            for id in start..end {
                *self.slot(id) = Slot {
                    fixed: false,
                    used: false,
                    ..self.peek(id)
                };
            }
        }
        for id in start + 1..end {
            self.slot(id - 1).next = id;
            self.slot(id).prev = id - 1;
        }
        // Splice the new run in before the head (the head may be `start` itself).
        self.slot(start).prev = end - 1;
        self.slot(end - 1).next = start;
        let head = self.head;
        let before_head = self.peek(head).prev;
        self.slot(start).prev = before_head;
        self.slot(end - 1).next = head;
        self.slot(before_head).next = start;
        self.slot(head).prev = end - 1;
    }

    /// Takes every free unit of `block` and labels it so that no walk can enter it: with
    /// `unit ^ spare`, where `spare` starts no node's children.
    fn close_block(&mut self, block: u32) {
        let (begin, end) = (block * BLOCK, block * BLOCK + BLOCK);
        let spare = (begin..end).find(|&id| !self.peek(id).used).unwrap_or(0);
        for id in begin..end {
            if !self.peek(id).fixed {
                self.reserve(id);
                self.set_label(id, (id ^ spare) as u8);
            }
        }
    }
}

/// The checks sentencepiece (0.2.1 and later, darts-clone's `validate`) runs before it uses a
/// charsmap: the root has label 0, no leaf and a non-zero offset; every unit that is not a
/// leaf points into a whole block of the array; every leaf's value is below `value_limit`
/// (the size of the replacement strings).
pub fn is_valid(units: &[u32], value_limit: u32) -> bool {
    let n = units.len();
    let Some(&root) = units.first() else {
        return false;
    };
    if root & (LEAF_BIT | 0xff) != 0 || (root >> 8) & 1 == 1 || offset(root) == 0 {
        return false;
    }
    units.iter().enumerate().all(|(i, &unit)| {
        if unit & LEAF_BIT == 0 {
            ((i ^ offset(unit)) | 0xff) < n
        } else {
            unit & !LEAF_BIT < value_limit
        }
    })
}

/// Every (key, value) a double array holds, in byte order: a depth-first walk over all 256
/// bytes from the root. Reads damaged arrays without panicking (they just yield less).
pub fn entries(units: &[u32]) -> Vec<(Vec<u8>, u32)> {
    let mut out = Vec::new();
    let mut key = Vec::new();
    if let Some(&root) = units.first() {
        walk(units, offset(root), &mut key, &mut out, 0);
    }
    out
}

fn offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & (1 << 9)) >> 6)) as usize
}

fn walk(
    units: &[u32],
    base: usize,
    key: &mut Vec<u8>,
    out: &mut Vec<(Vec<u8>, u32)>,
    depth: usize,
) {
    // No charsmap key is near this long; the bound keeps a cyclic damaged array finite.
    if depth > 64 {
        return;
    }
    for byte in 1..=255u8 {
        let pos = base ^ usize::from(byte);
        let Some(&unit) = units.get(pos) else {
            continue;
        };
        if unit & (LEAF_BIT | 0xff) != u32::from(byte) {
            continue;
        }
        key.push(byte);
        let child_base = pos ^ offset(unit);
        if (unit >> 8) & 1 == 1 {
            if let Some(&leaf) = units.get(child_base) {
                out.push((key.clone(), leaf & !LEAF_BIT));
            }
        }
        walk(units, child_base, key, out, depth + 1);
        key.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_unsorted_and_bad_keys() {
        assert!(build(&[(b"b".to_vec(), 1), (b"a".to_vec(), 2)]).is_err());
        assert!(build(&[(b"a\0".to_vec(), 1)]).is_err());
        assert!(build(&[(b"a".to_vec(), LEAF_BIT)]).is_err());
    }

    #[test]
    fn size_is_whole_blocks() {
        let keys: Vec<(Vec<u8>, u32)> = (1..=255u8).map(|b| (vec![b, b], u32::from(b))).collect();
        let units = build(&keys).unwrap();
        assert_eq!(units.len() % BLOCK as usize, 0);
        assert!(is_valid(&units, 256));
        assert!(!is_valid(&units, 255));
        assert_eq!(entries(&units), keys);
    }

    proptest! {
        #[test]
        fn every_key_and_only_keys_are_found(
            raw in proptest::collection::btree_map(
                proptest::collection::vec(1u8..=255, 1..6), 0u32..1000, 1..300)
        ) {
            let keys: Vec<(Vec<u8>, u32)> = raw.into_iter().collect();
            let units = build(&keys).unwrap();
            prop_assert!(is_valid(&units, 1000));
            prop_assert_eq!(entries(&units), keys);
        }
    }
}
