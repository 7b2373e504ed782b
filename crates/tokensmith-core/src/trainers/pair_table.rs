//! The merge loop's pair bookkeeping: every adjacent pair of symbols gets a dense id on first
//! sight, and the id indexes flat arrays of the pair's count and of the words that hold it.
//!
//! One hash lookup turns a pair into its id; everything else is an array access. Pairs whose
//! count rose during a merge are collected by id, each once (a per-pair stamp of the last merge
//! that collected it replaces a hash set).
//!
//! The initial counts are taken in parallel: each thread counts a contiguous share of the
//! words into its own map, and the maps are folded once, in word order, so every pair's word
//! list comes out sorted.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::merge_loop::{Pair, Sym};

/// Words per parallel share below which counting stays on one thread.
const MIN_WORDS_PER_SHARE: usize = 4096;

/// Pair ids, counts and word lists. See the module docs.
#[derive(Default)]
pub(crate) struct PairTable {
    ids: FxHashMap<Pair, u32>,
    pairs: Vec<Pair>,
    counts: Vec<i64>,
    words: Vec<Vec<u32>>,
    /// For each pair, the last merge that collected it in `grown` (0: none).
    stamp: Vec<u32>,
    /// The current merge's number, for `stamp`.
    epoch: u32,
    grown: Vec<u32>,
}

/// One share's counts: per pair, the count and the words holding it (ascending).
type Share = FxHashMap<Pair, (i64, Vec<u32>)>;

impl PairTable {
    /// Counts every adjacent pair of `words` (flat: word `w` is
    /// `syms[starts[w]..starts[w] + lens[w]]`) weighted by `counts`, keeping only pairs
    /// that `keep` accepts.
    pub(crate) fn count(
        syms: &[Sym],
        starts: &[u32],
        lens: &[u32],
        counts: &[u64],
        keep: impl Fn(Pair) -> bool + Sync,
    ) -> Self {
        let n = starts.len();
        let count_share = |range: std::ops::Range<usize>| -> Share {
            let mut share = Share::default();
            for w in range {
                let start = starts[w] as usize;
                let word = &syms[start..start + lens[w] as usize];
                for win in word.windows(2) {
                    let pair = (win[0], win[1]);
                    if !keep(pair) {
                        continue;
                    }
                    let (c, list) = share.entry(pair).or_default();
                    *c += counts[w] as i64;
                    if list.last() != Some(&(w as u32)) {
                        list.push(w as u32);
                    }
                }
            }
            share
        };
        let threads = crate::parallel::install(rayon::current_num_threads).max(1);
        let size = n.div_ceil(threads).max(MIN_WORDS_PER_SHARE);
        let ranges: Vec<_> = (0..n).step_by(size).map(|a| a..(a + size).min(n)).collect();
        let shares: Vec<Share> = if ranges.len() > 1 {
            crate::parallel::install(|| ranges.into_par_iter().map(count_share).collect())
        } else {
            ranges.into_iter().map(count_share).collect()
        };
        let mut table = Self::default();
        for share in shares {
            for (pair, (c, list)) in share {
                let id = table.id(pair) as usize;
                table.counts[id] += c;
                if table.words[id].is_empty() {
                    table.words[id] = list;
                } else {
                    table.words[id].extend_from_slice(&list);
                }
            }
        }
        table
    }

    /// The id of `pair`, given on first sight.
    fn id(&mut self, pair: Pair) -> u32 {
        if let Some(&id) = self.ids.get(&pair) {
            return id;
        }
        let id = self.pairs.len() as u32;
        self.ids.insert(pair, id);
        self.pairs.push(pair);
        self.counts.push(0);
        self.words.push(Vec::new());
        self.stamp.push(0);
        id
    }

    /// The current count of `pair` (0 if never seen).
    pub(crate) fn get(&self, pair: Pair) -> i64 {
        self.ids
            .get(&pair)
            .map_or(0, |&id| self.counts[id as usize])
    }

    /// Every pair seen and its current count.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Pair, i64)> + '_ {
        self.pairs.iter().copied().zip(self.counts.iter().copied())
    }

    /// Lowers the count of `pair`. A pair the length rule kept out of the counts goes
    /// below 0 and stays there, never to be chosen.
    pub(crate) fn lower(&mut self, pair: Pair, by: i64) {
        let id = self.id(pair) as usize;
        self.counts[id] -= by;
    }

    /// Raises the count of `pair`, which now occurs in word `w`, and collects it as grown.
    pub(crate) fn raise(&mut self, pair: Pair, by: i64, w: u32) {
        let id = self.id(pair) as usize;
        self.counts[id] += by;
        let list = &mut self.words[id];
        if list.last() != Some(&w) {
            list.push(w);
        }
        if self.stamp[id] != self.epoch {
            self.stamp[id] = self.epoch;
            self.grown.push(id as u32);
        }
    }

    /// Starts a merge of `pair`: hands over the words that may hold it (ascending, each
    /// once) and forgets them; collecting grown pairs starts afresh.
    pub(crate) fn take(&mut self, pair: Pair) -> Vec<u32> {
        self.epoch += 1;
        self.grown.clear();
        let Some(&id) = self.ids.get(&pair) else {
            return Vec::new();
        };
        let mut list = std::mem::take(&mut self.words[id as usize]);
        list.sort_unstable();
        list.dedup();
        list
    }

    /// Ends a merge of `pair`: only leftovers of overlapping runs ("aaa" -> "aa a") are still
    /// counted, and none of them is adjacent any more, so its count drops to 0.
    pub(crate) fn clear(&mut self, pair: Pair) {
        if let Some(&id) = self.ids.get(&pair) {
            self.counts[id as usize] = 0;
        }
    }

    /// The pairs whose count rose since [`take`](Self::take), each once, with their counts.
    pub(crate) fn grown(&self) -> impl Iterator<Item = (Pair, i64)> + '_ {
        self.grown
            .iter()
            .map(|&id| (self.pairs[id as usize], self.counts[id as usize]))
    }
}
