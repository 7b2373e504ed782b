//! The pairs of the words before any merge, counted on the pool, in the order sentencepiece
//! makes them.
//!
//! sentencepiece makes a pair symbol when it first meets the pair, word by word, so the pair
//! ids follow the first occurrences (and break ties between pairs of one text). Here:
//! 1. blocks of words count their pairs on the pool, each block in the order its pairs first
//!    occur, into lists by a hash of the pair (the shards of `trainers::shards`);
//! 2. each shard sums its pairs over the blocks, in block order, on the pool (a few blocks
//!    at a time, to bound the memory of their lists), so a pair's word list is ascending and
//!    made by copying the blocks' lists, not by looking each pair up on one thread;
//! 3. the pairs are sorted by where they first occur (block, then place in the block).
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::{first_pairs, WordStore};
//! // Words 0 and 1 ("a b a b" twice, "b a" once, at places 0 and 7): b+a first occurs
//! // after a+b.
//! let pairs = first_pairs(&WordStore::from_words(&[vec![1, 2, 1, 2], vec![2, 1]], &[2, 1]));
//! let found: Vec<_> = pairs.iter().map(|p| (p.parts, p.weight, p.words.clone())).collect();
//! assert_eq!(found, [((1, 2), 4, vec![0]), ((2, 1), 3, vec![0, 7])]);
//! ```

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::word_store::WordStore;
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
    /// The words it occurs in, by their places in the store, ascending.
    pub words: Vec<u32>,
}

/// Every distinct adjacent pair of `words`, in the order of their first occurrence. See the
/// module documentation.
pub fn first_pairs(words: &WordStore) -> Vec<FirstPair> {
    let mut shards: Vec<Shard> = (0..SHARDS).map(|_| Shard::default()).collect();
    let blocks_in_all = words.len().div_ceil(WORDS_PER_BLOCK);
    for g in (0..blocks_in_all).step_by(BLOCKS_AT_ONCE) {
        let blocks: Vec<BlockPairs> = (g..blocks_in_all.min(g + BLOCKS_AT_ONCE))
            .into_par_iter()
            .map(|b| block_pairs(words, b))
            .collect();
        shards
            .par_iter_mut()
            .enumerate()
            .for_each(|(s, shard)| shard.add(&blocks, s));
    }
    let mut pairs: Vec<FirstPair> = shards.into_par_iter().flat_map_iter(|s| s.summed).collect();
    pairs.par_sort_unstable_by_key(|p| p.first);
    pairs
}

/// The pairs of one block, listed by shard, their words kept one pair after another in one
/// list (not a list per pair: a block has tens of thousands of pairs).
struct BlockPairs {
    by_shard: Vec<Vec<Counted>>,
    wids: Vec<u32>,
}

/// A pair of a block: as [`FirstPair`], its words being `wids[from..to]` of the block.
struct Counted {
    parts: (u32, u32),
    first: u64,
    weight: u64,
    from: u32,
    to: u32,
}

/// The pairs of block `b` (words `b * WORDS_PER_BLOCK` on).
fn block_pairs(words: &WordStore, b: usize) -> BlockPairs {
    let start = b * WORDS_PER_BLOCK;
    let mut at: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    // Each pair's parts, weight, last word and number of words.
    let mut found: Vec<((u32, u32), u64, u32, u32)> = Vec::new();
    // `(pair, word)` for each word a pair occurs in, in word order.
    let mut seen_in: Vec<(u32, u32)> = Vec::new();
    for w in start..words.len().min(start + WORDS_PER_BLOCK) {
        let place = words.place(w);
        let weight = words.count(w);
        for pair in words.word(w).windows(2) {
            let parts = (pair[0], pair[1]);
            let k = *at.entry(parts).or_insert_with(|| {
                found.push((parts, 0, u32::MAX, 0));
                found.len() as u32 - 1
            });
            let p = &mut found[k as usize];
            p.1 += weight;
            if p.2 != place {
                p.2 = place;
                p.3 += 1;
                seen_in.push((k, place));
            }
        }
    }
    // Each pair's words, one pair after another, in word order.
    let mut ends: Vec<u32> = found
        .iter()
        .scan(0u32, |end, p| {
            *end += p.3;
            Some(*end)
        })
        .collect();
    let mut wids = vec![0u32; seen_in.len()];
    for &(k, wid) in seen_in.iter().rev() {
        let end = &mut ends[k as usize];
        *end -= 1;
        wids[*end as usize] = wid;
    }
    let mut by_shard: Vec<Vec<Counted>> = (0..SHARDS).map(|_| Vec::new()).collect();
    for (rank, (&(parts, weight, _, n), &from)) in found.iter().zip(&ends).enumerate() {
        by_shard[shard_of(&parts)].push(Counted {
            parts,
            first: ((b as u64) << 32) | rank as u64,
            weight,
            from,
            to: from + n,
        });
    }
    BlockPairs { by_shard, wids }
}

/// One shard's pairs, summed over the blocks so far.
#[derive(Default)]
struct Shard {
    at: FxHashMap<(u32, u32), usize>,
    summed: Vec<FirstPair>,
}

impl Shard {
    /// Adds this shard's (`s`) pairs of the next blocks, in block order.
    fn add(&mut self, blocks: &[BlockPairs], s: usize) {
        for block in blocks {
            for p in &block.by_shard[s] {
                let words = &block.wids[p.from as usize..p.to as usize];
                match self.at.get(&p.parts) {
                    Some(&k) => {
                        let q = &mut self.summed[k];
                        q.weight += p.weight;
                        q.words.extend_from_slice(words);
                    }
                    None => {
                        self.at.insert(p.parts, self.summed.len());
                        self.summed.push(FirstPair {
                            parts: p.parts,
                            first: p.first,
                            weight: p.weight,
                            words: words.to_vec(),
                        });
                    }
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
        let store = WordStore::from_words(&words, &counts);
        let got: Vec<_> = first_pairs(&store)
            .into_iter()
            .map(|p| (p.parts, p.weight, p.words))
            .collect();
        // The pairs name the words by their places.
        let want: Vec<_> = one_pass(&words, &counts)
            .into_iter()
            .map(|(parts, weight, wids)| {
                let places = wids.iter().map(|&w| store.place(w as usize)).collect();
                (parts, weight, places)
            })
            .collect();
        assert_eq!(got, want);
    }
}
