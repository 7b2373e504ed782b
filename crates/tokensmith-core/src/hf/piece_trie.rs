//! A byte trie over vocabulary entries: the longest entry that starts a text, in one walk.
//!
//! WordPiece's greedy search wants, at each position of a word, the longest vocabulary entry
//! that the rest of the word starts with. Looking up every candidate length in a hash map
//! hashes the same bytes again and again, and a word no entry covers tries every length at
//! every position; the walk reads each byte once.
//!
//! Each node keeps its children as a sorted run of `(byte, child)` edges, searched by
//! binary search (the root of a multilingual vocabulary has a few hundred children).
//!
//! ```
//! use tokensmith_core::hf::piece_trie::PieceTrie;
//! let trie = PieceTrie::new([("un", 1), ("una", 2), ("unaff", 3)]);
//! assert_eq!(trie.longest_prefix(b"unafraid"), Some((2, 3)));
//! assert_eq!(trie.longest_prefix(b"uff"), None);
//! ```

use rustc_hash::FxHashMap;

/// No entry ends at this node.
const NONE: u32 = u32::MAX;

/// One node: its edges are `edges[first..first + len]`.
#[derive(Clone, Debug)]
struct Node {
    first: u32,
    len: u32,
    /// The id of the entry that ends here, or [`NONE`].
    id: u32,
}

/// The entries of a vocabulary (or a part of one), by their bytes.
#[derive(Clone, Debug)]
pub struct PieceTrie {
    nodes: Vec<Node>,
    edge_bytes: Vec<u8>,
    edge_targets: Vec<u32>,
}

impl PieceTrie {
    /// The trie of `(entry, id)` pairs; an empty entry is left out (it never starts a piece).
    /// Of two equal entries, the last one's id is kept.
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        // Built with a map of children per node, then laid out as sorted edge runs.
        let mut children: Vec<FxHashMap<u8, u32>> = vec![FxHashMap::default()];
        let mut ids = vec![NONE];
        for (entry, id) in entries {
            if entry.is_empty() {
                continue;
            }
            let mut node = 0usize;
            for &b in entry.as_bytes() {
                let next = children.len() as u32;
                let child = *children[node].entry(b).or_insert(next);
                if child == next {
                    children.push(FxHashMap::default());
                    ids.push(NONE);
                }
                node = child as usize;
            }
            ids[node] = id;
        }
        let mut nodes = Vec::with_capacity(children.len());
        let mut edge_bytes = Vec::with_capacity(children.len());
        let mut edge_targets = Vec::with_capacity(children.len());
        for (edges, id) in children.into_iter().zip(ids) {
            let mut edges: Vec<(u8, u32)> = edges.into_iter().collect();
            edges.sort_unstable();
            nodes.push(Node {
                first: edge_bytes.len() as u32,
                len: edges.len() as u32,
                id,
            });
            edge_bytes.extend(edges.iter().map(|e| e.0));
            edge_targets.extend(edges.iter().map(|e| e.1));
        }
        Self {
            nodes,
            edge_bytes,
            edge_targets,
        }
    }

    /// The id and byte length of the longest entry that `text` starts with.
    #[inline]
    pub fn longest_prefix(&self, text: &[u8]) -> Option<(u32, usize)> {
        let mut node = &self.nodes[0];
        let mut found = None;
        for (i, b) in text.iter().enumerate() {
            let (first, len) = (node.first as usize, node.len as usize);
            let bytes = &self.edge_bytes[first..first + len];
            let at = if len <= 8 {
                bytes.iter().position(|e| e == b)
            } else {
                bytes.binary_search(b).ok()
            };
            let Some(at) = at else {
                break;
            };
            node = &self.nodes[self.edge_targets[first + at] as usize];
            if node.id != NONE {
                found = Some((node.id, i + 1));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_entry_wins_and_empty_entries_are_left_out() {
        let trie = PieceTrie::new([("", 9), ("a", 1), ("abc", 2), ("é", 3), ("éa", 4)]);
        assert_eq!(trie.longest_prefix(b"abd"), Some((1, 1)));
        assert_eq!(trie.longest_prefix(b"abcd"), Some((2, 3)));
        assert_eq!(trie.longest_prefix("éé".as_bytes()), Some((3, 2)));
        assert_eq!(trie.longest_prefix("éa".as_bytes()), Some((4, 3)));
        assert_eq!(trie.longest_prefix(b""), None);
        assert_eq!(trie.longest_prefix(b"b"), None);
    }

    #[test]
    fn many_children_are_found_by_binary_search() {
        let entries: Vec<String> = (0u8..=255)
            .filter_map(|b| char::from_u32(b as u32 + 0x100))
            .map(String::from)
            .collect();
        let trie = PieceTrie::new(entries.iter().map(|e| e.as_str()).zip(0..));
        for (id, e) in entries.iter().enumerate() {
            assert_eq!(trie.longest_prefix(e.as_bytes()), Some((id as u32, 2)));
        }
    }
}
