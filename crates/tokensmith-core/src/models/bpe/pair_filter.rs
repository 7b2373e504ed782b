//! A small filter in front of the merge table that answers most "this pair never merges"
//! lookups without touching the table.
//!
//! Most lookups the merge loop sends past its per-thread pair cache are for pairs that are
//! not in the vocabulary (two-thirds on o200k multilingual text: every pair of neighbours left
//! at the end of a piece is looked up after each merge next to it). The merge table is
//! megabytes and those lookups land at random places in it, so each is a cache miss. This is a
//! blocked Bloom filter: one 64-bit word per lookup, three bits per pair, about 5 bits per pair
//! in all (256 KB for o200k's 446k pairs), small enough to stay in the core's L2 cache. A pair
//! whose bits are not all set is certainly absent; otherwise the table decides, so the filter
//! never changes an answer.

use super::huge::HugeSlice;

/// Pairs per filter word (rounded to a power of two): about 5 bits per pair.
const PAIRS_PER_WORD: usize = 16;

/// A set of 64-bit keys that may answer "maybe" for keys it does not hold.
#[derive(Clone, Debug)]
pub struct PairFilter {
    words: HugeSlice<u64>,
    shift: u32,
}

impl PairFilter {
    /// A filter holding `keys`.
    pub fn new(keys: impl ExactSizeIterator<Item = u64>) -> Self {
        let n_words = (keys.len() / PAIRS_PER_WORD).next_power_of_two().max(64);
        let mut filter = Self {
            words: HugeSlice::zeroed(n_words),
            shift: 64 - n_words.trailing_zeros(),
        };
        for k in keys {
            let (w, bits) = filter.position(k);
            filter.words[w] |= bits;
        }
        filter
    }

    /// The word of a key and its three bits, all from the high (well-mixed) bits of one
    /// multiplicative hash.
    #[inline(always)]
    fn position(&self, k: u64) -> (usize, u64) {
        let h = k.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        // At least 64 words, so 6 <= 64 - shift: both shifts are in range.
        let w = (h >> self.shift) as usize;
        let r = (h << (64 - self.shift)) >> 46;
        let bits = (1u64 << (r & 63)) | (1u64 << ((r >> 6) & 63)) | (1u64 << ((r >> 12) & 63));
        (w, bits)
    }

    /// False only if `k` is certainly not in the set.
    #[inline(always)]
    pub fn may_contain(&self, k: u64) -> bool {
        let (w, bits) = self.position(k);
        self.words[w] & bits == bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn holds_every_key(keys in prop::collection::vec(any::<u64>(), 0..3000)) {
            let filter = PairFilter::new(keys.iter().copied());
            for &k in &keys {
                prop_assert!(filter.may_contain(k));
            }
        }
    }

    #[test]
    fn rejects_most_absent_keys_at_the_real_load() {
        // 446k keys like o200k's pairs (two 21-bit ranks): at ~5 bits per key with three bits
        // per key in one word, a Bloom filter lets through roughly a tenth of absent keys.
        let key = |i: u32| (((i as u64) * 7 % 200_000) << 21) | ((i as u64) * 13 % 199_999);
        let filter = PairFilter::new((0..446_000u32).map(key));
        let absent = (1u64 << 42..(1u64 << 42) + 100_000).filter(|&k| filter.may_contain(k));
        let passed = absent.count();
        assert!(passed < 20_000, "{passed} of 100,000 absent keys passed");
    }
}
