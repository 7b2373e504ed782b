//! The pairs of the words before any merge, counted on the pool, in the order sentencepiece
//! makes them.
//!
//! sentencepiece makes a pair symbol when it first meets the pair, word by word, so the pair
//! ids follow the first occurrences (and break ties between pairs of one text). Here:
//! 1. blocks of words count their pairs on the pool, each block in the order its pairs first
//!    occur, into lists by a hash of the pair (the shards of `trainers::shards`);
//! 2. each shard sums its pairs over the blocks, in block order, on the pool (a few blocks
//!    at a time, to bound the memory of their lists), so a pair's word list is ascending and
//!    made by moving the blocks' lists, not by looking each pair up on one thread;
//! 3. the pairs are sorted by where they first occur (block, then place in the block).
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::first_pairs;
//! // Words 0 and 1 ("a b a b" twice, "b a" once): b+a first occurs after a+b.
//! let pairs = first_pairs(&[vec![1, 2, 1, 2], vec![2, 1]], &[2, 1]);
//! let found: Vec<_> = pairs.iter().map(|p| (p.parts, p.weight, p.words.clone())).collect();
//! assert_eq!(found, [((1, 2), 4, vec![0]), ((2, 1), 3, vec![0, 1])]);
//! ```

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::trainers::shards::{shard_of, SHARDS};

/// Words per block.
const WORDS_PER_BLOCK: usize = 8192;
/// Blocks counted before the shards take their lists (bounds the memory of the lists).
const BLOCKS_AT_ONCE: usize = 8;

/// One distinct pair of the words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstPair {
    /// Its two symbols.
    pub parts: (u32, u32),
    /// Where it first occurs: its block in the high 32 bits, its rank in the block below.
    pub first: u64,
    /// Its adjacent occurrences (overlapping ones included), each times its word's count.
    pub weight: u64,
    /// The words it occurs in, ascending.
    pub words: Vec<u32>,
}

/// Every distinct adjacent pair of `words` (whose counts are `counts`), in the order of
/// their first occurrence. See the module documentation.
pub fn first_pairs(words: &[Vec<u32>], counts: &[u64]) -> Vec<FirstPair> {
    let mut shards: Vec<Shard> = (0..SHARDS).map(|_| Shard::default()).collect();
    let step = WORDS_PER_BLOCK * BLOCKS_AT_ONCE;
    for (g, group) in words.chunks(step).enumerate() {
        let blocks: Vec<Vec<Vec<FirstPair>>> = group
            .par_chunks(WORDS_PER_BLOCK)
            .enumerate()
            .map(|(k, block)| block_pairs(block, g * BLOCKS_AT_ONCE + k, counts))
            .collect();
        let mut lists: Vec<Vec<Vec<FirstPair>>> = (0..SHARDS)
            .map(|_| Vec::with_capacity(blocks.len()))
            .collect();
        for block in blocks {
            for (s, list) in block.into_iter().enumerate() {
                lists[s].push(list);
            }
        }
        shards
            .par_iter_mut()
            .zip(lists)
            .for_each(|(shard, lists)| shard.add(lists));
    }
    let mut pairs: Vec<FirstPair> = shards.into_par_iter().flat_map_iter(|s| s.summed).collect();
    pairs.par_sort_unstable_by_key(|p| p.first);
    pairs
}

/// The pairs of block `b` (whose words start at `b * WORDS_PER_BLOCK`), by shard.
fn block_pairs(block: &[Vec<u32>], b: usize, counts: &[u64]) -> Vec<Vec<FirstPair>> {
    let start = b * WORDS_PER_BLOCK;
    let mut at: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut found: Vec<FirstPair> = Vec::new();
    for (i, word) in block.iter().enumerate() {
        let wid = (start + i) as u32;
        let weight = counts[wid as usize];
        for pair in word.windows(2) {
            let parts = (pair[0], pair[1]);
            let k = *at.entry(parts).or_insert_with(|| {
                found.push(FirstPair {
                    parts,
                    first: ((b as u64) << 32) | found.len() as u64,
                    weight: 0,
                    words: Vec::new(),
                });
                found.len() - 1
            });
            let p = &mut found[k];
            p.weight += weight;
            if p.words.last() != Some(&wid) {
                p.words.push(wid);
            }
        }
    }
    let mut lists: Vec<Vec<FirstPair>> = (0..SHARDS).map(|_| Vec::new()).collect();
    for p in found {
        lists[shard_of(&p.parts)].push(p);
    }
    lists
}

/// One shard's pairs, summed over the blocks so far.
#[derive(Default)]
struct Shard {
    at: FxHashMap<(u32, u32), usize>,
    summed: Vec<FirstPair>,
}

impl Shard {
    /// Adds the shard's lists of the next blocks, in block order.
    fn add(&mut self, lists: Vec<Vec<FirstPair>>) {
        for p in lists.into_iter().flatten() {
            match self.at.get(&p.parts) {
                Some(&k) => {
                    let q = &mut self.summed[k];
                    q.weight += p.weight;
                    q.words.extend_from_slice(&p.words);
                }
                None => {
                    self.at.insert(p.parts, self.summed.len());
                    self.summed.push(p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One map over every word in turn: the order and sums the blocks and shards must give.
    fn one_pass(words: &[Vec<u32>], counts: &[u64]) -> Vec<((u32, u32), u64, Vec<u32>)> {
        let mut at: FxHashMap<(u32, u32), usize> = FxHashMap::default();
        let mut found: Vec<((u32, u32), u64, Vec<u32>)> = Vec::new();
        for (wid, word) in words.iter().enumerate() {
            for pair in word.windows(2) {
                let k = *at.entry((pair[0], pair[1])).or_insert_with(|| {
                    found.push(((pair[0], pair[1]), 0, Vec::new()));
                    found.len() - 1
                });
                found[k].1 += counts[wid];
                if found[k].2.last() != Some(&(wid as u32)) {
                    found[k].2.push(wid as u32);
                }
            }
        }
        found
    }

    #[test]
    fn blocks_and_shards_keep_the_order_of_one_pass() {
        // More words than one round of blocks, so pairs first met late and sums across
        // rounds are both checked.
        let n = WORDS_PER_BLOCK * BLOCKS_AT_ONCE * 2 + 123;
        let mut rng = crate::models::unigram::SplitMix64::new(7);
        let mut next = |m: u64| rng.next_u64() % m;
        let words: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                // Later words draw from a wider alphabet, so new pairs keep appearing.
                let alphabet = 20 + (i as u64 / 997);
                (0..1 + next(6)).map(|_| next(alphabet) as u32).collect()
            })
            .collect();
        let counts: Vec<u64> = (0..n).map(|_| 1 + next(5)).collect();
        let got: Vec<_> = first_pairs(&words, &counts)
            .into_iter()
            .map(|p| (p.parts, p.weight, p.words))
            .collect();
        assert_eq!(got, one_pass(&words, &counts));
    }
}
