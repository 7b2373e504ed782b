//! A byte trie of the pieces, to find every piece that starts at a position in one walk.
//!
//! Inserting only stores the key; the first lookup compiles the keys into a double array:
//! state `s` has its child for byte `b` at `base(s) + b`, and that slot names its parent in
//! `check`, so a walk reads one 16-byte unit per byte and never scans a list of labels. Each key
//! may carry a score, stored in its unit so that a caller needs no second lookup per match.
//! Children are placed breadth first, so the short pieces that every walk visits sit together
//! near the start; the layout is the character trie's ([`layout`]), with bytes for codes. The
//! byte double array is compiled on the first byte-level lookup (the lattice of `nbest` and
//! `sample`, HF Unigram models, a normalizer's or a BPE model's user-defined pieces); a
//! Unigram model's Viterbi walks only the character trie ([`CharTrie`]), built from the same
//! stored keys, which a loaded SentencePiece model builds at load (`Unigram::prepare`).

use std::sync::OnceLock;

use super::char_layout::{layout, Keys};
use super::char_trie::CharTrie;

const NONE: u32 = u32::MAX;

/// The keys as inserted, and the tries compiled from them on first use (or, for the
/// character trie, by `Unigram::prepare` at load).
#[derive(Debug, Clone)]
pub struct PieceTrie {
    /// The bytes of every key, one after another, in the order inserted.
    key_bytes: Vec<u8>,
    /// Each key's end in `key_bytes`, id and score, in the order inserted (a repeated key
    /// too: the compiled tries keep its first id).
    keys: Vec<(usize, u32, f32)>,
    compiled: OnceLock<DoubleArray>,
    /// The character-level form, for the Viterbi (built on first use, or at load by
    /// `Unigram::prepare`).
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
    /// A slot no state uses.
    pub(super) const FREE: Self = Self {
        base: 0,
        check: NONE,
        value: NONE,
        score: 0.0,
    };

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

    fn compiled(&self) -> &DoubleArray {
        self.compiled.get_or_init(|| {
            let keys = Keys::new((0..self.keys.len()).map(|at| {
                let (_, id, score) = self.keys[at];
                (self.key(at).iter().map(|&b| u32::from(b)), (id, score))
            }));
            DoubleArray {
                units: layout(&keys),
            }
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
