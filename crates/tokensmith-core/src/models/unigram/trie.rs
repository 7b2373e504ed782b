//! A byte trie of the pieces, to find every piece that starts at a position in one walk.
//!
//! Inserting only stores the key; the first lookup compiles the keys into a double array:
//! state `s` has its child for byte `b` at `base(s) + b`, and that slot names its parent in
//! `check`, so a walk reads one 16-byte unit per byte and never scans a list of labels. Each key
//! may carry a score, stored in its unit so that a caller needs no second lookup per match.
//! Children are placed breadth first, so the short pieces that every walk visits sit together
//! near the start. Loading a model therefore builds no trie at all: a Unigram model's encoder
//! walks only the character trie ([`CharTrie`]), built from the same stored keys.

use std::collections::VecDeque;
use std::sync::OnceLock;

use super::char_trie::CharTrie;

const NONE: u32 = u32::MAX;
/// How many bases the layout tries among the gaps before it places children at the end.
const GAP_SEARCH: usize = 32;

/// A node's `(byte, child)` edges.
type Edges = Vec<(u8, u32)>;

/// The keys as inserted, and the tries compiled from them on first use.
#[derive(Debug, Clone)]
pub struct PieceTrie {
    /// The bytes of every key, one after another, in the order inserted.
    key_bytes: Vec<u8>,
    /// Each key's end in `key_bytes`, id and score, in the order inserted (a repeated key
    /// too: the compiled tries keep its first id).
    keys: Vec<(usize, u32, f32)>,
    compiled: OnceLock<DoubleArray>,
    /// The character-level form, for the Viterbi (built on first use).
    chars: OnceLock<CharTrie>,
}

/// One state of a double array (16 bytes: one read gives the transition and the key); also
/// the unit of the character trie, whose labels are character codes instead of bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Unit {
    /// Where this state's children start: the child for label `b` is at `base + b`.
    pub(super) base: u32,
    /// The parent state of this slot, or `NONE` when the slot is free.
    pub(super) check: u32,
    /// The piece id that ends here, or `NONE`.
    pub(super) value: u32,
    /// The score given with that piece.
    pub(super) score: f32,
}

impl Unit {
    /// A child slot of state `parent`, with no children yet, holding the piece that ends
    /// there, if any.
    pub(super) fn child(parent: usize, piece: Option<(u32, f32)>) -> Self {
        let (value, score) = piece.unwrap_or((NONE, 0.0));
        Self {
            base: 0,
            check: parent as u32,
            value,
            score,
        }
    }
}

/// The read-only form of the trie; state 0 is the root.
#[derive(Debug, Clone)]
struct DoubleArray {
    units: Vec<Unit>,
}

impl DoubleArray {
    /// Lays out the trie given by `children` (each node's `(byte, child)` list, sorted by byte)
    /// breadth first, each node's children at the first base where all their slots are free.
    fn build(children: &[Vec<(u8, u32)>], values: &[Option<(u32, f32)>]) -> Self {
        let free = Unit {
            base: 0,
            check: NONE,
            value: NONE,
            score: 0.0,
        };
        let mut units = vec![free; 256];
        let (value, score) = values.first().copied().flatten().unwrap_or((NONE, 0.0));
        units[0] = Unit {
            base: 0,
            check: NONE - 1,
            value,
            score,
        };
        let mut first_free = 1usize;
        let mut last_used = 0usize;
        let mut queue = VecDeque::from([(0u32, 0usize)]);
        while let Some((node, state)) = queue.pop_front() {
            let kids = &children[node as usize];
            let Some(&(lowest, _)) = kids.first() else {
                continue;
            };
            while first_free < units.len() && units[first_free].check != NONE {
                first_free += 1;
            }
            let mut base = first_free.saturating_sub(usize::from(lowest)).max(1);
            // A short search among the gaps; past it, the children go after every used slot,
            // which bounds the build time (wide nodes would otherwise scan the packed front).
            for tries in 0.. {
                if tries == GAP_SEARCH {
                    base = (last_used + 1).saturating_sub(usize::from(lowest)).max(1);
                }
                let end = base + 256;
                if units.len() < end {
                    units.resize(end, free);
                }
                if kids
                    .iter()
                    .all(|&(b, _)| units[base + usize::from(b)].check == NONE)
                {
                    break;
                }
                base += 1;
            }
            units[state].base = base as u32;
            for &(b, child) in kids {
                let slot = base + usize::from(b);
                last_used = last_used.max(slot);
                units[slot] = Unit::child(state, values[child as usize]);
                queue.push_back((child, slot));
            }
        }
        Self { units }
    }
}

impl Default for PieceTrie {
    fn default() -> Self {
        Self::new()
    }
}

impl PieceTrie {
    pub fn new() -> Self {
        Self {
            key_bytes: Vec::new(),
            keys: Vec::new(),
            compiled: OnceLock::new(),
            chars: OnceLock::new(),
        }
    }

    /// Adds `key` with `id`; a later insert of the same key keeps the first id.
    pub fn insert(&mut self, key: &[u8], id: u32) {
        self.insert_scored(key, id, 0.0);
    }

    /// Adds `key` with `id` and a score that [`Self::common_prefixes_scored`] reports.
    pub fn insert_scored(&mut self, key: &[u8], id: u32, score: f32) {
        self.compiled = OnceLock::new();
        self.chars = OnceLock::new();
        self.key_bytes.extend_from_slice(key);
        self.keys.push((self.key_bytes.len(), id, score));
    }

    /// The bytes of the key inserted `at`-th.
    fn key(&self, at: usize) -> &[u8] {
        let start = at.checked_sub(1).map_or(0, |before| self.keys[before].0);
        &self.key_bytes[start..self.keys[at].0]
    }

    /// The trie as nodes (the root is 0): each node's `(byte, child)` edges, sorted by byte,
    /// and the `(id, score)` of the key that ends at each node, the first inserted of equal
    /// keys. Built from the keys in byte order: each key adds nodes only past the prefix it
    /// shares with the key before it, so no edge is ever looked up.
    fn nodes(&self) -> (Vec<Edges>, Vec<Option<(u32, f32)>>) {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        // Stable: of equal keys the first inserted comes first.
        order.sort_by(|&a, &b| self.key(a).cmp(self.key(b)));
        let mut children: Vec<Edges> = vec![Vec::new()];
        let mut values: Vec<Option<(u32, f32)>> = vec![None];
        // The nodes of the previous key's path, from the root.
        let mut path = vec![0u32];
        let mut previous: &[u8] = &[];
        for at in order {
            let key = self.key(at);
            let shared = key.iter().zip(previous).take_while(|(a, b)| a == b).count();
            path.truncate(shared + 1);
            for &byte in &key[shared..] {
                let child = children.len() as u32;
                children.push(Vec::new());
                values.push(None);
                children[*path.last().expect("the root") as usize].push((byte, child));
                path.push(child);
            }
            let (_, id, score) = self.keys[at];
            values[*path.last().expect("the root") as usize].get_or_insert((id, score));
            previous = key;
        }
        (children, values)
    }

    fn compiled(&self) -> &DoubleArray {
        self.compiled.get_or_init(|| {
            let (children, values) = self.nodes();
            DoubleArray::build(&children, &values)
        })
    }

    /// The trie over characters, for a Viterbi that walks one unit per character.
    pub(super) fn char_trie(&self) -> &CharTrie {
        self.chars.get_or_init(|| {
            CharTrie::build((0..self.keys.len()).map(|at| {
                let (_, id, score) = self.keys[at];
                (self.key(at), id, score)
            }))
        })
    }

    /// Whether the character trie is built.
    #[cfg(test)]
    pub(super) fn has_char_trie(&self) -> bool {
        self.chars.get().is_some()
    }

    /// Whether some key begins with `byte`.
    pub fn has_key_starting_with(&self, byte: u8) -> bool {
        let units = &self.compiled().units;
        let slot = units[0].base as usize + usize::from(byte);
        units.get(slot).is_some_and(|u| u.check == 0)
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
        self.common_prefixes_scored(text, |len, id, _| f(len, id));
    }

    /// Calls `f(length, id, score)` for every key that is a prefix of `text`, shortest first.
    #[inline]
    pub fn common_prefixes_scored(&self, text: &[u8], f: impl FnMut(usize, u32, f32)) {
        self.matcher().for_each_prefix(text, f);
    }

    /// The compiled trie, for a caller that walks it at many positions: the compile check is
    /// made once, here, not on every walk.
    pub fn matcher(&self) -> Matcher<'_> {
        let units = &self.compiled().units;
        Matcher {
            units,
            root_base: units[0].base as usize,
        }
    }
}

/// A compiled [`PieceTrie`], borrowed.
#[derive(Clone, Copy)]
pub struct Matcher<'a> {
    units: &'a [Unit],
    root_base: usize,
}

impl Matcher<'_> {
    /// Calls `f(length, id, score)` for every key that is a prefix of `text`, shortest first.
    #[inline]
    pub fn for_each_prefix(self, text: &[u8], f: impl FnMut(usize, u32, f32)) {
        walk(
            self.units,
            self.root_base,
            text.iter().map(|&b| usize::from(b)),
            f,
        );
    }
}

/// Walks a double array from the root (children at `root_base`) along `labels`, calling
/// `f(labels read, id, score)` at every state that ends a key; stops where no child has the
/// next label. A label past every slot (such as a character trie's `NONE` code) stops it.
#[inline]
pub(super) fn walk(
    units: &[Unit],
    root_base: usize,
    labels: impl Iterator<Item = usize>,
    mut f: impl FnMut(usize, u32, f32),
) {
    let mut state = 0u32;
    let mut base = root_base;
    for (i, label) in labels.enumerate() {
        let slot = base + label;
        let Some(unit) = units.get(slot) else { return };
        if unit.check != state {
            return;
        }
        if unit.value != NONE {
            f(i + 1, unit.value, unit.score);
        }
        state = slot as u32;
        base = unit.base as usize;
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

    /// The double array finds exactly the keys a plain scan finds, each with the id it was
    /// first inserted with, on many random keys (many inserted more than once) that share
    /// prefixes and use every byte value.
    #[test]
    fn double_array_matches_a_scan() {
        let mut rng = super::super::sample::SplitMix64::new(7);
        let mut keys: Vec<(Vec<u8>, u32)> = Vec::new();
        let mut trie = PieceTrie::new();
        for id in 0..3000u32 {
            let len = 1 + (rng.next_u64() % 6) as usize;
            let alphabet = if id % 3 == 0 { 256 } else { 4 };
            let key: Vec<u8> = (0..len)
                .map(|_| (rng.next_u64() % alphabet) as u8)
                .collect();
            trie.insert(&key, id);
            if !keys.iter().any(|(k, _)| *k == key) {
                keys.push((key, id));
            }
        }
        for _ in 0..2000 {
            let alphabet = if rng.next_u64().is_multiple_of(2) {
                256
            } else {
                4
            };
            let text: Vec<u8> = (0..8).map(|_| (rng.next_u64() % alphabet) as u8).collect();
            let mut found = Vec::new();
            trie.common_prefixes(&text, |len, id| found.push((len, id)));
            let mut want: Vec<(usize, u32)> = keys
                .iter()
                .filter(|(k, _)| text.starts_with(k))
                .map(|(k, id)| (k.len(), *id))
                .collect();
            want.sort_unstable();
            assert_eq!(found, want);
            assert_eq!(
                trie.has_key_starting_with(text[0]),
                keys.iter().any(|(k, _)| k[0] == text[0])
            );
        }
    }
}
