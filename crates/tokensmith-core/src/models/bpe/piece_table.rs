//! A lookup table from a piece's bytes to its rank, built for the encoder's hot path.
//!
//! Nearly every piece of real text is at most 15 bytes long. Such keys are stored inline as
//! two zero-padded `u64` words whose last byte holds the length (plus one), in an
//! open-addressing table, so a lookup is one hash and usually one cache line, and a key
//! compares as two words: no pointer to follow and no `memcmp`. Longer keys go to an
//! ordinary hash map.

use super::huge::{HugeSlice, Zeroable};
use super::prefetch::prefetch;
use rustc_hash::FxHashMap;

/// Keys up to this many bytes are stored inline: the 16th byte of the two words holds the
/// length.
pub const INLINE: usize = 15;
/// Where `len + 1` sits in a key's `hi` word.
const LEN_SHIFT: u32 = 56;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    lo: u64,
    hi: u64,
    /// `len + 1`, so 0 marks an empty slot.
    len1: u32,
    value: u32,
}

// SAFETY: integers only; all zero is an empty slot.
unsafe impl Zeroable for Slot {}

/// Bytes to `u32`, read-only once built.
#[derive(Clone, Debug)]
pub struct PieceTable {
    slots: HugeSlice<Slot>,
    mask: usize,
    long: FxHashMap<Vec<u8>, u32>,
}

/// A key of at most [`INLINE`] bytes, as two little-endian words; `hi` also holds `len + 1`
/// in its top byte, so two keys are equal exactly when their words are.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct InlineKey {
    pub lo: u64,
    pub hi: u64,
    pub len: u32,
}

/// For each key length, the masks that keep its bytes of the two little-endian words, and
/// the length tag (`len + 1` in the top byte) of its `hi` word.
const KEEP: [[u64; 3]; INLINE + 1] = {
    let mut t = [[0u64; 3]; INLINE + 1];
    t[0][2] = 1 << LEN_SHIFT;
    let mut len = 1;
    while len <= INLINE {
        let tag = (len as u64 + 1) << LEN_SHIFT;
        t[len] = if len <= 8 {
            [u64::MAX >> (64 - 8 * len), 0, tag]
        } else {
            [u64::MAX, u64::MAX >> (64 - 8 * (len - 8)), tag]
        };
        len += 1;
    }
    t
};

impl InlineKey {
    /// Packs `bytes` (at most [`INLINE`] long).
    #[inline(always)]
    pub fn new(bytes: &[u8]) -> Self {
        debug_assert!(bytes.len() <= INLINE);
        let mut buf = [0u8; 16];
        buf[..bytes.len()].copy_from_slice(bytes);
        Self {
            lo: u64::from_le_bytes(buf[..8].try_into().unwrap()),
            hi: u64::from_le_bytes(buf[8..].try_into().unwrap())
                | ((bytes.len() as u64 + 1) << LEN_SHIFT),
            len: bytes.len() as u32,
        }
    }

    /// Packs `text[start..end]` (at most [`INLINE`] bytes), reading whole words when the
    /// text has room after the piece, which avoids a variable-length copy.
    #[inline(always)]
    pub fn from_text(text: &[u8], start: usize, end: usize) -> Self {
        let len = end - start;
        debug_assert!(len <= INLINE);
        if start < text.len().saturating_sub(INLINE) {
            // SAFETY: `start + 16 <= text.len()`, so both words lie within `text`.
            let (lo, hi) = unsafe {
                let at = text.as_ptr().add(start).cast::<u64>();
                (at.read_unaligned(), at.add(1).read_unaligned())
            };
            let (lo, hi) = (u64::from_le(lo), u64::from_le(hi));
            let [keep_lo, keep_hi, tag] = KEEP[len];
            Self {
                lo: lo & keep_lo,
                hi: (hi & keep_hi) | tag,
                len: len as u32,
            }
        } else {
            Self::new(&text[start..end])
        }
    }

    #[inline(always)]
    pub fn hash(&self) -> usize {
        let h = (self.lo ^ self.hi.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h ^ (h >> 29)) as usize
    }
}

impl PieceTable {
    /// Builds the table from `(bytes, value)` pairs with distinct keys.
    pub fn new<'a>(entries: impl Iterator<Item = (&'a [u8], u32)> + Clone) -> Self {
        let n_inline = entries.clone().filter(|(b, _)| b.len() <= INLINE).count();
        let capacity = (n_inline * 2).next_power_of_two().max(16);
        let mut table = Self {
            slots: HugeSlice::zeroed(capacity),
            mask: capacity - 1,
            long: FxHashMap::default(),
        };
        for (bytes, value) in entries {
            if bytes.len() <= INLINE {
                table.insert_inline(InlineKey::new(bytes), value);
            } else {
                table.long.insert(bytes.to_vec(), value);
            }
        }
        table
    }

    fn insert_inline(&mut self, key: InlineKey, value: u32) {
        let mut i = key.hash() & self.mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.len1 == 0 {
                *slot = Slot {
                    lo: key.lo,
                    hi: key.hi,
                    len1: key.len + 1,
                    value,
                };
                return;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Starts loading the slot where a lookup of an inline key with this hash begins.
    #[inline(always)]
    pub fn prefetch(&self, hash: usize) {
        prefetch(&self.slots[hash & self.mask]);
    }

    /// The value of an inline key.
    #[inline(always)]
    pub fn get_inline(&self, key: InlineKey) -> Option<u32> {
        self.get_hashed(key, key.hash())
    }

    /// The value of an inline key whose [`InlineKey::hash`] is `hash`.
    #[inline(always)]
    pub fn get_hashed(&self, key: InlineKey, hash: usize) -> Option<u32> {
        let mut i = hash & self.mask;
        loop {
            let slot = &self.slots[i];
            if slot.len1 == key.len + 1 && slot.lo == key.lo && slot.hi == key.hi {
                return Some(slot.value);
            }
            if slot.len1 == 0 {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The value of any key.
    #[inline(always)]
    pub fn get(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.len() <= INLINE {
            self.get_inline(InlineKey::new(bytes))
        } else {
            self.long.get(bytes).copied()
        }
    }

    /// The value of a key longer than [`INLINE`] bytes.
    #[inline(always)]
    pub fn get_long(&self, bytes: &[u8]) -> Option<u32> {
        self.long.get(bytes).copied()
    }

    /// The value of `text[start..end]`.
    #[inline(always)]
    pub fn get_in(&self, text: &[u8], start: usize, end: usize) -> Option<u32> {
        if end - start <= INLINE {
            self.get_inline(InlineKey::from_text(text, start, end))
        } else {
            self.long.get(&text[start..end]).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A key read from a text, by whole words or (near its end) by copying, packs the same
    /// words as the bytes on their own, for every length.
    #[test]
    fn keys_from_text_equal_keys_of_their_bytes() {
        let text: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) | 1).collect();
        for len in 0..=INLINE {
            for start in 0..=text.len() - len {
                let key = InlineKey::from_text(&text, start, start + len);
                assert_eq!(
                    key,
                    InlineKey::new(&text[start..start + len]),
                    "{start}+{len}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn finds_exactly_the_inserted_keys(
            keys in prop::collection::hash_set(prop::collection::vec(any::<u8>(), 1..24), 1..200),
            probes in prop::collection::vec(prop::collection::vec(prop::sample::select(vec![0u8, 1, 2]), 0..20), 0..50),
        ) {
            let keys: Vec<Vec<u8>> = keys.into_iter().collect();
            let table = PieceTable::new(keys.iter().enumerate().map(|(i, k)| (k.as_slice(), i as u32)));
            for (i, k) in keys.iter().enumerate() {
                prop_assert_eq!(table.get(k), Some(i as u32));
                // Reading from inside a longer text gives the same answer.
                let mut text = vec![7u8; 3];
                text.extend_from_slice(k);
                text.extend_from_slice(&[9u8; 20]);
                prop_assert_eq!(table.get_in(&text, 3, 3 + k.len()), Some(i as u32));
            }
            for p in probes {
                let expected = keys.iter().position(|k| *k == p).map(|i| i as u32);
                prop_assert_eq!(table.get(&p), expected);
            }
        }
    }
}
