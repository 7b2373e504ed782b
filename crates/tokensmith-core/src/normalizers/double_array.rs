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
//! Units that no node uses get the label `position ^ u` for some `u` of the same block that
//! is no node's base; a walk from a real base `b` reaches that unit by the byte
//! `position ^ b`, which differs, so it stops there.
//!
//! The layout is built here, not copied: keys are placed depth first, each node at the first
//! free base of the last 16 blocks (older holes are given up, as darts-clone also does). The
//! trie is not minimised into a DAWG, so the units differ from darts-clone's for the same
//! keys, while every lookup gives the same answer.
//!
//! ```
//! use tokensmith_core::normalizers::double_array::{build, entries};
//! let keys = vec![(b"a".to_vec(), 7), (b"ab".to_vec(), 9)];
//! let units = build(&keys).unwrap();
//! assert_eq!(entries(&units), keys);
//! ```

use crate::error::{Error, Result};

const BLOCK: usize = 256;
/// Only the last blocks are searched for free bases.
const OPEN_BLOCKS: usize = 16;
/// Offsets at or above this need bit 9 (and a multiple of 256); this writer stays below.
const DIRECT_OFFSET_LIMIT: usize = 1 << 21;
const LEAF_BIT: u32 = 1 << 31;

/// A key (UTF-8 bytes) and its value.
type Entry = (Vec<u8>, u32);

/// The units of a double array holding `keys` (sorted, distinct, non-empty, without a 0
/// byte) with their values (below 2^31).
pub fn build(keys: &[(Vec<u8>, u32)]) -> Result<Vec<u32>> {
    let bad = |what: String| Err(Error::InvalidOption(format!("charsmap trie: {what}")));
    for (i, (key, value)) in keys.iter().enumerate() {
        if key.is_empty() || key.contains(&0) {
            return bad(format!("key {key:?} is empty or holds a 0 byte"));
        }
        if *value >= LEAF_BIT {
            return bad(format!("value {value} does not fit in 31 bits"));
        }
        if i > 0 && keys[i - 1].0 >= *key {
            return bad("keys are not sorted and distinct".into());
        }
    }
    let mut builder = Builder::default();
    builder.grow();
    builder.used[0] = true;
    // The root's offset must not be 0 (readers take 0 for "no children").
    builder.is_base[0] = true;
    builder.place(keys, 0, 0)?;
    builder.fill_unused()?;
    Ok(builder.units)
}

#[derive(Default)]
struct Builder {
    units: Vec<u32>,
    /// The unit holds a node or a leaf.
    used: Vec<bool>,
    /// Some node's children start here (`base`).
    is_base: Vec<bool>,
    /// No unit below this (and above the open blocks' start) is free.
    free_hint: usize,
}

impl Builder {
    fn grow(&mut self) {
        let n = self.units.len() + BLOCK;
        self.units.resize(n, 0);
        self.used.resize(n, false);
        self.is_base.resize(n, false);
    }

    /// Places the children of the node at `id`, which spells the first `depth` bytes of every
    /// key in `keys`, then their subtrees.
    fn place(&mut self, keys: &[(Vec<u8>, u32)], id: usize, depth: usize) -> Result<()> {
        // Children as (byte, keys below it); byte 0 is the leaf of a key ending here.
        let mut children: Vec<(u8, &[Entry])> = Vec::new();
        let mut start = 0;
        while start < keys.len() {
            let byte = keys[start].0.get(depth).copied().unwrap_or(0);
            let mut end = start + 1;
            while end < keys.len() && keys[end].0.get(depth).copied().unwrap_or(0) == byte {
                end += 1;
            }
            children.push((byte, &keys[start..end]));
            start = end;
        }
        let labels: Vec<u8> = children.iter().map(|c| c.0).collect();
        let base = self.find_base(&labels);
        let relative = id ^ base;
        if relative >= DIRECT_OFFSET_LIMIT {
            return Err(Error::InvalidOption(
                "charsmap trie: more than 2^21 units; too many rules".into(),
            ));
        }
        self.is_base[base] = true;
        self.units[id] |= (relative as u32) << 10;
        for &(byte, _) in &children {
            self.used[base ^ usize::from(byte)] = true;
        }
        for (byte, below) in children {
            let child = base ^ usize::from(byte);
            if byte == 0 {
                self.units[id] |= 1 << 8;
                self.units[child] = below[0].1 | LEAF_BIT;
            } else {
                self.units[child] = u32::from(byte);
                self.place(below, child, depth + 1)?;
            }
        }
        Ok(())
    }

    /// The first base in the open blocks where every label's unit is free. Candidates are
    /// read off the free units for the first label, from the first free unit on.
    fn find_base(&mut self, labels: &[u8]) -> usize {
        let first = usize::from(labels[0]);
        loop {
            let open = self.units.len().saturating_sub(OPEN_BLOCKS * BLOCK);
            self.free_hint = self.free_hint.max(open);
            while self.free_hint < self.units.len() && self.used[self.free_hint] {
                self.free_hint += 1;
            }
            for p in self.free_hint..self.units.len() {
                if self.used[p] {
                    continue;
                }
                let base = p ^ first;
                if !self.is_base[base]
                    && labels[1..]
                        .iter()
                        .all(|&l| !self.used[base ^ usize::from(l)])
                {
                    return base;
                }
            }
            self.grow();
        }
    }

    /// Labels every unused unit so that no walk can enter it.
    fn fill_unused(&mut self) -> Result<()> {
        for block in (0..self.units.len()).step_by(BLOCK) {
            let Some(spare) = (block..block + BLOCK).find(|&p| !self.is_base[p]) else {
                return Err(Error::InvalidOption(
                    "charsmap trie: a block has no spare base".into(),
                ));
            };
            for p in block..block + BLOCK {
                if !self.used[p] {
                    self.units[p] = ((p ^ spare) & 0xff) as u32;
                }
            }
        }
        Ok(())
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
        assert_eq!(units.len() % BLOCK, 0);
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
