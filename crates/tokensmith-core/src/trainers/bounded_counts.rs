//! Word counting within a memory budget: spill sorted runs to disk (exact) or cut rare words
//! in two (approximate).
//!
//! [`WordCounts`] grows with the number of distinct pre-tokens, which on a large, varied
//! corpus is the largest thing the counting stage holds. A [`BoundedCounter`] estimates the
//! size of its table after every batch, and when the estimate passes the budget it either
//!
//! - **spills** (`CountMode::Exact`): writes the table, sorted by word bytes, to a run file in
//!   the counts format of [`super::counts_format`], and starts an empty table. At the end the
//!   runs are merged k ways, streaming: each run is read through a small buffer, equal words are
//!   summed, and the result is written straight into one serialized buffer. The counts are
//!   exactly those of an unbounded count, so training on them gives the same merges.
//! - **prunes** (`CountMode::Approximate`): keeps the words counted most often and cuts the
//!   others in two. With `k` the entries the budget holds and `c` the (k+1)-th largest count,
//!   every word counted `c` times or fewer is replaced by its two halves (cut at the character
//!   boundary nearest its middle), each with the word's count, and this repeats until at most
//!   `k` entries are left; a single character that must still go is dropped. The halves often
//!   are words of their own already, so the table shrinks, and every byte pair inside a half
//!   keeps its occurrences. **Error bound:** for every pair of adjacent bytes, the number of its
//!   occurrences inside the counted pieces is never more than the true number and at most
//!   [`lost_pairs`] less; [`lost_pairs`] (the occurrences cut apart, plus the inner pairs of
//!   dropped characters) is reported, and so is [`total`], the pieces counted in all. Merges
//!   learned on a few frequent words stay as they were; long tokens built from rare words are
//!   what the approximation loses.
//!
//! [`lost_pairs`]: BoundedCounter::lost_pairs
//! [`total`]: BoundedCounter::total
//!
//! The size estimate of an entry is [`ENTRY_OVERHEAD`] bytes plus the word's length: the
//! hash-table slot (key vector, count and control byte at the table's load factor) and the
//! heap block of the word. It counts the table only, not the batch being counted.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
//! use tokensmith_core::trainers::{BoundedCounter, CountMode, WordCounts};
//!
//! let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
//! let dir = std::env::temp_dir().join(format!("ts-doc-{}", std::process::id()));
//! let mut counter = BoundedCounter::new(1_000, CountMode::Exact, &dir);
//! for i in 0..50 {
//!     counter.add_texts(&pre, &[format!("w{i} common w{i}")]).unwrap();
//! }
//! assert!(counter.spills() > 0);
//! let counts = WordCounts::from_bytes(&counter.finish().unwrap()).unwrap();
//! assert_eq!(counts.get(b" common"), 50);
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::counts_format::MAGIC;
use super::word_counts::WordCounts;
use crate::error::{Error, Result};
use crate::pre_tokenizers::PreTokenizer;

/// Estimated bytes of one table entry besides its word: see the module docs.
pub const ENTRY_OVERHEAD: usize = 80;

/// What to do when the table outgrows the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountMode {
    /// Spill sorted runs to disk and merge them: the counts are exact.
    Exact,
    /// Cut the rarest words in two: the counts are approximate, with a bound on byte pairs.
    Approximate,
}

/// Counts words like [`WordCounts`], keeping the table within about `budget` bytes.
#[derive(Debug)]
pub struct BoundedCounter {
    counts: WordCounts,
    budget: usize,
    mode: CountMode,
    dir: PathBuf,
    runs: Vec<PathBuf>,
    avg_word: usize,
    lost_pairs: u64,
    prunes: usize,
    total: u64,
}

impl BoundedCounter {
    /// A counter that keeps its table under `budget` bytes; exact mode spills into `dir`
    /// (created when first needed).
    pub fn new(budget: usize, mode: CountMode, dir: &Path) -> Self {
        Self {
            counts: WordCounts::new(),
            budget,
            mode,
            dir: dir.to_path_buf(),
            runs: Vec::new(),
            avg_word: 8,
            lost_pairs: 0,
            prunes: 0,
            total: 0,
        }
    }

    /// Counts the pieces of `texts`, then spills or prunes if the table is over budget.
    pub fn add_texts<S: AsRef<str> + Sync>(
        &mut self,
        pre: &PreTokenizer,
        texts: &[S],
    ) -> Result<()> {
        let mut batch = WordCounts::new();
        batch.add_texts(pre, texts)?;
        self.total += batch.total();
        self.counts.merge(batch);
        if self.estimate(self.avg_word) > self.budget {
            // The guess of the mean word length may be off: measure before acting on it.
            let measured = self.measured_avg_word();
            self.avg_word = measured;
            if self.estimate(measured) > self.budget {
                match self.mode {
                    CountMode::Exact => self.spill()?,
                    CountMode::Approximate => self.prune(),
                }
            }
        }
        Ok(())
    }

    /// Runs written to disk so far (exact mode).
    pub fn spills(&self) -> usize {
        self.runs.len()
    }

    /// Prunes so far (approximate mode).
    pub fn prunes(&self) -> usize {
        self.prunes
    }

    /// Byte-pair occurrences the approximation lost (0 in exact mode): the most by which the
    /// count of any adjacent byte pair falls short.
    pub fn lost_pairs(&self) -> u64 {
        self.lost_pairs
    }

    /// Words counted in all (before any pruning).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The final counts in the counts format, merging any spilled runs (and deleting them).
    pub fn finish(mut self) -> Result<Vec<u8>> {
        if self.runs.is_empty() {
            return Ok(self.counts.to_bytes());
        }
        if !self.counts.is_empty() {
            self.spill()?;
        }
        let merged = merge_runs(&self.runs);
        for run in &self.runs {
            let _ = std::fs::remove_file(run);
        }
        merged
    }

    fn estimate(&self, avg_word: usize) -> usize {
        self.counts.len() * (ENTRY_OVERHEAD + avg_word)
    }

    fn measured_avg_word(&self) -> usize {
        let n = self.counts.len().max(1);
        let bytes: usize = self.counts.iter().map(|(w, _)| w.len()).sum();
        bytes.div_ceil(n)
    }

    fn spill(&mut self) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| write_error(&self.dir, &e))?;
        let path = self.dir.join(format!("run_{:05}.tswc", self.runs.len()));
        let counts = std::mem::take(&mut self.counts);
        let mut entries: Vec<(&[u8], u64)> = counts.iter().collect();
        entries.sort_unstable();
        let file = File::create(&path).map_err(|e| write_error(&path, &e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        write_entries(&mut out, entries.len() as u64, entries.into_iter())
            .and_then(|()| out.flush())
            .map_err(|e| write_error(&path, &e))?;
        self.runs.push(path);
        Ok(())
    }

    fn prune(&mut self) {
        let keep = (self.budget / (ENTRY_OVERHEAD + self.avg_word)).max(1);
        while self.counts.len() > keep {
            let mut values: Vec<u64> = self.counts.iter().map(|(_, n)| n).collect();
            // values[keep] after the selection is the (keep + 1)-th largest count.
            let (_, cut, _) = values.select_nth_unstable_by(keep, |a, b| b.cmp(a));
            let cut = *cut;
            let mut next = WordCounts::new();
            for (word, n) in self.counts.iter() {
                if n > cut {
                    next.add(word, n);
                } else if let Some(mid) = split_point(word) {
                    next.add(&word[..mid], n);
                    next.add(&word[mid..], n);
                    self.lost_pairs += n;
                } else {
                    self.lost_pairs += n * (word.len() as u64 - 1);
                }
            }
            self.counts = next;
            self.prunes += 1;
        }
    }
}

/// Where to cut `word` in two: the character boundary nearest its middle, or None for a
/// single character (or a single invalid byte).
///
/// Pieces come from `str`s, so they are valid UTF-8 and boundaries are the non-continuation
/// bytes.
fn split_point(word: &[u8]) -> Option<usize> {
    let is_boundary = |i: usize| word.get(i).is_some_and(|b| b & 0xC0 != 0x80);
    let mid = word.len() / 2;
    (0..=mid)
        .flat_map(|d| [mid.checked_sub(d), mid.checked_add(d)])
        .flatten()
        .find(|&i| i > 0 && i < word.len() && is_boundary(i))
}

fn write_error(path: &Path, e: &std::io::Error) -> Error {
    Error::InvalidOption(format!(
        "cannot write spilled word counts to {}: {e}; give max_memory more room or a \
         spill directory with free space",
        path.display()
    ))
}

fn write_entries<'a, W: Write>(
    out: &mut W,
    n: u64,
    entries: impl Iterator<Item = (&'a [u8], u64)>,
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&n.to_le_bytes())?;
    for (word, count) in entries {
        write_entry(out, word, count)?;
    }
    Ok(())
}

fn write_entry<W: Write>(out: &mut W, word: &[u8], count: u64) -> std::io::Result<()> {
    out.write_all(&(word.len() as u32).to_le_bytes())?;
    out.write_all(word)?;
    out.write_all(&count.to_le_bytes())
}

/// One spilled run, read an entry at a time.
struct Run {
    path: PathBuf,
    reader: BufReader<File>,
    left: u64,
}

impl Run {
    fn open(path: &Path) -> Result<Self> {
        let io = |e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
        let mut head = [0u8; 16];
        reader.read_exact(&mut head).map_err(io)?;
        if &head[..8] != MAGIC {
            return Err(Error::InvalidOption(format!(
                "{}: not a spilled word-count run",
                path.display()
            )));
        }
        let left = u64::from_le_bytes(head[8..].try_into().unwrap_or_default());
        Ok(Self {
            path: path.to_path_buf(),
            reader,
            left,
        })
    }

    fn next(&mut self) -> Result<Option<(Vec<u8>, u64)>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let io = |e| Error::Io {
            path: self.path.clone(),
            source: e,
        };
        let mut len = [0u8; 4];
        self.reader.read_exact(&mut len).map_err(io)?;
        let mut word = vec![0u8; u32::from_le_bytes(len) as usize];
        self.reader.read_exact(&mut word).map_err(io)?;
        let mut count = [0u8; 8];
        self.reader.read_exact(&mut count).map_err(io)?;
        Ok(Some((word, u64::from_le_bytes(count))))
    }
}

/// Merges sorted runs into one buffer in the counts format, summing equal words; holds one
/// entry per run besides the output.
fn merge_runs(paths: &[PathBuf]) -> Result<Vec<u8>> {
    let mut runs = paths
        .iter()
        .map(|p| Run::open(p))
        .collect::<Result<Vec<_>>>()?;
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, run) in runs.iter_mut().enumerate() {
        if let Some((word, n)) = run.next()? {
            heap.push(Reverse((word, i, n)));
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&0u64.to_le_bytes());
    let mut entries = 0u64;
    let mut current: Option<(Vec<u8>, u64)> = None;
    while let Some(Reverse((word, i, n))) = heap.pop() {
        if let Some((next_word, next_n)) = runs[i].next()? {
            heap.push(Reverse((next_word, i, next_n)));
        }
        match &mut current {
            Some((w, total)) if *w == word => *total += n,
            _ => {
                if let Some((w, total)) = current.take() {
                    write_entry(&mut out, &w, total).map_err(|e| write_error(&paths[i], &e))?;
                    entries += 1;
                }
                current = Some((word, n));
            }
        }
    }
    if let Some((w, total)) = current {
        write_entry(&mut out, &w, total).map_err(|e| write_error(&paths[0], &e))?;
        entries += 1;
    }
    out[8..16].copy_from_slice(&entries.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pre_tokenizers::O200K_PATTERN;

    fn texts() -> Vec<String> {
        (0..3000)
            .map(|i| format!("word{} common 你好 w{} low{}\n", i % 97, i, i % 13))
            .collect()
    }

    fn temp_dir(tag: &str) -> PathBuf {
        std::env::temp_dir().join(format!("ts-bounded-{tag}-{}", std::process::id()))
    }

    #[test]
    fn exact_mode_equals_unbounded_counts_after_many_spills() {
        let pre = PreTokenizer::new(O200K_PATTERN).unwrap();
        let mut whole = WordCounts::new();
        whole.add_texts(&pre, &texts()).unwrap();
        let dir = temp_dir("exact");
        let mut counter = BoundedCounter::new(20_000, CountMode::Exact, &dir);
        for batch in texts().chunks(100) {
            counter.add_texts(&pre, batch).unwrap();
        }
        assert!(counter.spills() >= 5, "{} spills", counter.spills());
        let blob = counter.finish().unwrap();
        assert_eq!(blob, whole.to_bytes());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "runs are deleted"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn approximate_mode_loses_no_more_pairs_than_it_reports() {
        let pre = PreTokenizer::new(O200K_PATTERN).unwrap();
        let mut whole = WordCounts::new();
        whole.add_texts(&pre, &texts()).unwrap();
        let mut counter = BoundedCounter::new(20_000, CountMode::Approximate, &temp_dir("ap"));
        for batch in texts().chunks(100) {
            counter.add_texts(&pre, batch).unwrap();
        }
        assert!(counter.prunes() > 0 && counter.lost_pairs() > 0);
        let lost = counter.lost_pairs();
        let approx = WordCounts::from_bytes(&counter.finish().unwrap()).unwrap();
        assert!(approx.len() < whole.len());
        let (truth, got) = (pair_counts(&whole), pair_counts(&approx));
        let missing: u64 = truth
            .iter()
            .map(|(p, n)| n - got.get(p).copied().unwrap_or(0))
            .sum();
        assert!(got
            .iter()
            .all(|(p, n)| truth.get(p).is_some_and(|t| n <= t)));
        assert_eq!(missing, lost, "every lost pair is reported, no more");
        assert_eq!(
            approx.get(b" common"),
            3000,
            "a frequent word keeps its count"
        );
    }

    fn pair_counts(counts: &WordCounts) -> std::collections::HashMap<[u8; 2], u64> {
        let mut pairs = std::collections::HashMap::new();
        for (w, n) in counts.iter() {
            for p in w.windows(2) {
                *pairs.entry([p[0], p[1]]).or_insert(0) += n;
            }
        }
        pairs
    }

    #[test]
    fn split_points_fall_between_characters() {
        assert_eq!(split_point(b"abcd"), Some(2));
        assert_eq!(split_point("a\u{4f60}".as_bytes()), Some(1));
        assert_eq!(split_point("\u{4f60}\u{597d}".as_bytes()), Some(3));
        assert_eq!(split_point("\u{4f60}".as_bytes()), None);
        assert_eq!(split_point(b"x"), None);
    }
}
