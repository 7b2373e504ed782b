//! Word counts split by hash into shards, so that batches of counts merge on every thread.
//!
//! One map of a million distinct words, fed the local counts of each batch on one thread,
//! made counting a 50 MB corpus take longer than normalizing it. Here each batch is first
//! counted per task into short lists, one per shard; the shards then take their lists in
//! parallel, each shard on one thread, and allocate a `String` only for a word they have
//! not seen.
//!
//! ```
//! use tokensmith_core::trainers::unigram::word_shards::WordShards;
//! let mut counts = WordShards::default();
//! counts.add_batch(&[vec![("▁a", 2), ("▁b", 1)], vec![("▁a", 1)]]);
//! assert_eq!(counts.into_sorted(), [("▁a".to_string(), 3), ("▁b".to_string(), 1)]);
//! ```

use std::hash::BuildHasher;

use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// Shards of the table (a power of two).
const SHARDS: usize = 64;

/// The shard of `word`. Bits 32.. of the hash: the maps use the low bits for the bucket and
/// the top seven for the tag, and must still see those vary within a shard.
fn shard_of(word: &str) -> usize {
    ((FxBuildHasher.hash_one(word) >> 32) as usize) & (SHARDS - 1)
}

/// Distinct words with their counts, in [`SHARDS`] maps. See the module documentation.
pub struct WordShards {
    shards: Vec<FxHashMap<String, u64>>,
}

impl Default for WordShards {
    fn default() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| FxHashMap::default()).collect(),
        }
    }
}

/// Sums `(word, count)` pairs into lists by shard, each word once per list.
pub fn by_shard<'a>(pairs: impl IntoIterator<Item = (&'a str, u64)>) -> Vec<Vec<(&'a str, u64)>> {
    let mut local: FxHashMap<&str, u64> = FxHashMap::default();
    for (w, n) in pairs {
        *local.entry(w).or_insert(0) += n;
    }
    let mut lists: Vec<Vec<(&str, u64)>> = vec![Vec::new(); SHARDS];
    for (w, n) in local {
        lists[shard_of(w)].push((w, n));
    }
    lists
}

impl WordShards {
    /// Adds `pairs` (each a task's `(word, count)` list, in any grouping); parallel over
    /// the shards.
    pub fn add_batch(&mut self, pairs: &[Vec<(&str, u64)>]) {
        let lists: Vec<Vec<Vec<(&str, u64)>>> = pairs
            .par_iter()
            .map(|p| by_shard(p.iter().copied()))
            .collect();
        self.add_sharded(&lists);
    }

    /// Adds lists already split by [`by_shard`]; parallel over the shards.
    pub fn add_sharded(&mut self, lists: &[Vec<Vec<(&str, u64)>>]) {
        self.shards.par_iter_mut().enumerate().for_each(|(s, map)| {
            for task in lists {
                for &(w, n) in &task[s] {
                    match map.get_mut(w) {
                        Some(c) => *c += n,
                        None => {
                            map.insert(w.to_string(), n);
                        }
                    }
                }
            }
        });
    }

    /// Every word with its count, by count (descending), then by word (ascending).
    pub fn into_sorted(self) -> Vec<(String, u64)> {
        let mut words: Vec<(String, u64)> =
            Vec::with_capacity(self.shards.iter().map(|m| m.len()).sum());
        for map in self.shards {
            words.extend(map);
        }
        words.par_sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_sum_across_tasks_and_shards() {
        let words: Vec<String> = (0..500).map(|i| format!("w{}", i % 137)).collect();
        let mut counts = WordShards::default();
        for batch in words.chunks(64) {
            let tasks: Vec<Vec<(&str, u64)>> = batch
                .chunks(10)
                .map(|c| c.iter().map(|w| (w.as_str(), 2)).collect())
                .collect();
            counts.add_batch(&tasks);
        }
        let mut expected: FxHashMap<String, u64> = FxHashMap::default();
        for w in &words {
            *expected.entry(w.clone()).or_insert(0) += 2;
        }
        let mut expected: Vec<(String, u64)> = expected.into_iter().collect();
        expected.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        assert_eq!(counts.into_sorted(), expected);
    }
}
