//! The words being merged, one after another in one buffer, each with its length and count.
//!
//! A merge only shortens a word, so each keeps the room it started with and the buffer never
//! moves. A merge visits the words its pair occurs in, in ascending order, scattered over the
//! buffer: each visit used to cost a cache miss for the word's `Vec` and another for its
//! symbols. Here each word's start, length and count are together ([`Word`]), and the words
//! a few visits ahead are fetched ahead of time ([`Part::for_each`]): first their `Word`,
//! then, once it is there, their symbols.
//!
//! For merging on several threads, the visited words are cut into runs ([`WordStore::parts`]):
//! the runs' words are disjoint stretches of the buffer, so each run holds its stretch
//! mutably, without moving or copying a word.
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::WordStore;
//! let mut store = WordStore::from_words(&[vec![1, 2, 1, 2], vec![2, 1]], &[2, 1]);
//! let mut seen = Vec::new();
//! for mut part in store.parts(&[0, 1], 1) {
//!     part.for_each(|wid, word, len, count| {
//!         seen.push((wid, word[..*len as usize].to_vec(), count));
//!         *len = 1;
//!     });
//! }
//! assert_eq!(seen, [(0, vec![1, 2, 1, 2], 2), (1, vec![2, 1], 1)]);
//! assert_eq!(store.word(0), [1]);
//! ```

use crate::models::bpe::prefetch;
use rayon::prelude::*;

/// Words visited ahead of the one being merged when fetching their symbols (their `Word`s
/// are fetched twice as far ahead).
const FETCH_AHEAD: usize = 8;

/// Some words' texts and the stretch of the buffer their symbols go to.
type TextBlock<'a> = (&'a [(String, u64)], &'a mut [u32]);

/// One word: where its symbols are, and its count.
#[derive(Debug, Clone, Copy, Default)]
pub struct Word {
    /// Where the word's room starts in the buffer.
    start: usize,
    count: u64,
    /// The room: the word's length before any merge.
    room: u32,
    len: u32,
}

/// See the module documentation.
#[derive(Debug, Default)]
pub struct WordStore {
    symbols: Vec<u32>,
    words: Vec<Word>,
}

impl WordStore {
    /// The store of `words`, whose counts are `counts`.
    pub fn from_words(words: &[Vec<u32>], counts: &[u64]) -> Self {
        let lens: Vec<u32> = words.iter().map(|w| w.len() as u32).collect();
        let mut store = Self::with_lens(&lens, counts);
        store.symbols = words.concat();
        store
    }

    /// The store of `texts` (with their counts), each character spelled by `id_of`, filled on
    /// the pool.
    pub fn spell(texts: &[(String, u64)], id_of: impl Fn(char) -> u32 + Sync) -> Self {
        /// Words spelled per task.
        const WORDS_PER_BLOCK: usize = 4096;
        let lens: Vec<u32> = texts
            .par_iter()
            .map(|(w, _)| w.chars().count() as u32)
            .collect();
        let counts: Vec<u64> = texts.iter().map(|t| t.1).collect();
        let mut store = Self::with_lens(&lens, &counts);
        store.symbols = vec![0; store.end_of(texts.len())];
        // Blocks of whole words, each its own stretch of the buffer.
        let mut blocks: Vec<TextBlock<'_>> = Vec::new();
        let mut rest: &mut [u32] = &mut store.symbols;
        for (b, block) in texts.chunks(WORDS_PER_BLOCK).enumerate() {
            let first = b * WORDS_PER_BLOCK;
            let size = store.words[first..first + block.len()]
                .iter()
                .map(|w| w.room as usize)
                .sum();
            let (here, later) = std::mem::take(&mut rest).split_at_mut(size);
            blocks.push((block, here));
            rest = later;
        }
        blocks.into_par_iter().for_each(|(block, out)| {
            let chars = block.iter().flat_map(|(w, _)| w.chars());
            for (slot, c) in out.iter_mut().zip(chars) {
                *slot = id_of(c);
            }
        });
        store
    }

    fn with_lens(lens: &[u32], counts: &[u64]) -> Self {
        let mut start = 0usize;
        let words = lens
            .iter()
            .zip(counts)
            .map(|(&len, &count)| {
                let word = Word {
                    start,
                    count,
                    room: len,
                    len,
                };
                start += len as usize;
                word
            })
            .collect();
        Self {
            symbols: Vec::new(),
            words,
        }
    }

    /// Where the room of the words before `wid` ends.
    fn end_of(&self, wid: usize) -> usize {
        match wid.checked_sub(1) {
            Some(last) => self.words[last].start + self.words[last].room as usize,
            None => 0,
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The symbols of word `wid`.
    pub fn word(&self, wid: usize) -> &[u32] {
        let w = &self.words[wid];
        &self.symbols[w.start..w.start + w.len as usize]
    }

    /// The count of word `wid`.
    pub fn count(&self, wid: usize) -> u64 {
        self.words[wid].count
    }

    /// The words `wids` (ascending) in runs of `size` (the last may be shorter), each run
    /// holding its words mutably.
    pub fn parts<'a>(&'a mut self, wids: &'a [u32], size: usize) -> Vec<Part<'a>> {
        debug_assert!(wids.windows(2).all(|w| w[0] < w[1]), "word ids must ascend");
        let mut parts = Vec::with_capacity(wids.len().div_ceil(size.max(1)));
        let mut symbols: &mut [u32] = &mut self.symbols;
        let mut words: &mut [Word] = &mut self.words;
        // Where `words` and `symbols` begin: a word id and a place in the buffer.
        let (mut base, mut origin) = (0usize, 0usize);
        for run in wids.chunks(size.max(1)) {
            let first = run[0] as usize;
            let end = run[run.len() - 1] as usize + 1;
            let (_, from_first) = std::mem::take(&mut words).split_at_mut(first - base);
            let (words_here, words_later) = from_first.split_at_mut(end - first);
            let start = words_here[0].start;
            let last = words_here[words_here.len() - 1];
            let stop = last.start + last.room as usize;
            let (_, from_start) = std::mem::take(&mut symbols).split_at_mut(start - origin);
            let (here, later) = from_start.split_at_mut(stop - start);
            parts.push(Part {
                wids: run,
                first,
                origin: start,
                symbols: here,
                words: words_here,
            });
            (symbols, words) = (later, words_later);
            (base, origin) = (end, stop);
        }
        parts
    }
}

/// A run of the words a merge visits, with their stretch of the buffer.
pub struct Part<'a> {
    wids: &'a [u32],
    /// The first word of the stretch, and where its symbols start in the buffer.
    first: usize,
    origin: usize,
    symbols: &'a mut [u32],
    words: &'a mut [Word],
}

impl Part<'_> {
    /// Calls `each(wid, room, len, count)` for each word of the run in order: `room` is the
    /// word's symbols and the room after them (`room[..*len]` is the word), `len` may be
    /// lowered.
    pub fn for_each(&mut self, mut each: impl FnMut(u32, &mut [u32], &mut u32, u64)) {
        let (first, origin) = (self.first, self.origin);
        // The first words have no visits before them to hide their fetches behind: their
        // `Word`s are fetched all at once, then their symbols (most merges visit a few words).
        for &ahead in self.wids.iter().take(2 * FETCH_AHEAD) {
            prefetch(&self.words[ahead as usize - first]);
        }
        for &ahead in self.wids.iter().take(FETCH_AHEAD) {
            let at = self.words[ahead as usize - first].start - origin;
            if let Some(symbol) = self.symbols.get(at) {
                prefetch(symbol);
            }
        }
        for (k, &wid) in self.wids.iter().enumerate() {
            if let Some(&ahead) = self.wids.get(k + 2 * FETCH_AHEAD) {
                prefetch(&self.words[ahead as usize - first]);
            }
            if let Some(&ahead) = self.wids.get(k + FETCH_AHEAD) {
                let at = self.words[ahead as usize - first].start - origin;
                if let Some(symbol) = self.symbols.get(at) {
                    prefetch(symbol);
                }
            }
            let w = &mut self.words[wid as usize - first];
            let at = w.start - origin;
            each(
                wid,
                &mut self.symbols[at..at + w.room as usize],
                &mut w.len,
                w.count,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_hold_their_words_and_changes_stay() {
        let words: Vec<Vec<u32>> = (0..50u32).map(|i| (0..i % 7).collect()).collect();
        let counts: Vec<u64> = (0..50).map(|i| i as u64 * 3 + 1).collect();
        let mut store = WordStore::from_words(&words, &counts);
        let wids: Vec<u32> = (0..50).filter(|i| i % 3 != 1).collect();
        let mut seen = Vec::new();
        for mut part in store.parts(&wids, 4) {
            part.for_each(|wid, room, len, count| {
                assert_eq!(&room[..*len as usize], &words[wid as usize][..]);
                assert_eq!(room.len(), words[wid as usize].len());
                seen.push((wid, count));
                // Each visited word loses its first symbol.
                if *len > 0 {
                    room.copy_within(1..*len as usize, 0);
                    *len -= 1;
                }
            });
        }
        let want: Vec<(u32, u64)> = wids.iter().map(|&w| (w, counts[w as usize])).collect();
        assert_eq!(seen, want);
        for (i, w) in words.iter().enumerate() {
            let kept = if i % 3 != 1 && !w.is_empty() {
                &w[1..]
            } else {
                &w[..]
            };
            assert_eq!(store.word(i), kept, "word {i}");
        }
        // One run of every word: the look-ahead reaches across the whole run, up to an empty
        // last word.
        let mut words = words.clone();
        words.push(Vec::new());
        let counts: Vec<u64> = (0..words.len() as u64).collect();
        let mut store = WordStore::from_words(&words, &counts);
        let wids: Vec<u32> = (0..words.len() as u32).collect();
        let mut seen = Vec::new();
        for mut part in store.parts(&wids, wids.len()) {
            part.for_each(|wid, room, len, count| {
                assert_eq!(&room[..*len as usize], &words[wid as usize][..]);
                seen.push((wid, count));
            });
        }
        assert_eq!(
            seen,
            wids.iter().map(|&w| (w, w as u64)).collect::<Vec<_>>()
        );
        let spelled = WordStore::spell(&[("ab".into(), 2), ("ba".into(), 1)], |c| c as u32);
        assert_eq!((spelled.word(1), spelled.count(0)), (&[98, 97][..], 2));
    }
}
