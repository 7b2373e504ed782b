//! A byte trie of the pieces, to find every piece that starts at a position in one walk.

use rustc_hash::FxHashMap;

/// Each node is a number; an edge is one hash entry keyed by (node, byte).
#[derive(Debug, Clone, Default)]
pub struct PieceTrie {
    edges: FxHashMap<(u32, u8), u32>,
    /// The piece id that ends at each node, if any.
    values: Vec<Option<u32>>,
}

impl PieceTrie {
    pub fn new() -> Self {
        Self {
            edges: FxHashMap::default(),
            values: vec![None],
        }
    }

    /// Adds `key` with `id`; a later insert of the same key keeps the first id.
    pub fn insert(&mut self, key: &[u8], id: u32) {
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

    /// The length of the longest key that is a prefix of `text`.
    pub fn longest_prefix(&self, text: &[u8]) -> Option<usize> {
        let mut longest = None;
        self.common_prefixes(text, |len, _| longest = Some(len));
        longest
    }

    /// Calls `f(length, id)` for every key that is a prefix of `text`, shortest first.
    pub fn common_prefixes(&self, text: &[u8], mut f: impl FnMut(usize, u32)) {
        let mut node = 0u32;
        for (i, &byte) in text.iter().enumerate() {
            match self.edges.get(&(node, byte)) {
                Some(&next) => node = next,
                None => return,
            }
            if let Some(id) = self.values[node as usize] {
                f(i + 1, id);
            }
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
    }
}
