//! A small per-thread cache of recent pieces and their ranks.
//!
//! Text repeats its words (Zipf's law), so most pieces were seen a moment ago. A direct-mapped
//! table of a few thousand slots stays in L1/L2 cache and answers them without touching the
//! vocabulary's large tables or merging again. A slot holds one piece of at most 16 bytes and
//! up to [`MAX_TOKENS`] ranks; a collision simply overwrites. Each thread keeps one cache per
//! vocabulary it has used recently, identified by the vocabulary's id.

use super::huge::{HugeSlice, Zeroable};
use super::merge::MergeScratch;
use super::model::Rank;
use super::piece_table::InlineKey;
use super::prefetch::prefetch;
use std::cell::RefCell;

/// The most ranks a slot holds; longer results are not cached.
pub const MAX_TOKENS: usize = 5;
const SLOTS: usize = 65536;
/// How many vocabularies one thread keeps caches for.
const CACHES_PER_THREAD: usize = 4;

#[derive(Clone, Copy, Default)]
struct Slot {
    lo: u64,
    hi: u64,
    /// `len + 1` in the low byte (0 = empty), the number of ranks in the next byte.
    meta: u32,
    ranks: [Rank; MAX_TOKENS],
}

// SAFETY: integers only; all zero is an empty slot.
unsafe impl Zeroable for Slot {}

/// A direct-mapped cache from inline piece keys to ranks.
pub struct PieceCache {
    slots: HugeSlice<Slot>,
}

impl Default for PieceCache {
    fn default() -> Self {
        Self {
            slots: HugeSlice::zeroed(SLOTS),
        }
    }
}

impl PieceCache {
    #[inline(always)]
    fn index(hash: usize) -> usize {
        (hash >> 7) & (SLOTS - 1)
    }

    /// Starts loading the slot of a key with this hash.
    #[inline(always)]
    pub fn prefetch(&self, hash: usize) {
        prefetch(&self.slots[Self::index(hash)]);
    }

    /// The cached ranks of `key`, if present.
    #[inline(always)]
    pub fn get(&self, key: InlineKey, hash: usize) -> Option<&[Rank]> {
        let slot = &self.slots[Self::index(hash)];
        if slot.meta & 0xFF == key.len + 1 && slot.lo == key.lo && slot.hi == key.hi {
            Some(&slot.ranks[..(slot.meta >> 8) as usize])
        } else {
            None
        }
    }

    /// Remembers the ranks of `key` if there are at most [`MAX_TOKENS`] of them.
    #[inline(always)]
    pub fn put(&mut self, key: InlineKey, hash: usize, ranks: &[Rank]) {
        if ranks.len() > MAX_TOKENS {
            return;
        }
        let slot = &mut self.slots[Self::index(hash)];
        slot.lo = key.lo;
        slot.hi = key.hi;
        slot.meta = (key.len + 1) | ((ranks.len() as u32) << 8);
        slot.ranks[..ranks.len()].copy_from_slice(ranks);
    }
}

/// Pieces longer than 16 bytes (whitespace runs, rules of dashes, long words) up to this
/// length are cached with their bytes; longer ones are rare and not worth the copy.
pub const LONG_MAX: usize = 256;
/// A few megabytes of non-Latin text hold some ten thousand distinct long pieces (words of
/// 6+ letters in 2- and 3-byte scripts); with 8,192 slots a third of them collided.
const LONG_SLOTS: usize = 32768;

#[derive(Default, Clone)]
struct LongSlot {
    hash: u64,
    bytes: Vec<u8>,
    ranks: Vec<Rank>,
}

/// A direct-mapped cache for pieces of 17 to [`LONG_MAX`] bytes.
#[derive(Default)]
pub struct LongPieceCache {
    slots: Vec<LongSlot>,
}

impl LongPieceCache {
    /// A hash of a piece's bytes for [`get`](Self::get) and [`put`](Self::put).
    #[inline]
    pub fn hash(bytes: &[u8]) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(bytes)
    }

    #[inline]
    pub fn get(&self, bytes: &[u8], hash: u64) -> Option<&[Rank]> {
        let slot = self.slots.get(hash as usize % LONG_SLOTS)?;
        (slot.hash == hash && slot.bytes == bytes).then_some(slot.ranks.as_slice())
    }

    #[inline]
    pub fn put(&mut self, bytes: &[u8], hash: u64, ranks: &[Rank]) {
        if self.slots.is_empty() {
            self.slots = vec![LongSlot::default(); LONG_SLOTS];
        }
        let slot = &mut self.slots[hash as usize % LONG_SLOTS];
        slot.hash = hash;
        slot.bytes.clear();
        slot.bytes.extend_from_slice(bytes);
        slot.ranks.clear();
        slot.ranks.extend_from_slice(ranks);
    }
}

/// What one thread keeps between encode calls for one vocabulary.
#[derive(Default)]
pub struct ThreadState {
    pub pieces: PieceCache,
    pub long_pieces: LongPieceCache,
    pub scratch: MergeScratch,
}

thread_local! {
    static STATES: RefCell<Vec<(u64, ThreadState)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's state for the vocabulary `id`.
///
/// Re-entrant calls (which the encoder never makes) get a fresh, unshared state.
pub fn with_cache<R>(id: u64, f: impl FnOnce(&mut ThreadState) -> R) -> R {
    STATES.with(|cell| {
        let Ok(mut states) = cell.try_borrow_mut() else {
            return f(&mut ThreadState::default());
        };
        let at = match states.iter().position(|(owner, _)| *owner == id) {
            Some(i) => i,
            None => {
                if states.len() == CACHES_PER_THREAD {
                    states.remove(0);
                }
                states.push((id, ThreadState::default()));
                states.len() - 1
            }
        };
        f(&mut states[at].1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_miss_and_overwrite() {
        let mut cache = PieceCache::default();
        let k = InlineKey::new(b"hello");
        cache.put(k, k.hash(), &[1, 2]);
        assert_eq!(cache.get(k, k.hash()), Some(&[1, 2][..]));
        let other = InlineKey::new(b"hellp");
        assert_eq!(cache.get(other, k.hash()), None, "same slot, other key");
        cache.put(k, k.hash(), &[1, 2, 3, 4, 5, 6]);
        assert_eq!(
            cache.get(k, k.hash()),
            Some(&[1, 2][..]),
            "too long to cache"
        );
        let z = InlineKey::new(b"");
        assert_eq!(cache.get(z, z.hash()), None);
    }

    #[test]
    fn long_cache_checks_bytes() {
        let mut cache = LongPieceCache::default();
        let piece = b"a rather long piece of text";
        let h = LongPieceCache::hash(piece);
        assert_eq!(cache.get(piece, h), None);
        cache.put(piece, h, &[1, 2, 3]);
        assert_eq!(cache.get(piece, h), Some(&[1, 2, 3][..]));
        assert_eq!(cache.get(b"another long piece of text!", h), None);
    }

    #[test]
    fn caches_are_per_vocabulary() {
        let k = InlineKey::new(b"x");
        with_cache(1, |s| s.pieces.put(k, k.hash(), &[7]));
        assert_eq!(
            with_cache(2, |s| s.pieces.get(k, k.hash()).map(<[u32]>::to_vec)),
            None
        );
        assert_eq!(
            with_cache(1, |s| s.pieces.get(k, k.hash()).map(<[u32]>::to_vec)),
            Some(vec![7])
        );
    }
}
