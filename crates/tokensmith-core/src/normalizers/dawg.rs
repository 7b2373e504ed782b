//! A minimal word graph (DAWG) of sorted byte keys with values: the first stage of the
//! darts-clone double array sentencepiece writes into a precompiled charsmap
//! ([`super::double_array`] lays this graph out as units).
//!
//! The graph is built the way darts-clone builds it (facts from its `darts.h`; the code is
//! ours), because the double array's bytes follow from the graph's unit numbering:
//! - Keys are inserted in sorted order, each followed by a 0 byte that leads to its value.
//!   The path of the last key stays open; when a key leaves it, the open nodes below the fork
//!   are closed, deepest first.
//! - Closing a node writes its children as one *group* of consecutive units, in label order,
//!   unless an identical group (same labels, same targets, same values) was written before;
//!   then the node points at that group, which is marked as shared (an *intersection*).
//! - A unit packs its target: a value as `value << 1 | has_sibling`, an inner node as
//!   `child << 2 | is_first_child << 1 | has_sibling`, where `has_sibling` says the next unit
//!   is in the same group. Unit 0 is the root.
//!
//! ```
//! use tokensmith_core::normalizers::dawg::Dawg;
//! // "ab" and "cb" end in the same value: their "b" groups are one.
//! let dawg = Dawg::build(&[(b"ab".to_vec(), 5), (b"cb".to_vec(), 5)]).unwrap();
//! let a = dawg.child(0);
//! let c = dawg.sibling(a);
//! assert_eq!((dawg.label(a), dawg.label(c)), (b'a', b'c'));
//! assert_eq!(dawg.child(a), dawg.child(c));
//! assert!(dawg.intersection(dawg.child(a)).is_some());
//! ```

use std::collections::HashMap;

use crate::error::{Error, Result};

/// A finished word graph: units in darts-clone's numbering.
pub struct Dawg {
    units: Vec<u32>,
    labels: Vec<u8>,
    /// For each unit, its index among the shared groups, or `u32::MAX`.
    intersections: Vec<u32>,
    num_intersections: usize,
}

impl Dawg {
    /// The graph of `keys` (sorted, distinct, non-empty, without a 0 byte; values below
    /// 2^31).
    pub fn build(keys: &[(Vec<u8>, u32)]) -> Result<Self> {
        let mut builder = Builder::new();
        for (key, value) in keys {
            builder.insert(key, *value)?;
        }
        Ok(builder.finish())
    }

    /// The number of units.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether the graph has only its root.
    pub fn is_empty(&self) -> bool {
        self.units.len() <= 1
    }

    /// The first unit of `id`'s children (0 when it has none).
    pub fn child(&self, id: u32) -> u32 {
        self.units[id as usize] >> 2
    }

    /// The next unit of `id`'s group, or 0.
    pub fn sibling(&self, id: u32) -> u32 {
        if self.units[id as usize] & 1 == 1 {
            id + 1
        } else {
            0
        }
    }

    /// The value of a leaf unit.
    pub fn value(&self, id: u32) -> u32 {
        self.units[id as usize] >> 1
    }

    /// The byte that leads to `id` (0 for a leaf).
    pub fn label(&self, id: u32) -> u8 {
        self.labels[id as usize]
    }

    /// Whether `id` is a leaf, which holds a key's value.
    pub fn is_leaf(&self, id: u32) -> bool {
        self.label(id) == 0
    }

    /// The index of the shared group that starts at `id`, if several nodes point at it.
    pub fn intersection(&self, id: u32) -> Option<usize> {
        let index = self.intersections[id as usize];
        (index != u32::MAX).then_some(index as usize)
    }

    /// How many groups are shared.
    pub fn num_intersections(&self) -> usize {
        self.num_intersections
    }
}

/// An open node: `child` is a node id while its children are open, then the unit id of their
/// group; a leaf's `child` is its value.
#[derive(Clone, Copy, Default)]
struct Node {
    child: u32,
    sibling: u32,
    label: u8,
    is_state: bool,
    has_sibling: bool,
}

impl Node {
    fn unit(&self) -> u32 {
        let sibling = u32::from(self.has_sibling);
        if self.label == 0 {
            (self.child << 1) | sibling
        } else {
            (self.child << 2) | (u32::from(self.is_state) << 1) | sibling
        }
    }
}

struct Builder {
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// The open path: the last child appended at each depth.
    stack: Vec<u32>,
    units: Vec<u32>,
    labels: Vec<u8>,
    shared: Vec<bool>,
    /// Each written group, (unit, label) in unit order, to its first unit.
    groups: HashMap<Vec<(u32, u8)>, u32>,
}

impl Builder {
    fn new() -> Self {
        let root = Node {
            label: 0xFF,
            ..Node::default()
        };
        Self {
            nodes: vec![root],
            free: Vec::new(),
            stack: vec![0],
            units: vec![0],
            labels: vec![0],
            shared: vec![false],
            groups: HashMap::new(),
        }
    }

    fn insert(&mut self, key: &[u8], value: u32) -> Result<()> {
        let bad = |what: &str| Err(Error::InvalidOption(format!("charsmap trie: {what}")));
        if key.is_empty() || key.contains(&0) || value >= 1 << 31 {
            return bad("a key is empty or holds a 0 byte, or a value needs 32 bits");
        }
        let label_at = |pos: usize| key.get(pos).copied().unwrap_or(0);
        let mut id = 0u32;
        let mut pos = 0;
        while pos <= key.len() {
            let child = self.nodes[id as usize].child;
            if child == 0 {
                break;
            }
            let (label, open) = (label_at(pos), self.nodes[child as usize].label);
            if label < open {
                return bad("keys are not sorted");
            }
            if label > open {
                self.nodes[child as usize].has_sibling = true;
                self.flush(child);
                break;
            }
            id = child;
            pos += 1;
        }
        if pos > key.len() {
            return bad("a key is given twice");
        }
        while pos <= key.len() {
            let child = self.new_node();
            let parent_child = self.nodes[id as usize].child;
            self.nodes[child as usize] = Node {
                child: 0,
                sibling: parent_child,
                label: label_at(pos),
                is_state: parent_child == 0,
                has_sibling: false,
            };
            self.nodes[id as usize].child = child;
            self.stack.push(child);
            id = child;
            pos += 1;
        }
        self.nodes[id as usize].child = value;
        Ok(())
    }

    fn new_node(&mut self) -> u32 {
        match self.free.pop() {
            Some(id) => id,
            None => {
                self.nodes.push(Node::default());
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// Closes the open nodes above `id` on the stack, then takes `id` off it.
    fn flush(&mut self, id: u32) {
        while let Some(&top) = self.stack.last() {
            if top == id {
                break;
            }
            self.stack.pop();
            let mut chain = Vec::new();
            let mut i = top;
            while i != 0 {
                let node = self.nodes[i as usize];
                chain.push((node.unit(), node.label));
                self.free.push(i);
                i = node.sibling;
            }
            // The chain runs from the last label to the first; units run the other way.
            chain.reverse();
            let start = match self.groups.get(&chain) {
                Some(&start) => {
                    self.shared[start as usize] = true;
                    start
                }
                None => {
                    let start = self.units.len() as u32;
                    for &(unit, label) in &chain {
                        self.units.push(unit);
                        self.labels.push(label);
                        self.shared.push(false);
                    }
                    self.groups.insert(chain, start);
                    start
                }
            };
            if let Some(&parent) = self.stack.last() {
                self.nodes[parent as usize].child = start;
            }
        }
        self.stack.pop();
    }

    fn finish(mut self) -> Dawg {
        self.flush(0);
        self.units[0] = self.nodes[0].unit();
        self.labels[0] = self.nodes[0].label;
        let mut intersections = vec![u32::MAX; self.units.len()];
        let mut count = 0u32;
        for (slot, &shared) in intersections.iter_mut().zip(&self.shared) {
            if shared {
                *slot = count;
                count += 1;
            }
        }
        Dawg {
            units: self.units,
            labels: self.labels,
            intersections,
            num_intersections: count as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_with_equal_targets_are_shared_once() {
        let keys: Vec<(Vec<u8>, u32)> = vec![
            (b"ab".to_vec(), 1),
            (b"b".to_vec(), 2),
            (b"cb".to_vec(), 1),
            (b"db".to_vec(), 3),
        ];
        let dawg = Dawg::build(&keys).unwrap();
        let mut firsts = Vec::new();
        let mut id = dawg.child(0);
        while id != 0 {
            firsts.push((dawg.label(id), dawg.child(id)));
            id = dawg.sibling(id);
        }
        let labels: Vec<u8> = firsts.iter().map(|f| f.0).collect();
        assert_eq!(labels, b"abcd");
        // "a" and "c" lead to the same group ("b" then value 1); "d" to another value.
        assert_eq!(firsts[0].1, firsts[2].1);
        assert_ne!(firsts[0].1, firsts[3].1);
        // Shared: the "b" group under "a" and "c", and the leaf of value 1 below it.
        assert_eq!(dawg.num_intersections(), 2);
        let b = firsts[0].1;
        assert_eq!(dawg.label(b), b'b');
        let leaf = dawg.child(b);
        assert!(dawg.is_leaf(leaf));
        assert_eq!(dawg.value(leaf), 1);
    }

    #[test]
    fn rejects_unsorted_and_repeated_keys() {
        assert!(Dawg::build(&[(b"b".to_vec(), 1), (b"a".to_vec(), 1)]).is_err());
        assert!(Dawg::build(&[(b"a".to_vec(), 1), (b"a".to_vec(), 2)]).is_err());
        assert!(Dawg::build(&[(b"a".to_vec(), 1 << 31)]).is_err());
    }
}
