//! The table of symbol pairs that merge: `(left, right)` symbol ids to the piece they make
//! and its rank (the order of its score among the model's scores).
//!
//! A cold word looks up every adjacent pair once and two more pairs per merge, and half of
//! the lookups are of pairs that make no piece; on the 50 MB benchmark corpus most words are
//! cold, so these lookups were the encoder's largest cost (a general hash map of 16-byte
//! entries, 1 MiB for a 32k model, missed the L1 and L2 caches). When every symbol id and rank
//! fits in 16 bits (models of up to 65,535 symbols), an entry packs into 8 bytes and eight of
//! them share one 64-byte bucket: a lookup reads one cache line (two when its bucket
//! overflowed), and the lines of a word's first pairs can be prefetched together. Most pairs
//! that make no piece are told apart before that by the byte-level BPE's filter
//! ([`PairFilter`]: about 5 bits a pair, 32 KiB for a 32k model, which stays in the L2 cache
//! where the buckets do not). Larger models keep a general hash map.

use crate::text_index::HASH_MUL;
use rustc_hash::FxHashMap;

use crate::models::bpe::pair_filter::PairFilter;
use crate::models::bpe::prefetch;

/// The piece a pair merges into and the piece's rank (higher merges first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Merge {
    pub piece: u32,
    pub rank: u32,
}

/// Entries per bucket: one cache line of 8-byte entries.
const WAYS: usize = 8;
/// The key of an empty narrow entry (the pair `(0xFFFF, 0xFFFF)`, which no narrow table
/// holds: ids there are below `NARROW_LIMIT`).
const EMPTY: u32 = u32::MAX;
/// Symbol ids, pieces and ranks of a narrow table are below this.
const NARROW_LIMIT: u32 = 0xFFFF;

/// One cache line of narrow entries, the filled ones first: keys `left << 16 | right` apart
/// from values `piece << 16 | rank`, so that one vector compare tests all eight keys.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Bucket {
    keys: [u32; WAYS],
    values: [u32; WAYS],
}

#[derive(Clone, Debug)]
enum Kind {
    Narrow {
        buckets: Box<[Bucket]>,
        mask: usize,
        /// Holds every key in the table.
        filter: PairFilter,
    },
    Wide(FxHashMap<u64, Merge>),
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct PairTable {
    kind: Kind,
}

/// The bucket of a narrow key, before masking.
#[inline(always)]
fn spread(key: u32) -> usize {
    (u64::from(key).wrapping_mul(HASH_MUL) >> 32) as usize
}

/// A mask of the ways of `keys` equal to `key`, bit `way` set for each (two SSE2 compares).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ways_holding(keys: &[u32; WAYS], key: u32) -> u32 {
    use std::arch::x86_64::{
        _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32,
    };
    // SAFETY: SSE2 is part of x86_64; both loads read 16 bytes inside `keys` (32 bytes).
    unsafe {
        let wanted = _mm_set1_epi32(key as i32);
        let low = _mm_loadu_si128(keys.as_ptr().cast());
        let high = _mm_loadu_si128(keys.as_ptr().add(4).cast());
        let low = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(low, wanted))) as u32;
        let high = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(high, wanted))) as u32;
        low | high << 4
    }
}

/// A mask of the ways of `keys` equal to `key`, bit `way` set for each.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn ways_holding(keys: &[u32; WAYS], key: u32) -> u32 {
    let mut found = 0;
    for (way, &k) in keys.iter().enumerate() {
        found |= u32::from(k == key) << way;
    }
    found
}

impl PairTable {
    /// The table of `entries` (`(left, right, merge)`, each pair once); narrow when every id
    /// and rank allows it and `allow_narrow` (false only in tests of the wide form).
    pub fn new(entries: &[(u32, u32, Merge)], allow_narrow: bool) -> Self {
        let fits = |&(l, r, m): &(u32, u32, Merge)| {
            l < NARROW_LIMIT && r < NARROW_LIMIT && m.piece < NARROW_LIMIT && m.rank < NARROW_LIMIT
        };
        if !allow_narrow || !entries.iter().all(fits) {
            let map = entries
                .iter()
                .map(|&(l, r, m)| (u64::from(l) << 32 | u64::from(r), m))
                .collect();
            return Self {
                kind: Kind::Wide(map),
            };
        }
        // About four entries a bucket: one in a few hundred buckets overflows.
        let count = entries.len().div_ceil(4).next_power_of_two();
        let empty = Bucket {
            keys: [EMPTY; WAYS],
            values: [0; WAYS],
        };
        let mut buckets = vec![empty; count].into_boxed_slice();
        let mask = count - 1;
        let filter = PairFilter::new(entries.iter().map(|&(l, r, _)| u64::from(l << 16 | r)));
        for &(l, r, m) in entries {
            let key = l << 16 | r;
            let mut at = spread(key) & mask;
            loop {
                let bucket = &mut buckets[at];
                if let Some(way) = bucket.keys.iter().position(|&k| k == EMPTY) {
                    bucket.keys[way] = key;
                    bucket.values[way] = m.piece << 16 | m.rank;
                    break;
                }
                at = (at + 1) & mask;
            }
        }
        Self {
            kind: Kind::Narrow {
                buckets,
                mask,
                filter,
            },
        }
    }

    /// Whether entries are packed into buckets (for tests).
    #[cfg(test)]
    pub fn is_narrow(&self) -> bool {
        matches!(self.kind, Kind::Narrow { .. })
    }

    /// The merge of symbols `left` and `right`, if they make a piece (any id, even one no
    /// symbol has, may be asked).
    #[inline(always)]
    pub fn get(&self, left: u32, right: u32) -> Option<Merge> {
        match &self.kind {
            Kind::Narrow {
                buckets,
                mask,
                filter,
            } => {
                if left >= NARROW_LIMIT || right >= NARROW_LIMIT {
                    return None;
                }
                let key = left << 16 | right;
                if !filter.may_contain(u64::from(key)) {
                    return None;
                }
                let mut at = spread(key) & mask;
                loop {
                    let bucket = &buckets[at];
                    let found = ways_holding(&bucket.keys, key);
                    if found != 0 {
                        let value = bucket.values[found.trailing_zeros() as usize % WAYS];
                        return Some(Merge {
                            piece: value >> 16,
                            rank: value & 0xFFFF,
                        });
                    }
                    // A bucket with room never overflowed: the pair is not in the table.
                    if bucket.keys[WAYS - 1] == EMPTY {
                        return None;
                    }
                    at = (at + 1) & mask;
                }
            }
            Kind::Wide(map) => map
                .get(&(u64::from(left) << 32 | u64::from(right)))
                .copied(),
        }
    }

    /// Starts loading the bucket a lookup of `(left, right)` reads first.
    #[inline(always)]
    pub fn prefetch(&self, left: u32, right: u32) {
        if let Kind::Narrow { buckets, mask, .. } = &self.kind {
            let key = left << 16 | (right & 0xFFFF);
            prefetch(&buckets[spread(key) & mask]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Narrow and wide tables answer every query as a plain map of the entries does,
        /// found or not, with ids near and past the narrow limit; small id ranges crowd
        /// buckets so that some overflow.
        #[test]
        fn answers_as_a_map(
            entries in prop::collection::vec((0u32..300, 0u32..300, 0u32..0xFFFF, 0u32..0xFFFF), 0..2000),
            queries in prop::collection::vec(
                (prop::sample::select(vec![0u32, 1, 7, 150, 299, 300, 0xFFFE, 0xFFFF, 0x10000, u32::MAX]),
                 0u32..301), 0..200),
        ) {
            let plain: HashMap<(u32, u32), Merge> = entries
                .into_iter()
                .map(|(l, r, piece, rank)| ((l, r), Merge { piece, rank }))
                .collect();
            let unique: Vec<_> = plain.iter().map(|(&(l, r), &m)| (l, r, m)).collect();
            let narrow = PairTable::new(&unique, true);
            let wide = PairTable::new(&unique, false);
            prop_assert!(narrow.is_narrow());
            prop_assert!(!wide.is_narrow());
            let all = unique.iter().map(|&(l, r, _)| (l, r));
            for (l, r) in all.chain(queries) {
                let want = plain.get(&(l, r)).copied();
                prop_assert_eq!(narrow.get(l, r), want);
                prop_assert_eq!(wide.get(l, r), want);
                prop_assert_eq!(narrow.get(r, l), plain.get(&(r, l)).copied());
            }
        }
    }

    #[test]
    fn large_ids_make_a_wide_table() {
        let m = Merge { piece: 3, rank: 1 };
        let t = PairTable::new(&[(1, NARROW_LIMIT, m)], true);
        assert!(!t.is_narrow());
        assert_eq!(t.get(1, NARROW_LIMIT), Some(m));
        assert_eq!(t.get(1, 0), None);
        let t = PairTable::new(
            &[(
                1,
                2,
                Merge {
                    piece: 3,
                    rank: 0x1_0000,
                },
            )],
            true,
        );
        assert!(!t.is_narrow());
        assert_eq!(PairTable::new(&[], true).get(0, 0), None);
    }
}
