//! A byte trie of the pieces, to find every piece that starts at a position in one walk.
//!
//! Built with a hash map of edges; the first lookup compiles it into flat arrays (a 256-entry
//! table for the root, and each other node's children as a sorted run of labels), which is
//! what the Viterbi inner loop walks: one table read, then short linear scans.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

const NONE: u32 = u32::MAX;
/// Nodes with more children than this get a 256-entry table instead of a linear scan.
const DENSE_FROM: usize = 12;

/// Each node is a number; an edge is one hash entry keyed by (node, byte).
#[derive(Debug, Clone)]
pub struct PieceTrie {
    edges: FxHashMap<(u32, u8), u32>,
    /// The piece id that ends at each node, if any.
    values: Vec<Option<u32>>,
    compiled: OnceLock<Compiled>,
}

/// The read-only form: root table, then per-node runs of (label, child) sorted by label.
#[derive(Debug, Clone)]
struct Compiled {
    root: Box<[u32; 256]>,
    /// Everything a walk reads about a node, in one 16-byte record (one cache miss, not four).
    nodes: Vec<NodeInfo>,
    tables: Vec<[u32; 256]>,
    labels: Vec<u8>,
    children: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct NodeInfo {
    /// The piece id ending here, or `NONE`.
    value: u32,
    /// The node's 256-entry child table in `tables` (wide nodes), or `NONE`.
    table: u32,
    /// The node's children in `labels`/`children`: `lo..hi`.
    lo: u32,
    hi: u32,
}

impl Default for PieceTrie {
    fn default() -> Self {
        Self::new()
    }
}

impl PieceTrie {
    pub fn new() -> Self {
        Self {
            edges: FxHashMap::default(),
            values: vec![None],
            compiled: OnceLock::new(),
        }
    }

    /// Adds `key` with `id`; a later insert of the same key keeps the first id.
    pub fn insert(&mut self, key: &[u8], id: u32) {
        self.compiled = OnceLock::new();
        let mut node = 0u32;
        for &byte in key {
            let next = self.values.len() as u32;
            node = *self.edges.entry((node, byte)).or_insert_with(|| next);
            if node == next {
                self.values.push(None);
            }
        }
        let slot = &mut self.values[node as usize];
        if slot.is_none() {
            *slot = Some(id);
        }
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            let n = self.values.len();
            let mut edges: Vec<(u32, u8, u32)> = self
                .edges
                .iter()
                .map(|(&(from, b), &to)| (from, b, to))
                .collect();
            edges.sort_unstable();
            let mut root = Box::new([NONE; 256]);
            let mut start = vec![0u32; n + 1];
            for &(from, _, _) in &edges {
                start[from as usize + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            let mut labels = Vec::with_capacity(edges.len());
            let mut children = Vec::with_capacity(edges.len());
            for &(from, b, to) in &edges {
                if from == 0 {
                    root[usize::from(b)] = to;
                }
                labels.push(b);
                children.push(to);
            }
            let mut tables = Vec::new();
            let mut nodes = Vec::with_capacity(n);
            for node in 0..n {
                let (lo, hi) = (start[node] as usize, start[node + 1] as usize);
                let mut table_index = NONE;
                if node > 0 && hi - lo > DENSE_FROM {
                    let mut table = [NONE; 256];
                    for k in lo..hi {
                        table[usize::from(labels[k])] = children[k];
                    }
                    table_index = tables.len() as u32;
                    tables.push(table);
                }
                nodes.push(NodeInfo {
                    value: self.values[node].unwrap_or(NONE),
                    table: table_index,
                    lo: lo as u32,
                    hi: hi as u32,
                });
            }
            Compiled {
                root,
                nodes,
                tables,
                labels,
                children,
            }
        })
    }

    /// The length of the longest key that is a prefix of `text`.
    pub fn longest_prefix(&self, text: &[u8]) -> Option<usize> {
        let mut longest = None;
        self.common_prefixes(text, |len, _| longest = Some(len));
        longest
    }

    /// Calls `f(length, id)` for every key that is a prefix of `text`, shortest first.
    #[inline]
    pub fn common_prefixes(&self, text: &[u8], mut f: impl FnMut(usize, u32)) {
        let c = self.compiled();
        let Some(&first) = text.first() else { return };
        let mut node = c.root[usize::from(first)];
        let mut i = 0;
        loop {
            if node == NONE {
                return;
            }
            let info = c.nodes[node as usize];
            if info.value != NONE {
                f(i + 1, info.value);
            }
            i += 1;
            let Some(&byte) = text.get(i) else { return };
            if info.table != NONE {
                node = c.tables[info.table as usize][usize::from(byte)];
                continue;
            }
            let (lo, hi) = (info.lo as usize, info.hi as usize);
            node = c.labels[lo..hi]
                .iter()
                .position(|&l| l == byte)
                .map_or(NONE, |k| c.children[lo + k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_prefixes_shortest_first() {
        let mut trie = PieceTrie::new();
        trie.insert(b"ab", 0);
        trie.insert(b"a", 1);
        trie.insert(b"abc", 2);
        trie.insert(b"b", 3);
        let mut found = Vec::new();
        trie.common_prefixes(b"abcd", |len, id| found.push((len, id)));
        assert_eq!(found, vec![(1, 1), (2, 0), (3, 2)]);
        // Inserting after a lookup recompiles.
        trie.insert(b"abcd", 4);
        found.clear();
        trie.common_prefixes(b"abcd", |len, id| found.push((len, id)));
        assert_eq!(found, vec![(1, 1), (2, 0), (3, 2), (4, 4)]);
        assert_eq!(trie.longest_prefix(b"x"), None);
        assert_eq!(trie.longest_prefix(b""), None);
    }
}
