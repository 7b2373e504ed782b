//! Counts split by a hash of their key into shards, so that the counts of many tasks fold
//! into them on every thread: each shard takes its part of every task's list on one thread,
//! and allocates an owned key only for a key it has not seen.
//!
//! One map fed every task's counts on one thread made counting a 50 MB corpus take longer
//! than normalizing it; both the pre-tokenized word counts ([`super::WordCounts`], keys in
//! bytes) and the sentencepiece trainers' word counts (keys in strings) use these shards.
//! Counts saturate at `u64::MAX` instead of wrapping.
//!
//! ```
//! use tokensmith_core::trainers::shards::Shards;
//! let mut counts: Shards<String> = Shards::default();
//! counts.add_batch(&[vec![("▁a", 2), ("▁b", 1)], vec![("▁a", 1)]]);
//! assert_eq!(counts.get("▁a"), 3);
//! assert_eq!(counts.into_sorted(), [("▁a".to_string(), 3), ("▁b".to_string(), 1)]);
//! ```

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// Shards of the table (a power of two).
pub const SHARDS: usize = 64;

/// The shard of `key`. Bits 32.. of the hash: the maps use the low bits for the bucket and
/// the top seven for the tag, and must still see those vary within a shard.
pub fn shard_of<Q: Hash + ?Sized>(key: &Q) -> usize {
    ((FxBuildHasher.hash_one(key) >> 32) as usize) & (SHARDS - 1)
}

/// Keys with their counts, in [`SHARDS`] maps. See the module documentation.
#[derive(Debug, Clone)]
pub struct Shards<K> {
    maps: Vec<FxHashMap<K, u64>>,
}

impl<K> Default for Shards<K> {
    fn default() -> Self {
        Self {
            maps: (0..SHARDS).map(|_| FxHashMap::default()).collect(),
        }
    }
}

/// Sums `(key, count)` pairs into lists by shard, each key once per list; room for
/// `distinct` keys is made at once (a guess: a map grown step by step rehashes every key
/// it holds at each step).
pub fn by_shard<'a, Q: Hash + Eq + ?Sized>(
    pairs: impl IntoIterator<Item = (&'a Q, u64)>,
    distinct: usize,
) -> Vec<Vec<(&'a Q, u64)>> {
    let mut local: FxHashMap<&Q, u64> =
        FxHashMap::with_capacity_and_hasher(distinct, Default::default());
    for (k, n) in pairs {
        let c = local.entry(k).or_insert(0);
        *c = c.saturating_add(n);
    }
    split_by_shard(local)
}

/// The pairs of `local` (each key once) in lists by shard.
pub fn split_by_shard<Q: Hash + Eq + ?Sized>(local: FxHashMap<&Q, u64>) -> Vec<Vec<(&Q, u64)>> {
    // The keys spread evenly over the shards; a little more room spares most lists a copy.
    let room = local.len() / SHARDS + local.len() / (4 * SHARDS) + 4;
    let mut lists: Vec<Vec<(&Q, u64)>> = (0..SHARDS).map(|_| Vec::with_capacity(room)).collect();
    for (k, n) in local {
        lists[shard_of(k)].push((k, n));
    }
    lists
}

fn add_to<K, Q>(map: &mut FxHashMap<K, u64>, key: &Q, n: u64)
where
    K: Hash + Eq + Borrow<Q>,
    Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
{
    match map.get_mut(key) {
        Some(c) => *c = c.saturating_add(n),
        None => {
            map.insert(key.to_owned(), n);
        }
    }
}

impl<K: Hash + Eq> Shards<K> {
    /// Adds `n` occurrences of `key`.
    pub fn add<Q>(&mut self, key: &Q, n: u64)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        add_to(&mut self.maps[shard_of(key)], key, n);
    }

    /// Adds `pairs` (each a task's `(key, count)` list, in any grouping); parallel over
    /// the tasks, then over the shards.
    pub fn add_batch<Q>(&mut self, pairs: &[Vec<(&Q, u64)>])
    where
        K: Borrow<Q> + Send,
        Q: Hash + Eq + ToOwned<Owned = K> + Sync + ?Sized,
    {
        let lists: Vec<Vec<Vec<(&Q, u64)>>> = pairs
            .par_iter()
            .map(|p| by_shard(p.iter().copied(), p.len()))
            .collect();
        self.add_sharded(&lists);
    }

    /// Adds lists already split by [`by_shard`] (one list of lists per task); parallel over
    /// the shards.
    pub fn add_sharded<Q>(&mut self, lists: &[Vec<Vec<(&Q, u64)>>])
    where
        K: Borrow<Q> + Send,
        Q: Hash + Eq + ToOwned<Owned = K> + Sync + ?Sized,
    {
        self.maps.par_iter_mut().enumerate().for_each(|(s, map)| {
            for task in lists {
                for &(k, n) in &task[s] {
                    add_to(map, k, n);
                }
            }
        });
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: Shards<K>) {
        for (mine, theirs) in self.maps.iter_mut().zip(other.maps) {
            for (k, n) in theirs {
                let c = mine.entry(k).or_insert(0);
                *c = c.saturating_add(n);
            }
        }
    }

    /// The count of `key` (0 if never seen).
    pub fn get<Q>(&self, key: &Q) -> u64
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.maps[shard_of(key)].get(key).copied().unwrap_or(0)
    }

    /// The number of distinct keys.
    pub fn len(&self) -> usize {
        self.maps.iter().map(|m| m.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.maps.iter().all(|m| m.is_empty())
    }

    /// The keys and their counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, u64)> {
        self.maps
            .iter()
            .flat_map(|m| m.iter().map(|(k, &n)| (k, n)))
    }

    /// Every key with its count, by count (descending), then by key (ascending). `K` must
    /// be ordered as its bytes are (`String`, `Vec<u8>`).
    ///
    /// Each entry carries its count and the first bytes of its key, so that most comparisons
    /// read nothing outside the array being sorted: comparing the keys themselves read two
    /// strings far apart in memory (often cache misses) and called `memcmp` each time.
    pub fn into_sorted(self) -> Vec<(K, u64)>
    where
        K: Ord + AsRef<[u8]> + Send,
    {
        let mut entries: Vec<SortEntry<K>> = Vec::with_capacity(self.len());
        for map in self.maps {
            entries.extend(
                map.into_iter()
                    .map(|(key, count)| SortEntry::new(key, count)),
            );
        }
        entries.par_sort_unstable_by(SortEntry::order);
        entries.into_iter().map(|e| (e.key, e.count)).collect()
    }
}

/// A key being sorted, with what orders most pairs of keys without reading them.
struct SortEntry<K> {
    /// The first [`PREFIX`] bytes of the key, big-endian, zero-padded.
    prefix: u128,
    count: u64,
    key: K,
}

/// Bytes of a key compared before the key itself.
const PREFIX: usize = 16;

impl<K: Ord + AsRef<[u8]>> SortEntry<K> {
    fn new(key: K, count: u64) -> Self {
        let mut head = [0u8; PREFIX];
        let bytes = key.as_ref();
        let n = bytes.len().min(PREFIX);
        head[..n].copy_from_slice(&bytes[..n]);
        Self {
            prefix: u128::from_be_bytes(head),
            count,
            key,
        }
    }

    /// By count (descending), then by key. Different prefixes order their keys as the keys
    /// do: where they first differ, either both keys have that byte, or the shorter key
    /// (padded with 0) ends there and is a prefix of the other; equal prefixes leave it to
    /// the keys.
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.count
            .cmp(&a.count)
            .then(a.prefix.cmp(&b.prefix))
            .then_with(|| a.key.cmp(&b.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_sum_across_tasks_and_shards() {
        let words: Vec<String> = (0..500).map(|i| format!("w{}", i % 137)).collect();
        let mut counts: Shards<String> = Shards::default();
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
        assert_eq!(counts.len(), expected.len());
        assert_eq!(
            counts.get("w3"),
            expected.iter().find(|e| e.0 == "w3").unwrap().1
        );
        assert_eq!(counts.into_sorted(), expected);
    }

    #[test]
    fn sorted_as_by_whole_keys() {
        // Keys sharing 16 bytes or more, keys that are prefixes of others, and zero bytes,
        // which the padding of a short key's prefix also holds.
        let mut rng = crate::models::unigram::SplitMix64::new(5);
        let mut counts: Shards<Vec<u8>> = Shards::default();
        let stem = b"0123456789abcdef0123";
        for _ in 0..20_000 {
            let len = (rng.next_u64() % 24) as usize;
            let mut key = stem[..len.min(stem.len())].to_vec();
            for _ in 0..rng.next_u64() % 3 {
                key.push([0u8, 1, b'a'][(rng.next_u64() % 3) as usize]);
            }
            counts.add(key.as_slice(), 1 + rng.next_u64() % 3);
        }
        let mut want: Vec<(Vec<u8>, u64)> = counts.iter().map(|(k, n)| (k.clone(), n)).collect();
        want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        assert!(want.len() > 100);
        assert_eq!(counts.into_sorted(), want);
    }

    #[test]
    fn counts_saturate_instead_of_wrapping() {
        let mut a: Shards<Vec<u8>> = Shards::default();
        a.add(b"x".as_slice(), u64::MAX - 1);
        a.add(b"x".as_slice(), 5);
        let mut b: Shards<Vec<u8>> = Shards::default();
        b.add(b"x".as_slice(), 9);
        a.merge(b);
        assert_eq!(a.get(b"x".as_slice()), u64::MAX);
    }
}
