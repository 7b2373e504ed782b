//! A small per-thread cache of recent pieces and their ranks.
//!
//! Text repeats its words (Zipf's law), so most pieces were seen a moment ago. A table of a
//! few ten thousand slots answers them without touching the vocabulary's large tables or
//! merging again. A slot holds one piece of at most 15 bytes and up to [`MAX_TOKENS`] ranks,
//! packed into 32 bytes (ranks have at most 21 bits). The table is two-way set associative:
//! the two slots of a set share one 64-byte cache line, so a lookup still costs one line, but
//! two pieces whose hashes meet no longer evict each other. The most recently used piece of a
//! set sits in its first slot; a new piece pushes the older one to the second slot, and a hit
//! in the second slot swaps the two. Each thread keeps one cache per vocabulary it has used
//! recently, identified by the vocabulary's id. A thread's cache starts out holding every
//! token of up to 15 bytes that is its own piece's encoding (all of them under tiktoken's
//! rule; under merges alone, those whose merge gives them back: `Bpe::new_thread_state` in
//! `fill.rs`), so text never seen before hits on its common words too. The fill touches most
//! of the table's 4 MB and costs a few milliseconds on a thread's first call with a
//! vocabulary; a merges-only vocabulary also pays once per process for finding its tokens.

use super::huge::{HugeSlice, Zeroable};
use super::long_cache::LongPieceCache;
use super::merge::MergeScratch;
use super::model::{Bpe, Rank};
use super::pair_table::RANK_BITS;
use super::piece_table::InlineKey;
use super::prefetch::prefetch;
use crate::thread_tables::table_for;
use std::cell::{Cell, RefCell};
use std::mem::MaybeUninit;

/// The most ranks a slot holds; longer results are not cached.
pub const MAX_TOKENS: usize = 5;
/// 65,536 sets of two slots: 4 MB. On the multilingual benchmark corpus after English and
/// code, a direct-mapped table of 65,536 slots of 40 bytes (2.6 MB) missed 17,300 of 155,000
/// short pieces; this misses about 5,500.
const SETS: usize = 65536;
/// How many vocabularies one thread keeps caches for.
const CACHES_PER_THREAD: usize = 4;

/// The bits of one rank.
const FIELD: u64 = (1 << RANK_BITS) - 1;
/// Where the number of ranks (3 bits) sits in `Slot::b`, above its two ranks.
const COUNT_SHIFT: u32 = 61;
/// How many bits of the fifth rank sit in the upper half of `Slot::a`'s first 32-bit half.
const SPLIT: u32 = 32 - RANK_BITS;
// The fifth rank fits in the spare bits of the two halves of `Slot::a`, and the count above
// the second rank of `Slot::b`.
const _: () = assert!(2 * (32 - RANK_BITS) >= RANK_BITS && RANK_BITS + 32 <= COUNT_SHIFT);

/// One cached piece: its key (whose top byte, `len + 1`, is never 0, so an all-zero slot is
/// empty), and its ranks two to a word, each in its own 32-bit half, so that the first two
/// (most pieces are one or two tokens) reach the output as they are after clearing the spare
/// bits: `a = r0 | r1 << 32` with the fifth rank's low and high bits in the spare bits
/// above `r0` and above `r1`, `b = r2 | r3 << 32 | count << 61`.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Slot {
    lo: u64,
    hi: u64,
    a: u64,
    b: u64,
}

impl Slot {
    #[inline(always)]
    fn holds(&self, key: InlineKey) -> bool {
        self.lo == key.lo && self.hi == key.hi
    }

    /// The slot of `key` with `ranks` (at most [`MAX_TOKENS`], each below `1 << RANK_BITS`).
    #[inline(always)]
    fn new(key: InlineKey, ranks: &[Rank]) -> Self {
        let mut r = [0u64; MAX_TOKENS];
        for (slot, &rank) in r.iter_mut().zip(ranks) {
            *slot = rank as u64 & FIELD;
        }
        let fifth = (r[4] & ((1 << SPLIT) - 1)) << RANK_BITS | (r[4] >> SPLIT) << (32 + RANK_BITS);
        Self {
            lo: key.lo,
            hi: key.hi,
            a: r[0] | r[1] << 32 | fifth,
            b: r[2] | r[3] << 32 | (ranks.len() as u64) << COUNT_SHIFT,
        }
    }

    /// How many ranks there are.
    #[inline(always)]
    fn count(&self) -> usize {
        (self.b >> COUNT_SHIFT) as usize
    }

    /// The two ranks in the halves of `word`.
    #[inline(always)]
    fn pair(word: u64) -> [Rank; 2] {
        [(word & FIELD) as Rank, ((word >> 32) & FIELD) as Rank]
    }

    /// The fifth rank, from the spare bits of `a`.
    #[inline(always)]
    fn fifth(&self) -> Rank {
        let low = (self.a >> RANK_BITS) & ((1 << SPLIT) - 1);
        let high = (self.a >> (32 + RANK_BITS)) & ((1 << (RANK_BITS - SPLIT)) - 1);
        (low | high << SPLIT) as Rank
    }

    #[inline(always)]
    fn append_ranks(&self, out: &mut Vec<Rank>) {
        let count = self.count();
        let [first, second] = Self::pair(self.a);
        // Most pieces are one token: skip unpacking the other four.
        if count == 1 {
            out.push(first);
            return;
        }
        let [third, fourth] = Self::pair(self.b);
        let ranks = [first, second, third, fourth, self.fifth()];
        out.extend_from_slice(&ranks[..count]);
    }
}

/// The ranks of one cached piece, copied out of the cache.
#[derive(Clone, Copy, Default)]
pub struct CachedRanks(Slot);

impl CachedRanks {
    /// Appends the ranks to `out`.
    #[inline(always)]
    pub fn append_to(&self, out: &mut Vec<Rank>) {
        self.0.append_ranks(out);
    }

    /// How many ranks there are.
    #[inline(always)]
    pub fn count(&self) -> usize {
        self.0.count()
    }

    /// Writes the ranks to the front of `out` and returns how many there are.
    ///
    /// The first two are written whatever the count (most pieces are one or two tokens), so
    /// the common case takes no branch on the count; the slots after the last rank get junk.
    #[inline(always)]
    pub fn write_to(&self, out: &mut [MaybeUninit<Rank>; MAX_TOKENS]) -> usize {
        let slot = &self.0;
        write_pair(slot.a, out);
        let count = slot.count();
        if count > 2 {
            let [third, fourth] = Slot::pair(slot.b);
            out[2].write(third);
            out[3].write(fourth);
            out[4].write(slot.fifth());
        }
        count
    }
}

/// Writes the two ranks in the halves of `word` to the front of `out`: one store of both on
/// a little-endian machine, where the halves are already in order.
#[inline(always)]
fn write_pair(word: u64, out: &mut [MaybeUninit<Rank>; MAX_TOKENS]) {
    const BOTH: u64 = FIELD | FIELD << 32;
    if cfg!(target_endian = "little") {
        // SAFETY: `out` holds five 4-byte ranks, so its first 8 bytes are writable; an
        // unaligned write needs no alignment, and any bits are a valid `u32`.
        unsafe { out.as_mut_ptr().cast::<u64>().write_unaligned(word & BOTH) };
    } else {
        let [first, second] = Slot::pair(word);
        out[0].write(first);
        out[1].write(second);
    }
}

/// Two slots in one cache line; `ways[0]` is the more recently used.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Set {
    ways: [Slot; 2],
}

// SAFETY: integers only; all zero is an empty set.
unsafe impl Zeroable for Set {}

/// The cached ranks of `key` in `set`, which then lists `key` first.
#[inline(always)]
fn find_in(set: &mut Set, key: InlineKey) -> Option<CachedRanks> {
    if set.ways[0].holds(key) {
        return Some(CachedRanks(set.ways[0]));
    }
    if set.ways[1].holds(key) {
        set.ways.swap(0, 1);
        return Some(CachedRanks(set.ways[0]));
    }
    None
}

/// A two-way set-associative cache from inline piece keys to ranks.
pub struct PieceCache {
    sets: HugeSlice<Set>,
}

impl Default for PieceCache {
    fn default() -> Self {
        Self {
            sets: HugeSlice::zeroed(SETS),
        }
    }
}

impl PieceCache {
    /// The set where a key with this hash lives: the hash's top bits, which for an
    /// [`InlineKey::hash`] are those of its multiplication, the best mixed (and the key's
    /// set costs one shift).
    #[inline(always)]
    pub fn index(hash: usize) -> usize {
        hash >> (usize::BITS - SETS.trailing_zeros())
    }

    /// Starts loading the set at `index` (from [`index`](Self::index)).
    #[inline(always)]
    pub fn prefetch_set(&self, index: usize) {
        // A prefetch never faults, so the address needs no bounds check (`index` is in
        // bounds anyway).
        prefetch(self.sets.as_ptr().wrapping_add(index));
    }

    /// The table as an array, so that an index masked to its size needs no bounds check.
    #[inline(always)]
    fn sets_mut(&mut self) -> &mut [Set; SETS] {
        (&mut self.sets[..SETS])
            .try_into()
            .expect("the table has SETS sets")
    }

    /// [`find`](Self::find) in the set at `index` (from [`index`](Self::index)).
    #[inline(always)]
    pub fn find_in_set(&mut self, key: InlineKey, index: usize) -> Option<CachedRanks> {
        find_in(&mut self.sets[index], key)
    }

    /// Hands `hit` the cached ranks of `keys[i]`, whose set is at `indices[i]`, in order while
    /// they are cached, and returns how many were.
    #[inline(always)]
    pub fn find_run(
        &mut self,
        keys: &[InlineKey],
        indices: &[u64],
        mut hit: impl FnMut(CachedRanks),
    ) -> usize {
        // The table's address is read once, not once a piece, and the masked index needs
        // no bounds check.
        let sets = self.sets_mut();
        for (found, (&key, &index)) in keys.iter().zip(indices).enumerate() {
            match find_in(&mut sets[index as usize & (SETS - 1)], key) {
                Some(ranks) => hit(ranks),
                None => return found,
            }
        }
        keys.len().min(indices.len())
    }

    /// A mask of the keys that are not cached: bit `i` is set when `keys[i]`, whose set is at
    /// `indices[i]`, is in neither of its set's slots (at most 32 keys; without marking any
    /// as used). An index is only masked to the table's size, so a key whose index is no set
    /// (see [`find_run`](Self::find_run)) gets a meaningless bit.
    #[inline(always)]
    pub fn misses(&self, keys: &[InlineKey], indices: &[u64]) -> u32 {
        let sets: &[Set; SETS] = (&self.sets[..SETS])
            .try_into()
            .expect("the table has SETS sets");
        let n = keys.len().min(indices.len()).min(32);
        let (keys, indices) = (&keys[..n], &indices[..n]);
        let mut mask = 0;
        for i in 0..n {
            let set = &sets[indices[i] as usize & (SETS - 1)];
            let cached = set.ways[0].holds(keys[i]) | set.ways[1].holds(keys[i]);
            mask |= u32::from(!cached) << i;
        }
        mask
    }

    /// Starts loading the set of a key with this hash.
    #[inline(always)]
    pub fn prefetch(&self, hash: usize) {
        prefetch(&self.sets[Self::index(hash)]);
    }

    /// Whether `key` is cached (without marking it as used).
    #[inline(always)]
    pub fn contains(&self, key: InlineKey, hash: usize) -> bool {
        let set = &self.sets[Self::index(hash)];
        set.ways[0].holds(key) || set.ways[1].holds(key)
    }

    /// Appends the cached ranks of `key` to `out` and returns true, or returns false.
    #[inline(always)]
    pub fn get_into(&mut self, key: InlineKey, hash: usize, out: &mut Vec<Rank>) -> bool {
        match self.find(key, hash) {
            Some(hit) => {
                hit.append_to(out);
                true
            }
            None => false,
        }
    }

    /// A copy of the cached ranks of `key`, marked as its set's most recently used.
    #[inline(always)]
    pub fn find(&mut self, key: InlineKey, hash: usize) -> Option<CachedRanks> {
        self.find_in_set(key, Self::index(hash))
    }

    /// Remembers the ranks of `key` if there are at most [`MAX_TOKENS`] of them, as the most
    /// recently used piece of its set. `key` must not be cached already.
    #[inline(always)]
    pub fn put(&mut self, key: InlineKey, hash: usize, ranks: &[Rank]) {
        if ranks.len() > MAX_TOKENS {
            return;
        }
        let set = &mut self.sets[Self::index(hash)];
        set.ways[1] = set.ways[0];
        set.ways[0] = Slot::new(key, ranks);
    }
}

impl PieceCache {
    /// Caches each of `tokens` (distinct keys, with their ranks) as the one-rank encoding of
    /// its bytes. A later token pushes an earlier one of its set to the second slot, and out
    /// when a third comes: pass the tokens to keep last.
    pub fn prefill(&mut self, tokens: impl Iterator<Item = (InlineKey, Rank)>) {
        for (key, rank) in tokens {
            self.put(key, key.hash(), &[rank]);
        }
    }
}

/// What one thread keeps between encode calls for one vocabulary.
#[derive(Default)]
pub struct ThreadState {
    pub pieces: PieceCache,
    pub long_pieces: LongPieceCache,
    pub scratch: MergeScratch,
    /// Whether the last short piece that missed the piece cache was found in the long-piece
    /// cache (false when it was a whole token or had to be merged): the text is like text
    /// seen before, whose misses are the pieces the piece cache cannot hold (more than
    /// [`MAX_TOKENS`] ranks), and the encoder does not probe the pieces after a miss (see
    /// `Bpe::probe_after_cold` in `batch.rs`).
    pub warm_misses: bool,
}

thread_local! {
    static STATES: RefCell<Vec<(u64, ThreadState)>> = const { RefCell::new(Vec::new()) };
    /// How many dropped vocabularies this thread has let go of (see [`crate::thread_tables`]).
    static GONE_SEEN: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with this thread's state for the vocabulary `bpe` (first freeing the states of
/// vocabularies that were dropped). A thread's first state for a vocabulary starts out
/// holding its tokens ([`Bpe::new_thread_state`]).
///
/// Re-entrant calls (which the encoder never makes) get a fresh, unshared state.
pub fn with_cache<R>(bpe: &Bpe, f: impl FnOnce(&mut ThreadState) -> R) -> R {
    with_state(bpe.id(), || bpe.new_thread_state(), f)
}

/// Runs `f` with this thread's state for the vocabulary `id`, made by `make` on first use.
fn with_state<R>(
    id: u64,
    make: impl FnOnce() -> ThreadState,
    f: impl FnOnce(&mut ThreadState) -> R,
) -> R {
    STATES.with(|cell| {
        let Ok(mut states) = cell.try_borrow_mut() else {
            return f(&mut make());
        };
        let state =
            GONE_SEEN.with(|seen| table_for(&mut states, seen, id, CACHES_PER_THREAD, make));
        f(state)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(cache: &mut PieceCache, key: InlineKey, hash: usize) -> Option<Vec<Rank>> {
        let mut out = vec![99];
        let hit = cache.get_into(key, hash, &mut out);
        assert_eq!(hit, out.len() > 1 || cache.contains(key, hash));
        hit.then(|| out[1..].to_vec())
    }

    #[test]
    fn hit_miss_and_overwrite() {
        let mut cache = PieceCache::default();
        let k = InlineKey::new(b"hello");
        cache.put(k, k.hash(), &[1, 2]);
        assert_eq!(get(&mut cache, k, k.hash()), Some(vec![1, 2]));
        let other = InlineKey::new(b"hellp");
        assert_eq!(
            get(&mut cache, other, k.hash()),
            None,
            "same set, other key"
        );
        let z = InlineKey::new(b"");
        assert_eq!(get(&mut cache, z, z.hash()), None);
        let six = InlineKey::new(b"sixsix");
        cache.put(six, six.hash(), &[1, 2, 3, 4, 5, 6]);
        assert_eq!(get(&mut cache, six, six.hash()), None, "too long to cache");
    }

    #[test]
    fn ranks_of_21_bits_and_every_count_round_trip() {
        let mut cache = PieceCache::default();
        let top = (1 << RANK_BITS) - 2;
        for n in 0..=MAX_TOKENS {
            let ranks: Vec<Rank> = (0..n as Rank).map(|i| top - i * 77_777).collect();
            let key = InlineKey::new(&b"0123456789abcde"[..n * 3]);
            cache.put(key, key.hash(), &ranks);
            assert_eq!(get(&mut cache, key, key.hash()), Some(ranks));
        }
        // Every bit of every rank, the fifth's split between the two halves of a word too.
        let full = vec![(1 << RANK_BITS) - 1; MAX_TOKENS];
        let key = InlineKey::new(b"full");
        cache.put(key, key.hash(), &full);
        assert_eq!(get(&mut cache, key, key.hash()), Some(full));
    }

    #[test]
    fn misses_marks_the_keys_in_neither_slot_of_their_set() {
        let mut cache = PieceCache::default();
        let keys: Vec<InlineKey> = (0..40u8).map(|i| InlineKey::new(&[b'a', i])).collect();
        let indices: Vec<u64> = keys
            .iter()
            .map(|k| PieceCache::index(k.hash()) as u64)
            .collect();
        for k in keys.iter().step_by(3) {
            cache.put(*k, k.hash(), &[1]);
        }
        let expected = (0..32).filter(|i| i % 3 != 0).fold(0u32, |m, i| m | 1 << i);
        assert_eq!(cache.misses(&keys, &indices), expected, "at most 32 keys");
        assert_eq!(cache.misses(&keys[1..3], &indices[1..3]), 0b11);
        assert_eq!(cache.misses(&keys[..1], &indices[..1]), 0);
    }

    #[test]
    fn a_set_keeps_its_two_most_recently_used_pieces() {
        // Three keys forced into one set (same hash): the least recently used one goes.
        let mut cache = PieceCache::default();
        let [a, b, c] = [b"a", b"b", b"c"].map(|k| InlineKey::new(k));
        let h = a.hash();
        cache.put(a, h, &[1]);
        cache.put(b, h, &[2]);
        assert_eq!(
            get(&mut cache, a, h),
            Some(vec![1]),
            "a hit moves a to the front"
        );
        cache.put(c, h, &[3]);
        assert_eq!(get(&mut cache, b, h), None, "b was the least recently used");
        assert_eq!(get(&mut cache, a, h), Some(vec![1]));
        assert_eq!(get(&mut cache, c, h), Some(vec![3]));
    }

    #[test]
    fn caches_are_per_vocabulary() {
        let k = InlineKey::new(b"x");
        let fresh = ThreadState::default;
        with_state(1, fresh, |s| s.pieces.put(k, k.hash(), &[7]));
        assert_eq!(
            with_state(2, fresh, |s| get(&mut s.pieces, k, k.hash())),
            None
        );
        assert_eq!(
            with_state(1, fresh, |s| get(&mut s.pieces, k, k.hash())),
            Some(vec![7])
        );
    }

    /// Whether this thread holds a state for the vocabulary `id`.
    fn holds_state(id: u64) -> bool {
        STATES.with(|cell| cell.borrow().iter().any(|(owner, _)| *owner == id))
    }

    #[test]
    fn a_dropped_vocabularys_state_goes_at_the_next_lookup_and_a_clones_stays() {
        let make = || {
            let ranks = vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1), (b"ab".to_vec(), 2)];
            super::super::model::Bpe::new(ranks).unwrap()
        };
        let (bpe, other) = (make(), make());
        let clone = bpe.clone();
        let id = bpe.id();
        let mut out = Vec::new();
        bpe.encode_piece(b"ab", &mut out).unwrap();
        other.encode_piece(b"ab", &mut out).unwrap();
        assert_eq!(out, [2, 2]);
        assert!(holds_state(id) && holds_state(other.id()));
        // One of two holders dropped: its state stays.
        drop(bpe);
        other.encode_piece(b"a", &mut out).unwrap();
        assert!(holds_state(id));
        // The last holder dropped: the next lookup frees its state only.
        drop(clone);
        other.encode_piece(b"b", &mut out).unwrap();
        assert!(!holds_state(id));
        assert!(holds_state(other.id()));
    }
}
