//! A per-thread cache of recent long pieces (16 to [`LONG_MAX`] bytes) and their ranks, and
//! of the short pieces the piece cache let go.
//!
//! Non-Latin text is full of long pieces: a word of six letters in a 2- or 3-byte script is
//! already longer than a piece-cache key, and merging it again costs far more than its lookup.
//! A few megabytes of such text hold some ten thousand distinct long pieces; a direct-mapped
//! table of 32,768 of them let about a third collide and evict each other on every pass. This
//! table is four-way set associative: a set keeps its four most recently used pieces, so
//! pieces only go once more than four of those in use share a set.
//!
//! A set is one cache line: per way a tag (32 bits of the piece's hash), its piece's length
//! and rank count, so a lookup compares those before it reads an entry, and where the entry's
//! ranks and bytes are. The ways are kept in order of use: a hit moves its way to the front,
//! and a new piece pushes out the last one. Entries are written one after another into a
//! fixed arena that wraps around, so the cache never allocates after its first use and its
//! memory is bounded whatever the text; an entry written over is a miss.
//!
//! The piece cache's misses of short pieces land here too (see `Bpe::encode_short_merged`):
//! a set of the piece cache keeps two pieces, which the pieces of a few scripts' text
//! overflow, and a piece of more than its five ranks only fits here.

use super::huge::{HugeSlice, Zeroable};
use super::model::Rank;
use super::prefetch::prefetch;
use super::same_bytes::same_bytes;

/// Pieces longer than a piece-cache key up to this length are cached with their bytes;
/// longer ones are rare and not worth the copy.
pub const LONG_MAX: usize = 256;
/// Pieces a set holds.
const WAYS: usize = 4;
/// 32,768 sets of four: 131,072 pieces, in 2 MB of sets and an [`ARENA`] of their ranks and
/// bytes. On the multilingual benchmark corpus (after English and code), a warm pass of
/// o200k then merges about 70 pieces again, against some 12,000 with a two-way piece cache
/// and a direct-mapped long-piece cache of 32,768.
const SETS: usize = 32768;
/// The bytes of ranks and pieces the cache keeps, written one after another and wrapping
/// around: a piece's entry is lost once 8 MB of newer ones have been written after it.
const ARENA: usize = 8 << 20;

/// Four cached pieces in one cache line, the most recently used first: per way the low 32
/// bits of its hash, `len | n_ranks << 16` (0 when the way is empty), and where in the arena
/// its ranks (in the machine's byte order, at a multiple of 4) and then its bytes were
/// written, counted from the first byte ever written.
#[derive(Default, Clone, Copy)]
#[repr(C, align(64))]
struct LongSet {
    tags: [u32; WAYS],
    shapes: [u32; WAYS],
    at: [u64; WAYS],
}

// SAFETY: integers only; all zero is a set of empty ways.
unsafe impl Zeroable for LongSet {}

/// What a way stores besides its tag: a piece's length in bytes and its number of ranks
/// (both at most [`LONG_MAX`]; a stored piece is never empty, so never 0).
#[inline(always)]
fn shape(len: usize, n_ranks: usize) -> u32 {
    (len | n_ranks << 16) as u32
}

impl LongSet {
    /// Moves way `w` to the front, keeping the order of the others.
    #[inline(always)]
    fn move_to_front(&mut self, w: usize) {
        if w > 0 {
            self.tags[..=w].rotate_right(1);
            self.shapes[..=w].rotate_right(1);
            self.at[..=w].rotate_right(1);
        }
    }
}

/// A four-way set-associative cache from long pieces to their ranks.
pub struct LongPieceCache {
    /// Like `arena`, zeroed memory: allocated on first use, and only paid for where it is
    /// written, unless [`Self::backed`] made it (and the arena's start) resident up front.
    sets: HugeSlice<LongSet>,
    /// Entries, at their position modulo [`ARENA`].
    arena: HugeSlice<u8>,
    /// Where the next entry goes, counted from the first byte ever written.
    head: u64,
}

impl Default for LongPieceCache {
    fn default() -> Self {
        Self {
            sets: HugeSlice::zeroed(0),
            arena: HugeSlice::zeroed(0),
            head: 0,
        }
    }
}

/// How much of the arena [`LongPieceCache::backed`] backs up front: one huge page, which holds
/// the entries of a few thousand pieces.
const ARENA_BACKED: usize = 2 << 20;

impl LongPieceCache {
    /// An empty cache whose sets and the start of its arena are allocated and backed by memory
    /// already (see [`HugeSlice::zeroed_backed`]): a thread's first call then pays no page
    /// faults for them. The default cache allocates on its first [`put`](Self::put).
    pub fn backed() -> Self {
        Self {
            sets: HugeSlice::zeroed_backed(SETS, usize::MAX),
            arena: HugeSlice::zeroed_backed(ARENA, ARENA_BACKED),
            head: 0,
        }
    }

    /// A hash of a piece's bytes for [`get_into`](Self::get_into) and [`put`](Self::put).
    #[inline]
    pub fn hash(bytes: &[u8]) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(bytes)
    }

    /// The hash here of a short piece whose [`InlineKey::hash`](super::piece_table::InlineKey::hash)
    /// is `key_hash`: mixed once more, since the set is taken from the top bits.
    #[inline(always)]
    pub fn hash_of_key(key_hash: usize) -> u64 {
        (key_hash as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The set of a piece with this hash. FxHash's low bits are its weakest, so the index is
    /// taken from the top (and the tag from the bottom).
    #[inline(always)]
    fn index(hash: u64) -> usize {
        (hash >> (64 - SETS.trailing_zeros())) as usize
    }

    /// The entry written at `at` with this shape, if no newer one has been written over it.
    #[inline(always)]
    fn entry(&self, at: u64, shape: u32) -> Option<&[u8]> {
        let size = (shape & 0xffff) as usize + (shape >> 16) as usize * 4;
        if shape == 0 || self.head > at + ARENA as u64 {
            return None;
        }
        let start = at as usize % ARENA;
        self.arena.get(start..start + size)
    }

    /// Starts loading the set of a piece with this hash.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        if let Some(set) = self.sets.get(Self::index(hash)) {
            prefetch(set);
        }
    }

    /// Starts loading the stored ranks and bytes of a piece with this hash, if it is cached
    /// (its set should have been prefetched a while before).
    #[inline(always)]
    pub fn prefetch_entry(&self, hash: u64) {
        if let Some(set) = self.sets.get(Self::index(hash)) {
            if let Some(w) = set.tags.iter().position(|&t| t == hash as u32) {
                let start = set.at[w] as usize % ARENA;
                if let Some(entry) = self.arena.get(start) {
                    prefetch(entry);
                }
            }
        }
    }

    /// Appends the cached ranks of `bytes` (whose [`hash`](Self::hash) is `hash`) to `out`,
    /// marks the piece as its set's most recently used and returns true, or returns false.
    #[inline]
    pub fn get_into(&mut self, bytes: &[u8], hash: u64, out: &mut Vec<Rank>) -> bool {
        let index = Self::index(hash);
        let Some(set) = self.sets.get(index) else {
            return false;
        };
        for w in 0..WAYS {
            if set.tags[w] != hash as u32 || set.shapes[w] & 0xffff != bytes.len() as u32 {
                continue;
            }
            let Some(entry) = self.entry(set.at[w], set.shapes[w]) else {
                continue;
            };
            let (ranks, stored) = entry.split_at(entry.len() - bytes.len());
            if !same_bytes(stored, bytes) {
                continue;
            }
            append_ranks(ranks, out);
            self.sets[index].move_to_front(w);
            return true;
        }
        false
    }

    /// Remembers the ranks of `bytes` (of at most [`LONG_MAX`] bytes, not cached already) as
    /// the most recently used piece of its set, in place of the least recently used one.
    #[inline]
    pub fn put(&mut self, bytes: &[u8], hash: u64, ranks: &[Rank]) {
        if bytes.is_empty() || bytes.len() > LONG_MAX || ranks.len() > LONG_MAX {
            return;
        }
        if self.sets.is_empty() {
            self.sets = HugeSlice::zeroed(SETS);
            self.arena = HugeSlice::zeroed(ARENA);
        }
        let size = ranks.len() * 4 + bytes.len();
        // An entry never wraps around the arena's end: it starts again at the beginning.
        // Entries start at multiples of 4, so that their ranks are aligned words.
        if self.head as usize % ARENA + size > ARENA {
            self.head = self.head.next_multiple_of(ARENA as u64);
        }
        let start = self.head as usize % ARENA;
        let entry = &mut self.arena[start..start + size];
        let (stored_ranks, stored) = entry.split_at_mut(ranks.len() * 4);
        for (slot, rank) in stored_ranks.chunks_exact_mut(4).zip(ranks) {
            slot.copy_from_slice(&rank.to_ne_bytes());
        }
        stored.copy_from_slice(bytes);
        let set = &mut self.sets[Self::index(hash)];
        set.move_to_front(WAYS - 1);
        set.tags[0] = hash as u32;
        set.shapes[0] = shape(bytes.len(), ranks.len());
        set.at[0] = self.head;
        self.head += size.next_multiple_of(4) as u64;
    }
}

/// Appends the ranks stored as `bytes` (4 to a rank, in the machine's byte order) to `out`:
/// one copy, since an entry's ranks start at a multiple of 4 in the arena.
#[inline(always)]
fn append_ranks(bytes: &[u8], out: &mut Vec<Rank>) {
    // SAFETY: every bit pattern is a valid `u32`, and `align_to` only returns aligned words.
    let (before, words, after) = unsafe { bytes.align_to::<Rank>() };
    if before.is_empty() && after.is_empty() {
        out.extend_from_slice(words);
    } else {
        // Never taken: the arena starts at a page and every entry at a multiple of 4.
        let rank = |r: &[u8]| Rank::from_ne_bytes([r[0], r[1], r[2], r[3]]);
        out.extend(bytes.chunks_exact(4).map(rank));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(cache: &mut LongPieceCache, bytes: &[u8], hash: u64) -> Option<Vec<Rank>> {
        let mut out = vec![];
        cache.get_into(bytes, hash, &mut out).then_some(out)
    }

    #[test]
    fn checks_bytes_and_length() {
        for cache in [LongPieceCache::default(), LongPieceCache::backed()] {
            check_bytes_and_length(cache);
        }
    }

    fn check_bytes_and_length(mut cache: LongPieceCache) {
        let piece = b"a rather long piece of text";
        let h = LongPieceCache::hash(piece);
        assert_eq!(get(&mut cache, piece, h), None);
        cache.put(piece, h, &[1, 2, 3, 2_000_000]);
        assert_eq!(get(&mut cache, piece, h), Some(vec![1, 2, 3, 2_000_000]));
        assert_eq!(get(&mut cache, b"another long piece of text!", h), None);
        assert_eq!(get(&mut cache, b"a rather long piece of tex", h), None);
        assert_eq!(get(&mut cache, b"rather long piece of text", h), None);
        // A stored piece whose ranks' bytes end like another piece does not answer for it.
        let tail = &piece[4..];
        assert_eq!(get(&mut cache, tail, h), None, "a suffix");
    }

    #[test]
    fn a_set_keeps_its_four_most_recently_used_pieces() {
        // Six pieces forced into one set (same hash): the least recently used ones go.
        let mut cache = LongPieceCache::default();
        let pieces: Vec<Vec<u8>> = (0..6u8).map(|i| vec![b'a' + i; 20]).collect();
        let h = 12345;
        for (i, p) in pieces.iter().take(4).enumerate() {
            cache.put(p, h, &[i as Rank]);
        }
        // Use 0 and 1, so 2 and 3 are the least recently used.
        assert_eq!(get(&mut cache, &pieces[0], h), Some(vec![0]));
        assert_eq!(get(&mut cache, &pieces[1], h), Some(vec![1]));
        cache.put(&pieces[4], h, &[4]);
        assert_eq!(get(&mut cache, &pieces[2], h), None, "2 went first");
        cache.put(&pieces[5], h, &[5]);
        assert_eq!(get(&mut cache, &pieces[3], h), None, "then 3");
        for i in [0, 1, 4, 5] {
            assert_eq!(get(&mut cache, &pieces[i], h), Some(vec![i as Rank]), "{i}");
        }
    }

    #[test]
    fn an_entry_written_over_is_a_miss() {
        let mut cache = LongPieceCache::default();
        let first = vec![b'q'; 40];
        let h = 1 << 40;
        cache.put(&first, h, &[9; 10]);
        // Entries of 1,280 bytes in other sets, until the arena has wrapped past `first`.
        let filler = vec![b'z'; LONG_MAX];
        let mut kept = 0;
        for i in 0..(ARENA / 1280 + 2) as u64 {
            let other = (i + 2) << 49;
            cache.put(&filler, other, &[1; LONG_MAX]);
            if get(&mut cache, &first, h).is_some() {
                kept += 1;
            }
        }
        assert_eq!(get(&mut cache, &first, h), None, "written over");
        assert!(kept > 6000, "kept while the arena had room: {kept}");
        let last = ((ARENA / 1280 + 1) as u64 + 2) << 49;
        assert_eq!(get(&mut cache, &filler, last), Some(vec![1; LONG_MAX]));
    }

    /// Pieces of every length with one to seven ranks, written as the arena fills up and
    /// wraps around: each comes back with its ranks, and a piece that differs from it in
    /// one byte (its first, middle or last) does not.
    #[test]
    fn every_length_round_trips_across_the_arena_end() {
        let mut cache = LongPieceCache::default();
        let filler = vec![b'z'; LONG_MAX];
        for i in 0..(ARENA / 1280 - 10) as u64 {
            cache.put(&filler, (i + 2) << 49, &[1; LONG_MAX]);
        }
        let pieces: Vec<(Vec<u8>, Vec<Rank>)> = (1..=LONG_MAX)
            .map(|len| {
                let piece = (0..len).map(|i| (i * 13 + len * 7) as u8).collect();
                let ranks = (0..len % 7 + 1).map(|r| (len * 1000 + r) as Rank).collect();
                (piece, ranks)
            })
            .collect();
        let mut starts = vec![];
        for (piece, ranks) in &pieces {
            starts.push(cache.head % ARENA as u64);
            let h = LongPieceCache::hash(piece);
            cache.put(piece, h, ranks);
            assert_eq!(get(&mut cache, piece, h).as_ref(), Some(ranks));
        }
        assert!(cache.head > ARENA as u64, "the arena wrapped around");
        assert!(starts.iter().all(|s| s % 4 == 0), "entries start at words");
        assert!(
            starts.windows(2).any(|w| w[1] < w[0]),
            "one entry at the start"
        );
        for (piece, ranks) in &pieces {
            let h = LongPieceCache::hash(piece);
            assert_eq!(get(&mut cache, piece, h).as_ref(), Some(ranks));
            for at in [0, piece.len() / 2, piece.len() - 1] {
                let mut other = piece.clone();
                other[at] ^= 1;
                assert_eq!(get(&mut cache, &other, h), None, "{} {at}", piece.len());
            }
        }
    }

    #[test]
    fn every_length_and_rank_count_round_trips() {
        let mut cache = LongPieceCache::default();
        for len in [1, 16, 17, 100, LONG_MAX] {
            let piece: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let ranks: Vec<Rank> = (0..len as Rank).map(|i| 2_097_150 - i).collect();
            let h = LongPieceCache::hash(&piece);
            cache.put(&piece, h, &ranks);
            assert_eq!(get(&mut cache, &piece, h), Some(ranks), "{len}");
        }
        let too_long = vec![b'x'; LONG_MAX + 1];
        let h = LongPieceCache::hash(&too_long);
        cache.put(&too_long, h, &[1]);
        assert_eq!(get(&mut cache, &too_long, h), None);
    }
}
