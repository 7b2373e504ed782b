//! The merge table: `(left rank, right rank)` to the rank of their concatenation.
//!
//! Merging looks this table up a few times per byte, so it is laid out for that: pairs of two
//! single bytes (every first lookup of a piece) sit in a dense 256×256 array that stays in L2,
//! and the rest sit in an open-addressing table whose 8-byte slot packs both ranks and the
//! result (21 bits each), so a lookup costs one cache line and the table stays small enough
//! (8 MB for o200k's 446k pairs) for its hot part to live in cache. It sits on huge pages
//! (`huge.rs`), and a small filter (`pair_filter.rs`) answers most lookups of pairs that are
//! not in it before the table is touched.

use super::huge::HugeSlice;
use super::model::{Rank, NO_RANK};
use super::pair_filter::PairFilter;

const EMPTY: u64 = u64::MAX;
/// Ranks must fit in this many bits.
pub const RANK_BITS: u32 = 21;
const RANK_MASK: u64 = (1 << RANK_BITS) - 1;

/// Rank pairs to merged rank, read-only once built.
#[derive(Clone, Debug)]
pub struct PairTable {
    /// `bytes[a * 256 + b]` for the single-byte tokens `a`, `b` (by byte value).
    bytes: Box<[Rank]>,
    /// Rank of each single-byte token to its byte value + 1 (0: not a single byte).
    byte_of_rank: Vec<u16>,
    /// `left << 42 | right << 21 | merged`, or `EMPTY`.
    slots: HugeSlice<u64>,
    shift: u32,
    /// Answers most lookups of pairs that are not in `slots`.
    filter: PairFilter,
}

#[inline(always)]
fn key(a: Rank, b: Rank) -> u64 {
    ((a as u64) << RANK_BITS) | b as u64
}

impl PairTable {
    /// Builds from `(left, right, merged)` triples and the rank of each single byte.
    /// Every rank must be below `2^RANK_BITS` (checked by the caller).
    pub fn new(pairs: &[(Rank, Rank, Rank)], byte_rank: &[Rank; 256], rank_bound: usize) -> Self {
        let mut byte_of_rank = vec![0u16; rank_bound];
        for (b, &r) in byte_rank.iter().enumerate() {
            if r != NO_RANK {
                byte_of_rank[r as usize] = b as u16 + 1;
            }
        }
        let capacity = (pairs.len() * 2).next_power_of_two().max(16);
        let mut table = Self {
            bytes: vec![NO_RANK; 256 * 256].into_boxed_slice(),
            byte_of_rank,
            slots: HugeSlice::filled(EMPTY, capacity),
            shift: 64 - capacity.trailing_zeros(),
            filter: PairFilter::new(pairs.iter().map(|&(a, b, _)| key(a, b))),
        };
        let mask = capacity - 1;
        for &(a, b, merged) in pairs {
            if let (Some(x), Some(y)) = (table.byte_value(a), table.byte_value(b)) {
                table.bytes[x * 256 + y] = merged;
            }
            let mut i = table.index(key(a, b));
            while table.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            table.slots[i] = (key(a, b) << RANK_BITS) | merged as u64;
        }
        table
    }

    #[inline(always)]
    fn byte_value(&self, rank: Rank) -> Option<usize> {
        match self.byte_of_rank.get(rank as usize) {
            Some(&v) if v > 0 => Some(v as usize - 1),
            _ => None,
        }
    }

    #[inline(always)]
    fn index(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The merged rank of two single bytes (by byte value), or `NO_RANK`.
    #[inline(always)]
    pub fn of_bytes(&self, a: u8, b: u8) -> Rank {
        self.bytes[(a as usize) << 8 | b as usize]
    }

    /// Every pair as `(left, right, merged)`, in table order.
    pub fn merges(&self) -> impl Iterator<Item = (Rank, Rank, Rank)> + '_ {
        self.slots.iter().filter(|&&s| s != EMPTY).map(|&s| {
            let field = |shift: u32| ((s >> shift) & RANK_MASK) as Rank;
            (field(2 * RANK_BITS), field(RANK_BITS), field(0))
        })
    }

    /// The merged rank of two tokens, or `NO_RANK`.
    #[inline(always)]
    pub fn get(&self, a: Rank, b: Rank) -> Rank {
        let k = key(a, b);
        if !self.filter.may_contain(k) {
            return NO_RANK;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(k);
        loop {
            let slot = self.slots[i];
            if slot >> RANK_BITS == k {
                return (slot & RANK_MASK) as Rank;
            }
            if slot == EMPTY {
                return NO_RANK;
            }
            i = (i + 1) & mask;
        }
    }
}
