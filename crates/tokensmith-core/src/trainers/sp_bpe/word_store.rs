//! The words being merged, one after another in one buffer, each its length and count
//! followed by its symbols.
//!
//! A merge only shortens a word, so each keeps the room it started with and the buffer never
//! moves. A merge visits the words its pair occurs in, in ascending order, scattered over the
//! buffer. A word is known by where it starts in the buffer (its place), so a visit reads one
//! place: the length and count are the word's first three slots, its symbols follow, and a
//! short word is one cache line. The words a few visits ahead are fetched ahead of time
//! ([`Part::for_each`]). (With the length and count in a table by word id, each visit waited on
//! two cache misses, one after the other: the table's entry, then the symbols it pointed to.)
//!
//! For merging on several threads, the visited words are cut into runs ([`WordStore::parts`]):
//! the runs' words are disjoint stretches of the buffer, so each run holds its stretch
//! mutably, without moving or copying a word.
//!
//! ```
//! use tokensmith_core::trainers::sp_bpe::WordStore;
//! let mut store = WordStore::from_words(&[vec![1, 2, 1, 2], vec![2, 1]], &[2, 1]);
//! let places = [store.place(0), store.place(1)];
//! assert_eq!(places, [0, 7]);
//! let mut seen = Vec::new();
//! for mut part in store.parts(&places, 1) {
//!     part.for_each(|place, word, count| {
//!         seen.push((place, word.to_vec(), count));
//!         1
//!     });
//! }
//! assert_eq!(seen, [(0, vec![1, 2, 1, 2], 2), (7, vec![2, 1], 1)]);
//! assert_eq!(store.word(0), [1]);
//! ```

use crate::error::{Error, Result};
use crate::models::bpe::huge::HugeSlice;
use crate::models::bpe::prefetch;
use rayon::prelude::*;

/// Words visited ahead of the one being merged when fetching their data.
const FETCH_AHEAD: usize = 12;
/// Slots in a cache line of 64 bytes.
const LINE_SLOTS: usize = 16;
/// Slots before a word's symbols: its length, then its count's low and high 32 bits.
const HEAD: usize = 3;

/// Some words' texts and the stretch of the buffer they go to.
type TextBlock<'a> = (&'a [(String, u64)], &'a mut [u32]);

/// See the module documentation.
#[derive(Debug)]
pub struct WordStore {
    /// Each word: [`HEAD`] slots, then its room of symbols. On huge pages where the system
    /// offers them: with 4 KB pages, nearly every visit to a word also missed the address
    /// translation cache.
    buffer: HugeSlice<u32>,
    /// Where each word starts in `buffer`, by word id (ascending).
    places: Vec<u32>,
}

impl WordStore {
    /// The store of `words`, whose counts are `counts`.
    ///
    /// # Panics
    /// If the words need more than `u32::MAX` slots (a test helper; see [`Self::spell`]).
    pub fn from_words(words: &[Vec<u32>], counts: &[u64]) -> Self {
        let lens: Vec<u32> = words.iter().map(|w| w.len() as u32).collect();
        let mut store = Self::laid_out(&lens).expect("words fit in u32 places");
        for (wid, (word, &count)) in words.iter().zip(counts).enumerate() {
            let at = store.places[wid] as usize;
            write_word(&mut store.buffer[at..], count, word.iter().copied());
        }
        store
    }

    /// The store of `texts` (with their counts), each character spelled by `id_of`, filled on
    /// the pool; an error if the words need more than `u32::MAX` slots.
    pub fn spell(texts: &[(String, u64)], id_of: impl Fn(char) -> u32 + Sync) -> Result<Self> {
        /// Words spelled per task.
        const WORDS_PER_BLOCK: usize = 4096;
        let lens: Vec<u32> = texts
            .par_iter()
            .map(|(w, _)| w.chars().count() as u32)
            .collect();
        let mut store = Self::laid_out(&lens).ok_or_else(|| {
            Error::InvalidOption(format!(
                "the {} distinct words are too many characters to train BPE on ({} slots \
                 needed, at most {}); give less text",
                texts.len(),
                lens.iter().map(|&l| l as u64 + HEAD as u64).sum::<u64>(),
                u32::MAX
            ))
        })?;
        // Blocks of whole words, each its own stretch of the buffer.
        let mut blocks: Vec<TextBlock<'_>> = Vec::new();
        let mut rest: &mut [u32] = &mut store.buffer;
        for (b, block) in texts.chunks(WORDS_PER_BLOCK).enumerate() {
            let first = b * WORDS_PER_BLOCK;
            let from = store.places[first] as usize;
            let to = store
                .places
                .get(first + block.len())
                .map_or(from + rest.len(), |&p| p as usize);
            let (here, later) = std::mem::take(&mut rest).split_at_mut(to - from);
            blocks.push((block, here));
            rest = later;
        }
        blocks.into_par_iter().for_each(|(block, mut out)| {
            for (text, count) in block {
                let len = write_word(out, *count, text.chars().map(&id_of));
                out = &mut std::mem::take(&mut out)[HEAD + len..];
            }
        });
        Ok(store)
    }

    /// The places of words of `lens` symbols, and a buffer of zeros holding them; `None` if
    /// it would need more than `u32::MAX` slots.
    fn laid_out(lens: &[u32]) -> Option<Self> {
        let mut end = 0u64;
        let mut places = Vec::with_capacity(lens.len());
        for &len in lens {
            places.push(u32::try_from(end).ok()?);
            end += HEAD as u64 + u64::from(len);
        }
        u32::try_from(end).ok()?;
        Some(Self {
            buffer: HugeSlice::zeroed(end as usize),
            places,
        })
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Where word `wid` starts in the buffer: how the merges know it.
    pub fn place(&self, wid: usize) -> u32 {
        self.places[wid]
    }

    /// The symbols of word `wid`.
    pub fn word(&self, wid: usize) -> &[u32] {
        let at = self.places[wid] as usize;
        let len = self.buffer[at] as usize;
        &self.buffer[at + HEAD..at + HEAD + len]
    }

    /// The count of word `wid`.
    pub fn count(&self, wid: usize) -> u64 {
        let at = self.places[wid] as usize;
        count_of(&self.buffer[at..at + HEAD])
    }

    /// The words at `places` (ascending) in runs of `size` (the last may be shorter), each
    /// run holding its words mutably.
    pub fn parts<'a>(&'a mut self, places: &'a [u32], size: usize) -> Vec<Part<'a>> {
        debug_assert!(places.windows(2).all(|w| w[0] < w[1]), "places must ascend");
        let mut parts = Vec::with_capacity(places.len().div_ceil(size.max(1)));
        let mut rest: &mut [u32] = &mut self.buffer;
        // Where `rest` begins in the buffer.
        let mut origin = 0u32;
        let mut runs = places.chunks(size.max(1)).peekable();
        while let Some(run) = runs.next() {
            let start = run[0];
            // A run's stretch ends where the next one's starts, the last one's at the end.
            let stop = runs
                .peek()
                .map_or(origin as usize + rest.len(), |r| r[0] as usize);
            let (_, from_start) = std::mem::take(&mut rest).split_at_mut((start - origin) as usize);
            let (here, later) = from_start.split_at_mut(stop - start as usize);
            parts.push(Part {
                places: run,
                origin: start,
                buffer: here,
            });
            rest = later;
            origin = stop as u32;
        }
        parts
    }
}

/// Writes a word of count `count` and `symbols` at the start of `out`; its length.
fn write_word(out: &mut [u32], count: u64, symbols: impl Iterator<Item = u32>) -> usize {
    let (head, room) = out.split_at_mut(HEAD);
    let mut len = 0;
    for (slot, symbol) in room.iter_mut().zip(symbols) {
        *slot = symbol;
        len += 1;
    }
    head.copy_from_slice(&[len as u32, count as u32, (count >> 32) as u32]);
    len
}

/// The count in a word's head.
fn count_of(head: &[u32]) -> u64 {
    u64::from(head[1]) | (u64::from(head[2]) << 32)
}

/// A run of the words a merge visits, with their stretch of the buffer.
pub struct Part<'a> {
    places: &'a [u32],
    /// Where the stretch starts in the buffer.
    origin: u32,
    buffer: &'a mut [u32],
}

impl Part<'_> {
    /// Calls `each(place, word, count)` for each word of the run in order; it returns the
    /// word's new length (the word is `word[..returned]` from then on, at most its length).
    pub fn for_each(&mut self, mut each: impl FnMut(u32, &mut [u32], u64) -> usize) {
        let origin = self.origin;
        // A prefetch never faults, so the addresses need no bounds check (they are in
        // bounds anyway).
        let base = self.buffer.as_ptr();
        // A word's first slots and those a cache line on: most words start in one line and
        // end in the next.
        let fetch = |place: u32| {
            let at = base.wrapping_add((place - origin) as usize);
            prefetch(at);
            prefetch(at.wrapping_add(LINE_SLOTS - 1));
        };
        for &ahead in self.places.iter().take(FETCH_AHEAD) {
            fetch(ahead);
        }
        for (k, &place) in self.places.iter().enumerate() {
            if let Some(&ahead) = self.places.get(k + FETCH_AHEAD) {
                fetch(ahead);
            }
            let (head, room) = self.buffer[(place - origin) as usize..].split_at_mut(HEAD);
            let len = head[0] as usize;
            let kept = each(place, &mut room[..len], count_of(head));
            head[0] = kept.min(len) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_hold_their_words_and_changes_stay() {
        let words: Vec<Vec<u32>> = (0..50u32).map(|i| (0..i % 7).collect()).collect();
        // Counts above 32 bits too.
        let counts: Vec<u64> = (0..50).map(|i| (i as u64 * 3 + 1) << (i % 40)).collect();
        let mut store = WordStore::from_words(&words, &counts);
        let wids: Vec<usize> = (0..50).filter(|i| i % 3 != 1).collect();
        let places: Vec<u32> = wids.iter().map(|&w| store.place(w)).collect();
        let mut seen = Vec::new();
        for mut part in store.parts(&places, 4) {
            part.for_each(|place, word, count| {
                seen.push((place, word.to_vec(), count));
                // Each visited word loses its first symbol.
                if word.is_empty() {
                    return 0;
                }
                word.copy_within(1.., 0);
                word.len() - 1
            });
        }
        let want: Vec<(u32, Vec<u32>, u64)> = wids
            .iter()
            .zip(&places)
            .map(|(&w, &p)| (p, words[w].clone(), counts[w]))
            .collect();
        assert_eq!(seen, want);
        for (i, w) in words.iter().enumerate() {
            let kept = if i % 3 != 1 && !w.is_empty() {
                &w[1..]
            } else {
                &w[..]
            };
            assert_eq!(store.word(i), kept, "word {i}");
            assert_eq!(store.count(i), counts[i]);
        }
        // One run of every word: the look-ahead reaches across the whole run, up to an empty
        // last word.
        let mut words = words.clone();
        words.push(Vec::new());
        let counts: Vec<u64> = (0..words.len() as u64).collect();
        let mut store = WordStore::from_words(&words, &counts);
        let places: Vec<u32> = (0..words.len()).map(|w| store.place(w)).collect();
        let mut seen = Vec::new();
        for mut part in store.parts(&places, places.len()) {
            part.for_each(|place, word, count| {
                assert_eq!(word, &words[count as usize][..]);
                seen.push(place);
                word.len()
            });
        }
        assert_eq!(seen, places);
        let spelled =
            WordStore::spell(&[("ab".into(), 2), ("ba".into(), 1)], |c| c as u32).unwrap();
        assert_eq!((spelled.word(1), spelled.count(0)), (&[98, 97][..], 2));
        assert_eq!((spelled.place(1), spelled.len()), (5, 2));
    }
}
