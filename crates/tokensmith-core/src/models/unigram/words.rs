//! Words of a normalized SentencePiece text, and a per-thread cache of their segmentations.
//!
//! SentencePiece does not split text into words before its model runs, but the usual models
//! (trained with `split_by_whitespace`) have no piece that crosses a word boundary: `▁` only
//! starts a piece (or ends one, with `treat_whitespace_as_suffix`). Then no merge (BPE) and no
//! lattice node (Unigram) crosses the boundary, and the model can segment word by word and
//! remember each word's answer. [`WordSplit::for_pieces`] checks that condition on a model's
//! pieces; without it a model segments the whole text as before.
//!
//! A boundary is where a `▁` follows a character that is not `▁` (prefix mode: runs of `▁`,
//! as `▁▁▁` pieces make them, stay at the start of the next word), or, in suffix mode, where
//! a character that is not `▁` follows a `▁`.
//!
//! >>> "▁Hello▁▁world" -> ["▁Hello", "▁▁world"] (prefix mode)
//!
//! The cache is two-way set-associative (a word sits in either slot of a pair; a new word
//! pushes out the older of the two), one table per model per
//! thread, so that lookups take no lock; a thread keeps tables for its last
//! [`TABLES_PER_THREAD`] models. Words over [`MAX_WORD`] bytes or of more than [`MAX_PIECES`]
//! pieces are not cached.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::model::Span;

/// The whitespace mark as UTF-8.
const MARK: &[u8] = "\u{2581}".as_bytes();
/// The longest word (in bytes) a slot holds: 20 two-byte or 13 three-byte characters, so that
/// most words of Cyrillic, Greek or Arabic text and short runs of CJK text fit.
pub const MAX_WORD: usize = 8 * KEY_WORDS;
/// The key of a slot, in 8-byte words.
const KEY_WORDS: usize = 5;
/// The most pieces a slot holds (a word that an English model spells out in single letters
/// has many).
pub const MAX_PIECES: usize = 14;
/// Slots per table (a power of two): 32,768 slots of 128 bytes, 4 MiB.
const SLOTS: usize = 32768;
/// Models a thread keeps tables for.
const TABLES_PER_THREAD: usize = 4;

/// Where words begin and end in a normalized text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordSplit {
    /// A word ends before a `▁` that follows another character.
    Prefix,
    /// A word ends after a `▁` that another character follows.
    Suffix,
}

impl WordSplit {
    /// The split that no piece crosses, if any: prefix mode when no piece has a `▁` right
    /// after another character, else suffix mode when no piece has a `▁` right before one.
    ///
    /// ```
    /// use tokensmith_core::models::unigram::WordSplit;
    /// assert_eq!(WordSplit::for_pieces(["▁a", "▁▁", "b"].into_iter()), Some(WordSplit::Prefix));
    /// assert_eq!(WordSplit::for_pieces(["a▁", "b"].into_iter()), Some(WordSplit::Suffix));
    /// assert_eq!(WordSplit::for_pieces(["a▁b"].into_iter()), None);
    /// ```
    pub fn for_pieces<'a>(pieces: impl Iterator<Item = &'a str> + Clone) -> Option<Self> {
        let crosses = |mark_after: bool| {
            pieces.clone().any(|p| {
                let mut prev: Option<bool> = None;
                p.chars().any(|c| {
                    let is_mark = c == '\u{2581}';
                    let hit = match prev {
                        Some(prev_mark) if mark_after => is_mark && !prev_mark,
                        Some(prev_mark) => prev_mark && !is_mark,
                        None => false,
                    };
                    prev = Some(is_mark);
                    hit
                })
            })
        };
        if !crosses(true) {
            Some(Self::Prefix)
        } else if !crosses(false) {
            Some(Self::Suffix)
        } else {
            None
        }
    }

    /// Calls `f(start, end)` for each word of `text`, in order (the words cover the text);
    /// stops early, returning `false`, when `f` does.
    #[inline]
    pub fn for_each_word(self, text: &[u8], mut f: impl FnMut(usize, usize) -> bool) -> bool {
        let is_mark = |i: usize| text.get(i..i + 3) == Some(MARK);
        let mut start = 0;
        let mut i = 0;
        match self {
            Self::Prefix => {
                while i < text.len() {
                    // The mark's first byte (0xE2) starts no other character of a word end.
                    if text[i] == MARK[0] && is_mark(i) {
                        if i > start && !(i >= 3 && is_mark(i - 3)) {
                            if !f(start, i) {
                                return false;
                            }
                            start = i;
                        }
                        i += 3;
                    } else {
                        i = next_lead(text, i + 1);
                    }
                }
            }
            Self::Suffix => {
                while i < text.len() {
                    if text[i] == MARK[0] && is_mark(i) {
                        i += 3;
                        if i < text.len() && !is_mark(i) {
                            if !f(start, i) {
                                return false;
                            }
                            start = i;
                        }
                    } else {
                        i = next_lead(text, i + 1);
                    }
                }
            }
        }
        start == text.len() || f(start, text.len())
    }
}

/// The first position from `i` on that holds the mark's first byte (0xE2), or the text's
/// length; tests eight bytes at a time, since most text between marks is ASCII.
#[inline]
fn next_lead(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(eight) = text.get(i..i + 8) {
        let v = u64::from_le_bytes(eight.try_into().unwrap_or_default()) ^ (ONES * 0xE2);
        // Nonzero exactly when some byte of `v` is zero, that is, some byte is 0xE2.
        if v.wrapping_sub(ONES) & !v & (ONES * 0x80) != 0 {
            break;
        }
        i += 8;
    }
    while i < text.len() && text[i] != MARK[0] {
        i += 1;
    }
    i.min(text.len())
}

/// One cached word: its key, its pieces' ends and ids, and the Unigram margin.
#[derive(Clone, Copy, Default)]
#[repr(align(128))]
struct Slot {
    key: [u64; KEY_WORDS],
    /// Word length in bytes; 0 marks an empty slot.
    len: u8,
    pieces: u8,
    ends: [u8; MAX_PIECES],
    ids: [u32; MAX_PIECES],
    margin: f32,
}

/// The cached segmentation of one word: piece ends (bytes into the word) and ids.
pub struct Cached<'a> {
    pub ends: &'a [u8],
    pub ids: &'a [u32],
    /// The smallest winning margin of the Viterbi decisions on the path (Unigram; infinite
    /// for BPE).
    pub margin: f32,
}

/// One model's table on this thread.
pub struct WordCache {
    slots: Box<[Slot]>,
}

/// A new tag for a model's tables; tags are never reused.
pub fn new_tag() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

thread_local! {
    static TABLES: RefCell<Vec<(u64, WordCache)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's table for the model tagged `tag` (made on first use); `None`
/// when the table is already in use on this thread (a re-entrant call).
pub fn with_cache<R>(tag: u64, f: impl FnOnce(&mut WordCache) -> R) -> Option<R> {
    TABLES.with(|cell| {
        let mut tables = cell.try_borrow_mut().ok()?;
        let at = match tables.iter().position(|(t, _)| *t == tag) {
            Some(at) => at,
            None => {
                if tables.len() == TABLES_PER_THREAD {
                    tables.remove(0);
                }
                tables.push((
                    tag,
                    WordCache {
                        slots: vec![Slot::default(); SLOTS].into_boxed_slice(),
                    },
                ));
                tables.len() - 1
            }
        };
        Some(f(&mut tables[at].1))
    })
}

/// The word `text[start..end]` (at most [`MAX_WORD`] bytes) as [`KEY_WORDS`] little-endian words,
/// zero-padded, and its slot index. Reads eight bytes at a time from the text where it has
/// them, rather than copying the word.
#[inline]
fn key_of(text: &[u8], start: usize, end: usize) -> ([u64; KEY_WORDS], usize) {
    let len = end - start;
    let mut key = [0u64; KEY_WORDS];
    let mut hash = len as u64;
    for (k, slot) in key.iter_mut().enumerate() {
        let from = start + 8 * k;
        if from >= end {
            break;
        }
        let word = match text.get(from..from + 8) {
            Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or_default()),
            None => {
                let mut eight = [0u8; 8];
                eight[..text.len() - from].copy_from_slice(&text[from..]);
                u64::from_le_bytes(eight)
            }
        };
        let keep = end - from;
        *slot = if keep >= 8 {
            word
        } else {
            word & ((1u64 << (8 * keep)) - 1)
        };
        hash ^= slot.rotate_left(21 * k as u32);
    }
    let mixed = hash.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (key, (mixed >> 40) as usize & (SLOTS - 1))
}

impl WordCache {
    /// The cached segmentation of the word `text[start..end]`, if present.
    #[inline]
    pub fn get(&self, text: &[u8], start: usize, end: usize) -> Option<Cached<'_>> {
        if end - start > MAX_WORD {
            return None;
        }
        let (key, index) = key_of(text, start, end);
        let len = end - start;
        let slot = [index, index ^ 1]
            .into_iter()
            .map(|i| &self.slots[i])
            .find(|slot| usize::from(slot.len) == len && slot.key == key)?;
        Some(Cached {
            ends: &slot.ends[..usize::from(slot.pieces)],
            ids: &slot.ids[..usize::from(slot.pieces)],
            margin: slot.margin,
        })
    }

    /// Remembers the segmentation of `word` given as spans relative to the word's start;
    /// ignored when the word or the segmentation is too long for a slot.
    pub fn put(&mut self, word: &[u8], spans: &[Span], margin: f32) {
        if word.is_empty() || word.len() > MAX_WORD || spans.len() > MAX_PIECES {
            return;
        }
        let (key, index) = key_of(word, 0, word.len());
        let mut slot = Slot {
            key,
            len: word.len() as u8,
            pieces: spans.len() as u8,
            margin,
            ..Slot::default()
        };
        for (i, &(_, end, id)) in spans.iter().enumerate() {
            slot.ends[i] = end as u8;
            slot.ids[i] = id;
        }
        // Two ways: a word may sit in either slot of its pair; the new word takes its own slot
        // and the word there moves to the other one, pushing out what that one held.
        if self.slots[index].len != 0 {
            self.slots[index ^ 1] = self.slots[index];
        }
        self.slots[index] = slot;
    }
}

/// Appends a cached word at byte `offset` of the text to `out` as spans.
#[inline]
pub fn push_cached(hit: &Cached<'_>, offset: usize, out: &mut Vec<Span>) {
    let mut start = offset;
    for (&end, &id) in hit.ends.iter().zip(hit.ids) {
        let end = offset + usize::from(end);
        out.push((start, end, id));
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(split: WordSplit, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        split.for_each_word(text.as_bytes(), |s, e| {
            out.push(&text[s..e]);
            true
        });
        out
    }

    #[test]
    fn splits_before_or_after_marks() {
        let t = "▁Hello▁▁world▁";
        assert_eq!(words(WordSplit::Prefix, t), ["▁Hello", "▁▁world", "▁"]);
        assert_eq!(words(WordSplit::Suffix, t), ["▁", "Hello▁▁", "world▁"]);
        assert_eq!(words(WordSplit::Prefix, "ab"), ["ab"]);
        assert_eq!(words(WordSplit::Prefix, ""), Vec::<&str>::new());
        assert_eq!(words(WordSplit::Suffix, "a▁b"), ["a▁", "b"]);
    }

    /// The eight-at-a-time scan finds the same position as a plain scan, wherever the lead
    /// byte sits and whatever bytes surround it.
    #[test]
    fn next_lead_matches_a_plain_scan() {
        let mut rng = super::super::sample::SplitMix64::new(3);
        for _ in 0..2000 {
            let len = (rng.next_u64() % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| match rng.next_u64() % 6 {
                    0 => MARK[0],
                    1 => 0xE1,
                    2 => 0x62,
                    _ => (rng.next_u64() % 256) as u8,
                })
                .collect();
            for from in 0..=len {
                let want = (from..len).find(|&i| text[i] == MARK[0]).unwrap_or(len);
                assert_eq!(next_lead(&text, from), want, "{text:?} from {from}");
            }
        }
    }

    #[test]
    fn cache_round_trip_and_collisions_replace() {
        let tag = new_tag();
        let got = with_cache(tag, |c| {
            c.put(b"\xe2\x96\x81ab", &[(0, 3, 7), (3, 5, 9)], 1.5);
            let text = b"\xe2\x96\x81ab\xe2\x96\x81ac";
            let hit = c.get(text, 0, 5).map(|h| (h.ends.to_vec(), h.ids.to_vec()));
            let miss = c.get(text, 5, 10).is_some();
            (hit, miss)
        });
        assert_eq!(got, Some((Some((vec![3, 5], vec![7, 9])), false)));
        // Too long to cache: not stored.
        let long = [b'a'; MAX_WORD + 1];
        let stored = with_cache(tag, |c| {
            c.put(&long, &[(0, long.len(), 1)], 0.0);
            c.get(&long, 0, MAX_WORD).is_some()
        });
        assert_eq!(stored, Some(false));
    }
}
