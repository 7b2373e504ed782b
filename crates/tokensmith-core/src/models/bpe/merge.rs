//! The merge loop: from a piece's bytes to its ranks.
//!
//! Pieces of one to three bytes are merged directly. Other short pieces (almost all of the
//! rest) use an array scan: find the lowest pair rank, merge, update the two neighbouring
//! pair ranks. That is quadratic in the piece's length, and the
//! fastest choice for words. Long pieces (a megabyte of one letter, a line of CJK with no
//! spaces) use a linked list of parts and a queue of pending pairs grouped by rank: a small
//! min-heap holds the distinct ranks, and each rank keeps the positions of its pairs, sorted
//! when that rank's turn comes. A merge never creates a pair of its own rank (the new pair
//! contains the merged token, so it is a longer token), so a rank's positions can be taken
//! left to right; a merge that creates a *lower* rank pauses the current rank until that one
//! is done. Both paths merge the lowest-ranked pair first and the leftmost one on ties, so
//! they give the same result; a property test checks both against a textbook merge loop.
//! Long pieces that are a few runs of one repeated byte are first offered to `runs.rs`,
//! which merges a whole run at a time; other long pieces, once a megabyte of them has been
//! merged, are cut where no merge can cross (`cuts.rs`), and their short segments merged one
//! by one.

use super::huge::{advise_huge_capacity, HugeSlice};
use super::lowest::{lowest, SLOTS};
use super::model::{Bpe, Rank, NO_RANK};
use super::pair_table::RANK_BITS;
use super::prefetch::prefetch;
use crate::error::Result;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pieces up to this many bytes use the array scan. On never-seen multilingual text (o200k),
/// a piece of 25 to 48 bytes cost the rank queue about 6,600 instructions and costs the scan
/// about 4,600; at 64 the scan's quadratic cost catches up.
const SMALL: usize = 48;

/// Buffers reused across pieces, so long pieces allocate (almost) nothing.
#[derive(Default, Debug)]
pub struct MergeScratch {
    parts: Vec<Part>,
    queue: RankQueue,
    pairs: PairCache,
}

impl MergeScratch {
    /// Scratch for a vocabulary of ranks below `rank_bound` whose tables are allocated (and
    /// the pair cache backed by memory) already, so that the first pieces merged pay no
    /// allocation and no page faults; the default scratch allocates on first use.
    pub fn ready(rank_bound: usize) -> Self {
        Self {
            parts: Vec::new(),
            queue: RankQueue {
                list_of: vec![0; rank_bound],
                ..RankQueue::default()
            },
            pairs: PairCache {
                slots: HugeSlice::zeroed_backed(1 << PAIR_CACHE_BITS, usize::MAX),
            },
        }
    }
}

/// A small direct-mapped cache of recent pair lookups: the pairs of one script repeat, and
/// the full pair table is too big to stay in L1/L2.
#[derive(Debug)]
struct PairCache {
    /// The complement of `left << 42 | right << 21 | merged` (ranks have at most 21 bits,
    /// `NO_RANK` is stored as all ones), so that a zero slot, which complements to a key no
    /// pair has, is empty and the table comes zeroed from the allocator instead of being
    /// filled; allocated on first use, or up front by [`MergeScratch::ready`].
    slots: HugeSlice<u64>,
}

/// 32,768 slots of 8 bytes: 256 KB, which stays in L2 next to the piece cache's hot part.
const PAIR_CACHE_BITS: u32 = 15;
const FIELD: u64 = (1 << RANK_BITS) - 1;

impl Default for PairCache {
    fn default() -> Self {
        Self {
            slots: HugeSlice::zeroed(0),
        }
    }
}

impl PairCache {
    #[inline(always)]
    fn get(&mut self, bpe: &Bpe, a: Rank, b: Rank) -> Rank {
        if self.slots.is_empty() {
            self.slots = HugeSlice::zeroed(1 << PAIR_CACHE_BITS);
        }
        let key = ((a as u64) << RANK_BITS) | b as u64;
        let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PAIR_CACHE_BITS)) as usize;
        let slot = &mut self.slots[i];
        let entry = !*slot;
        if entry >> RANK_BITS != key {
            let merged = bpe.pair_rank(a, b);
            *slot = !((key << RANK_BITS) | (merged as u64 & FIELD));
            return merged;
        }
        match entry & FIELD {
            FIELD => NO_RANK,
            merged => merged as Rank,
        }
    }
}

pub(super) fn merge(
    bpe: &Bpe,
    piece: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut MergeScratch,
) -> Result<()> {
    if piece.len() <= SMALL {
        return merge_short(bpe, piece, out, &mut scratch.pairs);
    }
    if super::runs::merge_runs(bpe, piece, out)? {
        return Ok(());
    }
    match bpe.cuts_for_piece(piece.len()) {
        Some(cuts) => cuts.segments(bpe, piece, |segment| {
            merge_segment(bpe, segment, out, scratch)
        }),
        None => merge_long(bpe, piece, out, scratch),
    }
}

/// One segment of a long piece between safe cuts (`cuts.rs`): most are a character or two;
/// a long one is a stretch the cuts left whole, which may still be runs of one byte.
fn merge_segment(
    bpe: &Bpe,
    segment: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut MergeScratch,
) -> Result<()> {
    if segment.len() <= SMALL {
        merge_short(bpe, segment, out, &mut scratch.pairs)
    } else if super::runs::merge_runs(bpe, segment, out)? {
        Ok(())
    } else {
        merge_long(bpe, segment, out, scratch)
    }
}

/// A piece of at most [`SMALL`] bytes: one to three bytes (a CJK character, often) merged
/// directly, longer ones by the array scan.
#[inline(always)]
fn merge_short(bpe: &Bpe, piece: &[u8], out: &mut Vec<Rank>, pairs: &mut PairCache) -> Result<()> {
    match *piece {
        [a] => out.push(bpe.byte_rank(a)?),
        [a, b] => match bpe.byte_pair_rank(a, b) {
            NO_RANK => out.extend([bpe.byte_rank(a)?, bpe.byte_rank(b)?]),
            ab => out.push(ab),
        },
        [a, b, c] => merge_three(bpe, [a, b, c], out, pairs)?,
        _ => merge_small(bpe, piece, out, pairs)?,
    }
    Ok(())
}

/// Three bytes (a CJK character, often), merged as `merge_small` would: the lower of the two
/// byte pairs first (the left one on a tie), then the pair it makes with the third byte.
#[inline(always)]
fn merge_three(
    bpe: &Bpe,
    [a, b, c]: [u8; 3],
    out: &mut Vec<Rank>,
    pairs: &mut PairCache,
) -> Result<()> {
    let (x, y, z) = (bpe.byte_rank(a)?, bpe.byte_rank(b)?, bpe.byte_rank(c)?);
    let (ab, bc) = (bpe.byte_pair_rank(a, b), bpe.byte_pair_rank(b, c));
    if ab == NO_RANK && bc == NO_RANK {
        out.extend([x, y, z]);
        return Ok(());
    }
    let (left, right) = if ab <= bc { (ab, z) } else { (x, bc) };
    match pairs.get(bpe, left, right) {
        NO_RANK => out.extend([left, right]),
        whole => out.push(whole),
    }
    Ok(())
}

/// A pair rank as `merge_small` scans it, with `NONE` (above every rank) for no pair.
type PairKey = i32;
/// No pair: a dead part, the last part, or two parts that do not merge.
const NONE: PairKey = super::lowest::NONE;
// The scan's arrays are as long as `lowest` takes them.
const _: () = assert!(SMALL == SLOTS);

/// `rank` (below `2^RANK_BITS`) as a [`PairKey`], and `NO_RANK` as [`NONE`].
#[inline(always)]
fn pair_key(rank: Rank) -> PairKey {
    (rank & NONE as Rank) as PairKey
}

/// The array scan. Parts stay where their first byte was: `pair[i]` is the rank of joining
/// the part that starts at `i` with the next one, and a part merged into its left neighbour
/// is unlinked and gets [`NONE`], so a merge moves nothing. Each step scans the entries
/// before the last byte for the lowest rank, keeping the first position where it occurs:
/// the leftmost live pair of that rank. In a piece of more than [`SCAN_ONE_BY_ONE`] pairs,
/// the scan (`lowest.rs`) also marks every pair of that rank, and those are merged in
/// turn, left to right, unless a merge made a pair of a lower rank
/// ([`ShortParts::merge_by_rank`]). On random bytes (1.9 MB decoded as UTF-8, never seen
/// before) that took 9% fewer instructions in all and 10-13% less CPU time.
fn merge_small(bpe: &Bpe, piece: &[u8], out: &mut Vec<Rank>, pairs: &mut PairCache) -> Result<()> {
    let n = piece.len();
    debug_assert!(n <= SMALL);
    let mut parts = ShortParts {
        toks: [0; SMALL],
        pair: [NONE; SMALL],
        next: [0; SMALL],
        prev: [0; SMALL],
        n,
    };
    for (i, &b) in piece.iter().enumerate() {
        parts.toks[i] = bpe.byte_rank(b)?;
        parts.next[i] = i as u8 + 1;
        parts.prev[i] = (i as u8).wrapping_sub(1);
    }
    for i in 0..n.saturating_sub(1) {
        parts.pair[i] = pair_key(bpe.byte_pair_rank(piece[i], piece[i + 1]));
    }
    let last = n.saturating_sub(1);
    if last <= SCAN_ONE_BY_ONE {
        loop {
            let (best, at) = leftmost_lowest(&parts.pair[..last]);
            if best == NONE {
                break;
            }
            parts.merge(at, bpe, pairs, best);
        }
    } else {
        parts.merge_by_rank(last, bpe, pairs);
    }
    let mut i = 0;
    while i < n {
        out.push(parts.toks[i]);
        i = parts.next[i] as usize;
    }
    Ok(())
}

/// Pieces of at most this many pairs find their lowest pair one rank after another (and
/// merge one pair per scan): for so few, that is quicker than [`lowest`]'s two vector
/// passes, whose steps wait on one another. With [`lowest`] for every piece, new English
/// and European text took 2-4% more CPU time; with this, the same as one pair at a time.
const SCAN_ONE_BY_ONE: usize = 16;

/// The lowest rank of `pair` and its leftmost position (`NONE` and 0 when there is no pair).
#[inline(always)]
fn leftmost_lowest(pair: &[PairKey]) -> (PairKey, usize) {
    let (mut best, mut at) = (NONE, 0);
    for (i, &r) in pair.iter().enumerate() {
        if r < best {
            best = r;
            at = i;
        }
    }
    (best, at)
}

/// The position of the lowest set bit of `mask` (not 0, bits below [`SMALL`] only), capped
/// so that the compiler knows it indexes the scan's arrays.
#[inline(always)]
fn below_small(mask: u64) -> usize {
    (mask.trailing_zeros() as usize).min(SMALL - 1)
}

/// The parts of a short piece as [`merge_small`] keeps them: `toks[i]` is the token of the
/// part that starts at byte `i`, `pair[i]` the rank of joining it with the next part, and
/// `next` and `prev` where the next and the previous live part start (`next` is `n` after
/// the last part; the part at 0 is never merged into another, so every other live part has
/// a previous).
struct ShortParts {
    toks: [Rank; SMALL],
    pair: [PairKey; SMALL],
    next: [u8; SMALL],
    prev: [u8; SMALL],
    n: usize,
}

impl ShortParts {
    /// Merges the pairs (the first `last` entries of `pair`) until none is left, every
    /// pair of the lowest rank in turn: [`lowest`] marks them all, and they are merged left
    /// to right without scanning again (a piece of random bytes repeats U+FFFD, whose two
    /// merges are the same for each). A merge never makes a pair of its own rank (the new
    /// pair's token holds the merged one), so a position that still holds the rank is one
    /// of them, and the leftmost lowest, since every pair left of it ranks higher; unless
    /// a merge made a pair of a lower rank (which only a vocabulary not built by merging
    /// allows), which goes first.
    #[inline(always)]
    fn merge_by_rank(&mut self, last: usize, bpe: &Bpe, pairs: &mut PairCache) {
        loop {
            let (best, mut of_best) = lowest(&self.pair, last);
            if best == NONE {
                return;
            }
            while of_best != 0 {
                let at = below_small(of_best);
                of_best &= of_best - 1;
                if self.pair[at] == best {
                    self.merge(at, bpe, pairs, best);
                    if self.made_lower(at, best) {
                        break;
                    }
                }
            }
        }
    }

    /// Joins the part at `at` with the next one, whose pair has rank `best`.
    #[inline(always)]
    fn merge(&mut self, at: usize, bpe: &Bpe, pairs: &mut PairCache, best: PairKey) {
        let right = self.next[at] as usize;
        let after = self.next[right] as usize;
        self.toks[at] = best as Rank;
        self.pair[right] = NONE;
        self.next[at] = after as u8;
        self.pair[at] = if after < self.n {
            self.prev[after] = at as u8;
            pair_key(pairs.get(bpe, self.toks[at], self.toks[after]))
        } else {
            NONE
        };
        if at > 0 {
            let before = self.prev[at] as usize;
            self.pair[before] = pair_key(pairs.get(bpe, self.toks[before], self.toks[at]));
        }
    }

    /// Whether the merge at `at`, of a pair of rank `best`, made a pair of a lower rank (or
    /// of `best` itself, which cannot happen).
    #[inline(always)]
    fn made_lower(&self, at: usize, best: PairKey) -> bool {
        let before = self.prev[at] as usize;
        self.pair[at] <= best || (at > 0 && self.pair[before] <= best)
    }
}

const END: u32 = u32::MAX;
/// How many positions ahead `merge_long` prefetches a part.
const PREFETCH_AHEAD: usize = 16;
const DEAD: Rank = NO_RANK;

/// One part of a long piece, in a doubly linked list. The three fields sit together because
/// a merge reads all of them for neighbouring parts: one cache line instead of three.
#[derive(Clone, Copy, Debug)]
struct Part {
    tok: Rank,
    next: u32,
    prev: u32,
}

/// Pending pairs grouped by rank: a min-heap of the distinct ranks, and per rank the
/// positions of its pairs (unsorted until taken).
///
/// A rank finds its list through a dense array indexed by rank rather than a hash map: a
/// megabyte-long piece pushes millions of positions, and an array load is cheaper than a hash
/// and a probe. The array is zeroed memory, so only the pages of ranks in use are touched.
#[derive(Default, Debug)]
struct RankQueue {
    ranks: BinaryHeap<Reverse<Rank>>,
    /// `rank` to `1 +` the index of its list in `lists`, or 0 when it has none.
    list_of: Vec<u32>,
    lists: Vec<Vec<u32>>,
    /// Indices of `lists` not in use.
    free: Vec<u32>,
    /// Emptied position lists, kept for reuse.
    spare: Vec<Vec<u32>>,
}

impl RankQueue {
    /// Empties the queue, ready for ranks below `rank_bound`.
    fn clear(&mut self, rank_bound: usize) {
        // Every rank with a list is in the heap exactly once.
        for Reverse(rank) in self.ranks.drain() {
            let at = std::mem::take(&mut self.list_of[rank as usize]);
            if at != 0 {
                self.lists[at as usize - 1].clear();
                self.free.push(at - 1);
            }
        }
        if self.list_of.len() < rank_bound {
            // All zero now: zeroed memory, which the system backs only where it is used.
            self.list_of = vec![0; rank_bound];
        }
    }

    #[inline(always)]
    fn push(&mut self, rank: Rank, pos: u32) {
        let at = self.list_of[rank as usize];
        if at != 0 {
            self.lists[at as usize - 1].push(pos);
            return;
        }
        let list = self.spare.pop().unwrap_or_default();
        let index = match self.free.pop() {
            Some(i) => {
                self.lists[i as usize] = list;
                i
            }
            None => {
                self.lists.push(list);
                self.lists.len() as u32 - 1
            }
        };
        self.list_of[rank as usize] = index + 1;
        self.lists[index as usize].push(pos);
        self.ranks.push(Reverse(rank));
    }

    /// The lowest pending rank and its positions, sorted, or `None` when empty.
    fn pop(&mut self) -> Option<(Rank, Vec<u32>)> {
        while let Some(Reverse(rank)) = self.ranks.pop() {
            let at = std::mem::take(&mut self.list_of[rank as usize]);
            if at == 0 {
                continue;
            }
            self.free.push(at - 1);
            let mut positions = std::mem::take(&mut self.lists[at as usize - 1]);
            if !positions.is_empty() {
                positions.sort_unstable();
                return Some((rank, positions));
            }
            self.spare.push(positions);
        }
        None
    }

    fn lowest(&self) -> Option<Rank> {
        self.ranks.peek().map(|r| r.0)
    }

    /// Puts back the positions of `rank` not yet taken.
    fn put_back(&mut self, rank: Rank, rest: &[u32]) {
        for &pos in rest {
            self.push(rank, pos);
        }
    }

    fn recycle(&mut self, mut positions: Vec<u32>) {
        positions.clear();
        self.spare.push(positions);
    }
}

fn merge_long(
    bpe: &Bpe,
    piece: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut MergeScratch,
) -> Result<()> {
    let n = piece.len();
    let MergeScratch {
        parts,
        queue,
        pairs,
    } = scratch;
    parts.clear();
    if parts.capacity() < n {
        parts.reserve(n);
        advise_huge_capacity(parts);
    }
    for (i, &b) in piece.iter().enumerate() {
        parts.push(Part {
            tok: bpe.byte_rank(b)?,
            next: if i + 1 == n { END } else { i as u32 + 1 },
            prev: if i == 0 { END } else { i as u32 - 1 },
        });
    }
    queue.clear(bpe.rank_bound());
    for i in 0..n - 1 {
        let r = bpe.byte_pair_rank(piece[i], piece[i + 1]);
        if r != NO_RANK {
            queue.push(r, i as u32);
        }
    }
    while let Some((rank, positions)) = queue.pop() {
        let mut k = 0;
        while k < positions.len() {
            let i = positions[k] as usize;
            // A rank's pairs are spread over the whole piece: overlap the cache misses.
            if let Some(&ahead) = positions.get(k + PREFETCH_AHEAD) {
                prefetch(&parts[ahead as usize]);
            }
            k += 1;
            // Entries go stale when a neighbour merges; skip any that no longer describe a pair.
            let Part {
                tok: left,
                next: j,
                prev: before,
            } = parts[i];
            if left == DEAD || j == END || pairs.get(bpe, left, parts[j as usize].tok) != rank {
                continue;
            }
            let after = parts[j as usize].next;
            parts[j as usize].tok = DEAD;
            parts[i].tok = rank;
            parts[i].next = after;
            if after != END {
                let right = &mut parts[after as usize];
                right.prev = i as u32;
                let r = pairs.get(bpe, rank, right.tok);
                if r != NO_RANK {
                    queue.push(r, i as u32);
                }
            }
            if before != END {
                let r = pairs.get(bpe, parts[before as usize].tok, rank);
                if r != NO_RANK {
                    queue.push(r, before);
                }
            }
            if queue.lowest().is_some_and(|low| low < rank) {
                queue.put_back(rank, &positions[k..]);
                break;
            }
        }
        queue.recycle(positions);
    }
    let mut i = 0u32;
    while i != END {
        out.push(parts[i as usize].tok);
        i = parts[i as usize].next;
    }
    Ok(())
}

#[cfg(test)]
pub(super) fn merge_with(bpe: &Bpe, piece: &[u8], long: bool) -> Result<Vec<Rank>> {
    let mut out = Vec::new();
    if long && piece.len() > 1 {
        merge_long(bpe, piece, &mut out, &mut MergeScratch::default())?;
    } else {
        merge_small(bpe, piece, &mut out, &mut PairCache::default())?;
    }
    Ok(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::formats::tiktoken_file;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    pub(in crate::models::bpe) fn cl100k() -> &'static Bpe {
        static BPE: OnceLock<Bpe> = OnceLock::new();
        BPE.get_or_init(|| {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../python/tokensmith/vocab/cl100k_base.tiktoken.gz"
            );
            Bpe::new(tiktoken_file::read(path.as_ref()).unwrap()).unwrap()
        })
    }

    /// The textbook definition, written independently: scan for the lowest-ranked adjacent
    /// pair by looking up the concatenated bytes, merge it, repeat.
    pub(in crate::models::bpe) fn reference(bpe: &Bpe, piece: &[u8]) -> Vec<Rank> {
        let mut parts: Vec<Vec<u8>> = piece.iter().map(|&b| vec![b]).collect();
        loop {
            let best = (0..parts.len().saturating_sub(1))
                .filter_map(|i| {
                    bpe.rank_of(&[parts[i].as_slice(), parts[i + 1].as_slice()].concat())
                        .map(|r| (r, i))
                })
                .min();
            let Some((_, i)) = best else { break };
            let right = parts.remove(i + 1);
            parts[i].extend(right);
        }
        parts.iter().map(|p| bpe.rank_of(p).unwrap()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn array_and_long_agree_with_reference(piece in prop::collection::vec(prop::sample::select(b"aab eeinst\xe4\xb8\xad\xff\x00".to_vec()), 1..=64)) {
            let bpe = cl100k();
            let expected = reference(bpe, &piece);
            if piece.len() <= SMALL {
                prop_assert_eq!(merge_with(bpe, &piece, false).unwrap(), expected.clone());
            }
            prop_assert_eq!(merge_with(bpe, &piece, true).unwrap(), expected);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Short pieces of every length, the ones merged without the array scan most.
        #[test]
        fn short_pieces_agree_with_reference(piece in prop::collection::vec(prop::sample::select(b"ab e\xe4\xb8\xad\xe6\x96\x87\xef\xbf\xbd\x00".to_vec()), 1..=6)) {
            let bpe = cl100k();
            let mut out = Vec::new();
            merge_short(bpe, &piece, &mut out, &mut MergeScratch::default().pairs).unwrap();
            prop_assert_eq!(out, reference(bpe, &piece));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Long pieces, cut where `cuts.rs` finds it safe: CJK characters, U+FFFD, Latin.
        #[test]
        fn cut_long_pieces_agree_with_reference(chars in prop::collection::vec(prop::sample::select(vec!["中", "文", "字", "\u{9fa5}", "\u{4e01}", "\u{fffd}", "a", " ", "é", "\u{8f7d}"]), 17..80)) {
            let piece = chars.concat().into_bytes();
            let bpe = cl100k();
            bpe.cut_table();
            let mut out = Vec::new();
            merge(bpe, &piece, &mut out, &mut MergeScratch::default()).unwrap();
            prop_assert_eq!(out, reference(bpe, &piece));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Pieces like those of random bytes: U+FFFD repeated between ASCII punctuation and
        /// controls, whose pairs of one rank the array scan merges in one go.
        #[test]
        fn repeated_ranks_agree_with_reference(chars in prop::collection::vec(prop::sample::select(vec!["\u{fffd}", "\u{fffd}\u{fffd}", "!", "#", "\x05", "\x7f", " ", "é", "a"]), 1..=24)) {
            let piece = chars.concat().into_bytes();
            let bpe = cl100k();
            let expected = reference(bpe, &piece);
            if piece.len() <= SMALL {
                prop_assert_eq!(merge_with(bpe, &piece, false).unwrap(), expected.clone());
            }
            prop_assert_eq!(merge_with(bpe, &piece, true).unwrap(), expected);
        }

        /// A vocabulary whose ranks follow no merge order, so that a merge may make a pair
        /// of a lower rank than its own, which must then go before the other pairs of its
        /// rank: tokens over "abc" with their ranks in a scrambled order.
        #[test]
        fn unordered_ranks_agree_with_reference(
            tokens in prop::collection::btree_set(prop::collection::vec(prop::sample::select(b"abc".to_vec()), 2..=4), 1..60),
            scramble in 0usize..1000,
            piece in prop::collection::vec(prop::sample::select(b"abc".to_vec()), 1..=SMALL),
        ) {
            let bpe = unordered_vocabulary(tokens.into_iter().collect(), scramble);
            let expected = reference(&bpe, &piece);
            prop_assert_eq!(merge_with(&bpe, &piece, false).unwrap(), expected.clone());
            prop_assert_eq!(merge_with(&bpe, &piece, true).unwrap(), expected);
        }
    }

    /// The 256 single bytes (ranks 0 to 255), then `tokens` with the ranks from 256 on in an
    /// order set by `scramble` (7919 is a prime, so `i * 7919` hits every rank once).
    fn unordered_vocabulary(tokens: Vec<Vec<u8>>, scramble: usize) -> Bpe {
        let n = tokens.len();
        let mut ranks: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, token) in tokens.into_iter().enumerate() {
            ranks.push((token, 256 + ((i * 7919 + scramble) % n) as Rank));
        }
        Bpe::new(ranks).unwrap()
    }

    /// "ab" ranks above "aba": after the first "ab" of "abab" is merged, "ab" + "a" goes
    /// before the second "ab".
    #[test]
    fn a_merge_that_makes_a_lower_rank_goes_before_the_rest_of_its_rank() {
        let bpe = unordered_vocabulary(vec![b"ab".to_vec(), b"aba".to_vec()], 1);
        let (ab, aba) = (bpe.rank_of(b"ab").unwrap(), bpe.rank_of(b"aba").unwrap());
        assert!(aba < ab);
        // Long enough for the scan that marks every pair of the lowest rank, too.
        let long = b"ab".repeat(SMALL / 2);
        let pieces = [
            &b"abab"[..],
            b"ababab",
            b"cabab",
            &long,
            &long[1..],
            &long[3..],
        ];
        for piece in pieces {
            assert_eq!(
                merge_with(&bpe, piece, false).unwrap(),
                reference(&bpe, piece)
            );
        }
        assert_eq!(
            merge_with(&bpe, b"abab", false).unwrap(),
            [aba, b'b' as Rank]
        );
    }

    #[test]
    fn pair_cache_gives_the_table_answer_on_hits_and_misses() {
        let bpe = cl100k();
        let mut cache = PairCache::default();
        let pieces = ["hell", "o", " wor", "ld", "中", "ing", "\n\n", "zz", "é"];
        let ranks: Vec<Rank> = pieces
            .iter()
            .map(|p| bpe.rank_of(p.as_bytes()).unwrap())
            .collect();
        for _ in 0..2 {
            for &a in &ranks {
                for &b in &ranks {
                    assert_eq!(cache.get(bpe, a, b), bpe.pair_rank(a, b), "pair ({a}, {b})");
                }
            }
        }
        // Merges that exist, checked against the vocabulary's own bytes-to-rank map.
        let rank = |s: &str| bpe.rank_of(s.as_bytes()).unwrap();
        assert_eq!(cache.get(bpe, rank("hell"), rank("o")), rank("hello"));
        assert_eq!(cache.get(bpe, rank(" wor"), rank("ld")), rank(" world"));
        assert_eq!(cache.get(bpe, rank("zz"), rank("é")), NO_RANK);
    }

    #[test]
    fn ready_scratch_merges_as_the_default_one() {
        let bpe = cl100k();
        let mut ready = MergeScratch::ready(bpe.rank_bound());
        // Short (array scan) and long (rank queue), each twice: the queue is reused.
        let long: Vec<u8> = (0..SMALL + 20).map(|i| b"abcde"[i % 5]).collect();
        let cjk = "中文字".repeat(30);
        for piece in [
            &b" tokenizers"[..],
            &long,
            cjk.as_bytes(),
            &long,
            &b" tokenizers"[..],
            cjk.as_bytes(),
        ] {
            let mut out = Vec::new();
            merge(bpe, piece, &mut out, &mut ready).unwrap();
            assert_eq!(out, reference(bpe, piece), "{piece:?}");
        }
    }

    #[test]
    fn long_path_handles_long_pieces() {
        let bpe = cl100k();
        for piece in [
            vec![b'a'; 3000],
            "中文字".repeat(400).into_bytes(),
            (0..=255u8).cycle().take(2000).collect(),
        ] {
            let mut out = Vec::new();
            merge(bpe, &piece, &mut out, &mut MergeScratch::default()).unwrap();
            assert_eq!(out, reference(bpe, &piece));
        }
    }
}
