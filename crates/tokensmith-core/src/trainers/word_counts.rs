//! Counting pre-tokenized words: the first stage of every trainer.
//!
//! Texts are split by a [`PreTokenizer`] and each distinct piece is counted. Chunks of texts
//! (two per thread) are counted on the rayon pool, each into a map that borrows the pieces
//! from the texts; each chunk's words are split by [`Shards`](super::shards::Shards), and
//! each shard takes its words from every chunk on its own thread. Memory therefore grows
//! with the number of distinct pieces, never with the size of the corpus: a caller that streams its corpus feeds
//! [`WordCounts::add_texts`] one batch at a time and drops each batch afterwards.
//!
//! Counts are sums, so the result does not depend on the thread count or on batch sizes.
//!
//! Not handled here: normalization (pieces are counted as the pre-tokenizer yields them) and
//! reading files (the caller hands over text).

use super::shards::{split_by_shard, Shards};
use crate::error::Result;
use crate::pre_tokenizers::PreTokenizer;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The fewest texts per rayon task: enough to amortise a task's map.
const TEXTS_PER_TASK: usize = 256;

/// Texts per task for a batch of `n`: two tasks per thread (enough to balance), each as
/// large as that allows, because every task's map is folded into the counts on one thread
/// and larger tasks hold fewer distinct words in all.
fn texts_per_task(n: usize) -> usize {
    let tasks = 2 * rayon::current_num_threads().max(1);
    n.div_ceil(tasks).max(TEXTS_PER_TASK)
}

/// How often each distinct pre-token (as bytes) occurs in a corpus.
///
/// ```
/// use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
/// use tokensmith_core::trainers::WordCounts;
///
/// let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
/// let mut counts = WordCounts::new();
/// counts.add_texts(&pre, &["low low lower"]).unwrap();
/// assert_eq!(counts.get(b" low"), 1);
/// assert_eq!(counts.get(b"low"), 1);
/// assert_eq!(counts.len(), 3);
/// ```
#[derive(Debug, Clone, Default)]
pub struct WordCounts {
    /// The counts, in shards so that batches fold into them in parallel.
    shards: Shards<Vec<u8>>,
}

impl WordCounts {
    pub fn new() -> Self {
        Self::default()
    }

    /// Splits every text with `pre` and counts its pieces, in parallel.
    pub fn add_texts<S: AsRef<str> + Sync>(
        &mut self,
        pre: &PreTokenizer,
        texts: &[S],
    ) -> Result<()> {
        crate::parallel::install(|| {
            let partial = texts
                .par_chunks(texts_per_task(texts.len()))
                .map(|chunk| count_chunk(pre, chunk))
                .collect::<Result<Vec<_>>>()?;
            self.shards.add_sharded(&partial);
            Ok(())
        })
    }

    /// Counts the words that `split` gives for each text, in parallel. `split` calls its
    /// callback once per word; the words may differ from the text (a Metaspace
    /// pre-tokenizer writes `▁` for spaces).
    pub fn add_texts_with<S, F>(&mut self, texts: &[S], split: F) -> Result<()>
    where
        S: AsRef<str> + Sync,
        F: Fn(&str, &mut dyn FnMut(&str)) + Sync,
    {
        let partial: Vec<FxHashMap<String, u64>> = crate::parallel::install(|| {
            texts
                .par_chunks(TEXTS_PER_TASK)
                .map(|chunk| {
                    let mut local: FxHashMap<String, u64> = FxHashMap::default();
                    for text in chunk {
                        split(text.as_ref(), &mut |word: &str| {
                            if word.is_empty() {
                                return;
                            }
                            match local.get_mut(word) {
                                Some(c) => *c += 1,
                                None => {
                                    local.insert(word.to_string(), 1);
                                }
                            }
                        });
                    }
                    local
                })
                .collect()
        });
        for local in partial {
            for (word, n) in local {
                self.add(word.as_bytes(), n);
            }
        }
        Ok(())
    }

    /// Adds `n` occurrences of `word`. Counts saturate at `u64::MAX` instead of wrapping (only
    /// a forged counts file gets near it, and [`from_bytes`](Self::from_bytes) refuses those).
    pub fn add(&mut self, word: &[u8], n: u64) {
        self.shards.add(word, n);
    }

    /// Adds every count of `other` (for counts built on separate streams).
    pub fn merge(&mut self, other: WordCounts) {
        self.shards.merge(other.shards);
    }

    /// The count of `word` (0 if never seen).
    pub fn get(&self, word: &[u8]) -> u64 {
        self.shards.get(word)
    }

    /// The number of distinct words.
    pub fn len(&self) -> usize {
        self.shards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shards.is_empty()
    }

    /// The total number of words counted.
    pub fn total(&self) -> u64 {
        self.shards.iter().map(|(_, n)| n).sum()
    }

    /// The words and their counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> {
        self.shards.iter().map(|(w, n)| (w.as_slice(), n))
    }
}

impl<W: AsRef<[u8]>> FromIterator<(W, u64)> for WordCounts {
    fn from_iter<I: IntoIterator<Item = (W, u64)>>(iter: I) -> Self {
        let mut counts = WordCounts::new();
        for (w, n) in iter {
            counts.add(w.as_ref(), n);
        }
        counts
    }
}

/// One shard's words and counts from one chunk of texts.
type ShardWords<'t> = Vec<(&'t [u8], u64)>;

/// Counts one chunk of texts; returns its words and counts split by shard.
fn count_chunk<'t, S: AsRef<str>>(
    pre: &PreTokenizer,
    chunk: &'t [S],
) -> Result<Vec<ShardWords<'t>>> {
    let mut local: FxHashMap<&'t [u8], u64> = FxHashMap::default();
    for text in chunk {
        let text: &'t str = text.as_ref();
        let bytes = text.as_bytes();
        pre.for_each_piece(text, |start, end| {
            if end > start {
                *local.entry(&bytes[start..end]).or_insert(0) += 1;
            }
        })?;
    }
    Ok(split_by_shard(local))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pre_tokenizers::{O200K_PATTERN, R50K_PATTERN};

    #[test]
    fn counts_do_not_depend_on_batching() {
        let pre = PreTokenizer::new(O200K_PATTERN).unwrap();
        let texts: Vec<String> = (0..2000)
            .map(|i| format!("word{} 你好 low lower {}\n", i % 7, i % 13))
            .collect();
        let mut whole = WordCounts::new();
        whole.add_texts(&pre, &texts).unwrap();
        let mut batched = WordCounts::new();
        for batch in texts.chunks(333) {
            batched.add_texts(&pre, batch).unwrap();
        }
        assert_eq!(whole.len(), batched.len());
        for (w, n) in whole.iter() {
            assert_eq!(batched.get(w), n);
        }
        assert_eq!(whole.get(" 你好".as_bytes()), 2000);
    }

    #[test]
    fn merge_adds_counts() {
        let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
        let mut a = WordCounts::new();
        a.add_texts(&pre, &["a b"]).unwrap();
        let mut b = WordCounts::new();
        b.add_texts(&pre, &["a a"]).unwrap();
        a.merge(b);
        assert_eq!(a.get(b"a"), 2);
        assert_eq!(a.get(b" a"), 1);
        assert_eq!(a.get(b" b"), 1);
        assert_eq!(a.total(), 4);
    }
}
