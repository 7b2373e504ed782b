//! Texts to ids without a copy of the texts: a table of `(hash, id)` whose owner keeps the
//! texts (a model's pieces) and hands a lookup `text_of(id)` to confirm a hit, so that two
//! texts with one hash are both found.
//!
//! The hash extends by one byte at either end ([`extend_right`], [`extend_left`]): the
//! SentencePiece BPE pair table's build looks up both halves of every cut of every piece
//! (200k lookups for a 32k model), and gets the halves' hashes from one pass over the piece
//! in each direction instead of hashing each half anew. The processor's piece-to-id map is
//! one too, and so holds no second copy of the pieces.

/// The multiplier of the polynomial hash (odd, so that multiplying by it loses nothing); the
/// word cache and the BPE pair table mix their keys with it too.
pub(crate) const HASH_MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const K: u64 = HASH_MUL;

/// The hash of `text + [byte]`, given `hash` of `text`.
#[inline(always)]
pub fn extend_right(hash: u64, byte: u8) -> u64 {
    hash.wrapping_mul(K).wrapping_add(u64::from(byte) + 1)
}

/// The hash of `[byte] + text`, given `hash` of `text` and `power` = `K` to the power of
/// `text.len()`.
#[inline(always)]
pub fn extend_left(hash: u64, power: u64, byte: u8) -> u64 {
    (u64::from(byte) + 1).wrapping_mul(power).wrapping_add(hash)
}

/// `power` for a text one byte longer (see [`extend_left`]).
#[inline(always)]
pub fn next_power(power: u64) -> u64 {
    power.wrapping_mul(K)
}

/// The hash of `text`.
pub fn hash(text: &[u8]) -> u64 {
    text.iter().fold(0, |h, &b| extend_right(h, b))
}

/// The hash of every suffix of `bytes` into `out` (cleared first): `out[at]` is the hash of
/// `bytes[at..]`, for `at` from 0 to `bytes.len()`, from one pass from the end.
pub fn suffix_hashes(bytes: &[u8], out: &mut Vec<u64>) {
    out.clear();
    out.resize(bytes.len() + 1, 0);
    let mut power = 1;
    for at in (0..bytes.len()).rev() {
        out[at] = extend_left(out[at + 1], power, bytes[at]);
        power = next_power(power);
    }
}

/// A slot's table index: the hash's high bits, mixed (the low bits of a polynomial hash
/// depend on few of its inputs).
#[inline(always)]
fn slot_of(hash: u64, shift: u32) -> usize {
    ((hash ^ hash >> 29).wrapping_mul(K) >> shift) as usize
}

const EMPTY: u32 = u32::MAX;

/// An open-addressing table of `(hash, id)` with linear probing.
#[derive(Clone, Debug)]
pub struct TextIndex {
    slots: Box<[(u64, u32)]>,
    shift: u32,
    len: usize,
}

impl TextIndex {
    /// An empty index with room for `capacity` texts (then at most half full).
    pub fn with_capacity(capacity: usize) -> Self {
        let size = (capacity * 2).next_power_of_two().max(2);
        Self {
            slots: vec![(0, EMPTY); size].into_boxed_slice(),
            shift: 64 - size.trailing_zeros(),
            len: 0,
        }
    }

    /// Adds `text` with `id` unless an id `text_of` maps to `text` is there (the first id
    /// of a text stays): `Err` with that id then. Panics past the capacity given.
    pub fn insert<'t>(
        &mut self,
        text: &str,
        id: u32,
        text_of: impl Fn(u32) -> &'t str,
    ) -> Result<(), u32> {
        assert!(self.len * 2 < self.slots.len(), "TextIndex is full");
        assert!(id != EMPTY, "TextIndex: id u32::MAX is reserved");
        let h = hash(text.as_bytes());
        let mask = self.slots.len() - 1;
        let mut at = slot_of(h, self.shift);
        loop {
            let (slot_hash, slot_id) = self.slots[at];
            if slot_id == EMPTY {
                self.slots[at] = (h, id);
                self.len += 1;
                return Ok(());
            }
            if slot_hash == h && text_of(slot_id) == text {
                return Err(slot_id);
            }
            at = (at + 1) & mask;
        }
    }

    /// The id of `text`, whose [`hash`] is `h`.
    #[inline]
    pub fn get_hashed<'t>(
        &self,
        text: &[u8],
        h: u64,
        text_of: impl Fn(u32) -> &'t str,
    ) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut at = slot_of(h, self.shift);
        loop {
            let (slot_hash, id) = self.slots[at];
            if id == EMPTY {
                return None;
            }
            if slot_hash == h && text_of(id).as_bytes() == text {
                return Some(id);
            }
            at = (at + 1) & mask;
        }
    }

    /// The id of `text`.
    pub fn get<'t>(&self, text: &str, text_of: impl Fn(u32) -> &'t str) -> Option<u32> {
        self.get_hashed(text.as_bytes(), hash(text.as_bytes()), text_of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn extending_at_either_end_gives_the_whole_hash() {
        let text = "ab▁中é".as_bytes();
        let mut suffixes = Vec::new();
        suffix_hashes(text, &mut suffixes);
        assert_eq!(suffixes.len(), text.len() + 1);
        for cut in 0..=text.len() {
            assert_eq!(suffixes[cut], hash(&text[cut..]));
            let mut left = hash(&text[..cut]);
            for &b in &text[cut..] {
                left = extend_right(left, b);
            }
            assert_eq!(left, hash(text));
        }
    }

    /// Two texts with one hash are both found, each with its own id: Thue-Morse strings of
    /// 2,048 bytes over `a`/`b` and their complement collide for any odd multiplier (the
    /// difference of their hashes is a product of eleven factors `1 - K^(2^j)`, divisible by
    /// 2^64).
    #[test]
    fn texts_with_one_hash_are_both_found() {
        let thue_morse = |a: char, b: char| -> String {
            (0..2048u32)
                .map(|i| if i.count_ones() % 2 == 0 { a } else { b })
                .collect()
        };
        let texts = [thue_morse('a', 'b'), thue_morse('b', 'a')];
        assert_ne!(texts[0], texts[1]);
        assert_eq!(hash(texts[0].as_bytes()), hash(texts[1].as_bytes()));
        let text_of = |id: u32| texts[id as usize].as_str();
        let mut index = TextIndex::with_capacity(2);
        assert_eq!(index.insert(&texts[0], 0, text_of), Ok(()));
        assert_eq!(index.insert(&texts[1], 1, text_of), Ok(()));
        assert_eq!(index.get(&texts[0], text_of), Some(0));
        assert_eq!(index.get(&texts[1], text_of), Some(1));
        // A text that is not there, looked up under the hash of one that is.
        assert_eq!(
            index.get_hashed(b"b", hash(texts[0].as_bytes()), text_of),
            None
        );
    }

    proptest! {
        /// The index finds what a map of the first id of each text finds, present or not.
        #[test]
        fn agrees_with_a_map(
            texts in prop::collection::vec("[ab▁é]{0,4}", 0..40),
            probes in prop::collection::vec("[ab▁é]{0,4}", 0..20),
        ) {
            let text_of = |id: u32| texts[id as usize].as_str();
            let mut index = TextIndex::with_capacity(texts.len());
            let mut map = std::collections::HashMap::new();
            for (id, t) in texts.iter().enumerate() {
                let want = match map.get(t.as_str()) {
                    Some(&first) => Err(first),
                    None => Ok(()),
                };
                map.entry(t.as_str()).or_insert(id as u32);
                prop_assert_eq!(index.insert(t, id as u32, text_of), want);
            }
            for t in texts.iter().chain(&probes) {
                prop_assert_eq!(index.get(t, text_of), map.get(t.as_str()).copied());
            }
        }
    }
}
