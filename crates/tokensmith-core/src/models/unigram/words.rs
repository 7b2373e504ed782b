//! A per-thread cache of the segmentations of words (see [`WordSplit`] for where words are and
//! why a model may segment them one by one).
//!
//! The cache is larger than the CPU's caches, so a lookup usually waits for memory; it is laid
//! out so that a hit costs one cache line and so that the lines of a text's words load in
//! parallel:
//! - most words are short: a word of at most [`SHORT_WORD`] bytes and [`SHORT_PIECES`] pieces
//!   ([`NARROW_PIECES`] when its ids are below 2^16) takes one 64-byte slot, key, ids (three bytes each: a word with an id of 2^24 or more is
//!   not cached) and ends together, in a set of four slots on aligned lines;
//! - longer words (up to [`MAX_WORD`] bytes and [`MAX_PIECES`] pieces) take a 128-byte slot of
//!   a smaller second table, laid out the same way; a short word with too many pieces leaves
//!   a pointer to it (its key with no pieces) in the short table;
//! - a set keeps its words in order of last use: a hit moves its word first, and a new word
//!   takes the place of the least recently used one, last, until a hit moves it up. Were new
//!   words put first, a set with one word too many among words that come back in turn (a
//!   text read again, or any five words that recur in the same order) would lose each word
//!   just before it comes back, and miss on every one of them; entering last, they only
//!   take turns in the last way, and a word used once leaves before any word used twice.
//!   On the benchmark's mix of English, multilingual and Japanese text (26,000 distinct
//!   words a megabyte), sets of two 64-byte slots re-segmented 14% of the words every
//!   pass, sets of four 2.8%; on its 0.75 MB of lines (80,559 words), new words put last
//!   instead of first cut the words re-segmented every pass (words over [`MAX_WORD`] bytes
//!   aside) from 2.5% to 1.4% (English model) and from 6.9% to 4.3% (Japanese model);
//! - [`WordCache::for_each_word`] finds the words of a text [`AHEAD`] at a time and prefetches
//!   their sets before it looks them up.
//!
//! One cache per model per thread, so that lookups take no lock; a thread keeps caches for its
//! last [`TABLES_PER_THREAD`] models, and frees a dropped model's at its next lookup
//! ([`crate::thread_tables`]).
//! Longer words are not cached. A cache starts with 6 MiB of
//! tables and doubles them, up to 24 MiB, when it keeps missing words it had to let go (a
//! diverse text, or one read again, whose words do not fit: see [`growth`]). The tables are
//! zeroed memory from the system, on huge pages where it offers them.

use std::cell::{Cell, RefCell};

use super::model::Span;
use super::word_split::WordSplit;
use crate::models::bpe::huge::{HugeSlice, Zeroable};
use crate::models::bpe::prefetch;
use crate::text_index::HASH_MUL;
use crate::thread_tables::table_for;
#[cfg(test)]
use crate::thread_tables::{new_tag, CacheTag};
use growth::Growth;
#[cfg(test)]
pub(crate) use growth::{double_this_threads_tables, MAX_DOUBLINGS};
use slot::{id_in, narrow_id_in, write_pieces, Keyed, LongSet, Set, ShortSet};
pub use slot::{LongSlot, ShortSlot};
use slot::{LONG_ENDS, NARROW_ENDS, SHORT_ENDS};

/// The longest word (in bytes) the cache holds: 20 two-byte or 13 three-byte characters, so
/// that most words of Cyrillic, Greek or Arabic text and short runs of CJK text fit.
pub const MAX_WORD: usize = 8 * LONG_KEY;
/// The key of a long slot, in 8-byte words.
const LONG_KEY: usize = 5;
/// The most pieces a word may have to be cached (a word that a model spells out in single
/// letters has many: an English word under the Japanese 8k model, say). Under that model,
/// 611 of the benchmark mix's 80,559 words had too many to be cached with a limit of 14,
/// and 129 with 20. Twenty three-byte ids and their ends fill a long slot.
pub const MAX_PIECES: usize = 20;
/// The key of a short slot, in 8-byte words.
const SHORT_KEY: usize = 3;
/// The longest word a short slot holds.
pub const SHORT_WORD: usize = 8 * SHORT_KEY;
/// The most pieces a short slot holds with three-byte ids.
pub const SHORT_PIECES: usize = 8;
/// The most pieces a short slot holds when every id is below 2^16 (two bytes each): an
/// English word spelled in 9 or 10 pieces under the Japanese 8k model then needs no second
/// lookup in the long table (4,800 of the benchmark mix's 80,559 words did).
pub const NARROW_PIECES: usize = 10;
/// Ids a narrow short slot holds.
const NARROW_ID_LIMIT: u32 = 1 << 16;
/// Ids a slot holds (three bytes each); a word with a larger id is not cached.
const ID_LIMIT: u32 = 1 << 24;
/// The `pieces` of a short slot whose word is in the long table.
const IN_LONG: u8 = u8::MAX;
/// Sets of the short table when a cache starts (a power of two) and slots per set: 16,384
/// sets of four 64-byte slots, 4 MiB. The tables double when they prove too small
/// ([`growth`]).
const SHORT_SETS: usize = 16384;
const SHORT_WAYS: usize = 4;
/// Sets of the long table (a power of two) and slots per set: 4,096 sets of four 128-byte
/// slots, 2 MiB (with 2,048 sets, the Japanese model's letter-by-letter spellings of
/// English words filled it: 2,250 of the benchmark mix's 80,559 words re-segmented every
/// pass, against 1,000 with 4,096). It doubles with the short table.
const LONG_SETS: usize = 4096;
const LONG_WAYS: usize = 4;
/// Models a thread keeps tables for.
const TABLES_PER_THREAD: usize = 4;
/// How many words [`WordCache::for_each_word`] finds and prefetches before it looks them up.
pub const AHEAD: usize = 16;

/// The cached segmentation of one word.
pub enum Cached<'a> {
    Short(&'a ShortSlot),
    Long(&'a LongSlot),
}

impl Cached<'_> {
    /// The smallest winning margin of the Viterbi decisions on the path (Unigram; infinite
    /// for BPE).
    #[inline]
    pub fn margin(&self) -> f32 {
        match self {
            Self::Short(s) => s.margin,
            Self::Long(s) => s.margin,
        }
    }

    /// Appends the word's ids to `out`; returns whether one of them is `unk`.
    #[inline(always)]
    pub fn push_ids(&self, out: &mut Vec<u32>, unk: u32) -> bool {
        let mut has_unk = false;
        // Ranges mapped to ids have an exact length: `extend` reserves once.
        match self {
            // One loop per format, so that the format is not tested per piece.
            Self::Short(slot) if slot.narrow => {
                let n = usize::from(slot.pieces).min(NARROW_PIECES);
                out.extend((0..n).map(|i| {
                    let id = narrow_id_in(&slot.pieces_data, i);
                    has_unk |= id == unk;
                    id
                }));
            }
            Self::Short(slot) => {
                let n = usize::from(slot.pieces).min(SHORT_PIECES);
                out.extend((0..n).map(|i| {
                    let id = id_in(&slot.pieces_data, i);
                    has_unk |= id == unk;
                    id
                }));
            }
            Self::Long(slot) => {
                let n = usize::from(slot.pieces).min(MAX_PIECES);
                out.extend((0..n).map(|i| {
                    let id = slot.id(i);
                    has_unk |= id == unk;
                    id
                }));
            }
        }
        has_unk
    }

    /// Calls `f(end, id)` for each of the word's pieces in order, ends in bytes into the word.
    #[inline]
    pub fn for_each_piece(&self, mut f: impl FnMut(usize, u32)) {
        match self {
            Self::Short(slot) => {
                (0..slot.count()).for_each(|i| f(usize::from(slot.end(i)), slot.id(i)));
            }
            Self::Long(slot) => {
                let n = usize::from(slot.pieces).min(MAX_PIECES);
                (0..n).for_each(|i| f(usize::from(slot.end(i)), slot.id(i)));
            }
        }
    }

    /// The word's pieces as `(end, id)`, ends in bytes into the word.
    #[cfg(test)]
    pub fn pieces(&self) -> Vec<(usize, u32)> {
        let mut spans = Vec::new();
        push_cached(self, 0, &mut spans);
        spans.iter().map(|&(_, end, id)| (end, id)).collect()
    }
}

/// A word of a text, with its key and hash computed once (see [`WordCache::for_each_word`]).
#[derive(Clone, Copy, Default)]
pub struct Probe {
    pub start: usize,
    pub end: usize,
    key: [u64; LONG_KEY],
    hash: u64,
}

impl Probe {
    /// The word `text[start..end]`; a word over [`MAX_WORD`] bytes gets no key (it is never
    /// cached).
    #[inline(always)]
    pub fn new(text: &[u8], start: usize, end: usize) -> Self {
        let (key, hash) = if end - start <= MAX_WORD {
            key_of(text, start, end)
        } else {
            ([0; LONG_KEY], 0)
        };
        Self {
            start,
            end,
            key,
            hash,
        }
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.end - self.start
    }

    /// The word's set in a short table of `sets` sets (a power of two).
    #[inline(always)]
    fn short_set(&self, sets: usize) -> usize {
        short_set_of(self.hash, sets)
    }

    /// The word's set in a long table of `sets` sets (a power of two).
    #[inline(always)]
    fn long_set(&self, sets: usize) -> usize {
        long_set_of(self.hash, sets)
    }
}

/// The set of a word with this hash in a short table of `sets` sets (a power of two).
#[inline(always)]
fn short_set_of(hash: u64, sets: usize) -> usize {
    (hash >> 40) as usize & (sets - 1)
}

/// The set of a word with this hash in a long table of `sets` sets (a power of two).
#[inline(always)]
fn long_set_of(hash: u64, sets: usize) -> usize {
    (hash >> 20) as usize & (sets - 1)
}

/// The set at `at` of a table, where `at` is masked to the table's length, a power of two
/// ([`short_set_of`], [`long_set_of`]): without the bounds check, which the lookup and the
/// prefetch would otherwise make for every word (1.6% of the instructions of the
/// `encode_spm.py` mix, where nearly every word is a hit).
#[inline(always)]
fn set_at<S: Copy>(table: &HugeSlice<S>, at: usize) -> &S {
    debug_assert!(table.len().is_power_of_two() && at < table.len());
    // SAFETY: the tables have a power-of-two length and `at` was masked with `len - 1`.
    unsafe { table.get_unchecked(at) }
}

/// [`set_at`], to change the set.
#[inline(always)]
fn set_at_mut<S: Copy>(table: &mut HugeSlice<S>, at: usize) -> &mut S {
    debug_assert!(table.len().is_power_of_two() && at < table.len());
    // SAFETY: as in `set_at`.
    unsafe { table.get_unchecked_mut(at) }
}

/// One model's tables on this thread.
pub struct WordCache {
    /// Tables of a power of two sets each, zero (empty) until used.
    short: HugeSlice<ShortSet>,
    long: HugeSlice<LongSet>,
    /// When the tables double.
    growth: Growth,
    /// The words [`Self::for_each_word`] has found and not yet handed on, kept between calls
    /// so that a call fills no fresh buffer.
    batch: Vec<Probe>,
}

thread_local! {
    static TABLES: RefCell<Vec<(u64, WordCache)>> = const { RefCell::new(Vec::new()) };
    /// How many dropped models this thread has let go of (see [`crate::thread_tables`]).
    static GONE_SEEN: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with this thread's table for the model tagged `tag` (made on first use); `None`
/// when the table is already in use on this thread (a re-entrant call).
pub fn with_cache<R>(tag: u64, f: impl FnOnce(&mut WordCache) -> R) -> Option<R> {
    TABLES.with(|cell| {
        let mut tables = cell.try_borrow_mut().ok()?;
        let table = GONE_SEEN
            .with(|seen| table_for(&mut tables, seen, tag, TABLES_PER_THREAD, WordCache::new));
        Some(f(table))
    })
}

/// The word `text[start..end]` (at most [`MAX_WORD`] bytes) as [`LONG_KEY`] little-endian
/// words, zero-padded, and its hash. Reads eight bytes at a time from the text, rather than
/// copying the word.
#[inline(always)]
fn key_of(text: &[u8], start: usize, end: usize) -> ([u64; LONG_KEY], u64) {
    let len = end - start;
    let mut key = [0u64; LONG_KEY];
    if len <= 8 {
        // Most words: one load (the hash is the general one's with four zero words).
        key[0] = eight_bytes_at(text, start) & (u64::MAX >> (64 - 8 * len.max(1)));
        return (key, finish_hash(len as u64 ^ key[0]));
    }
    let words = len.div_ceil(8).min(LONG_KEY);
    for (k, slot) in key.iter_mut().enumerate().take(words) {
        *slot = eight_bytes_at(text, start + 8 * k);
    }
    if let Some(last) = words.checked_sub(1) {
        // Only the bytes of the word: 1 to 8 in the last word.
        let keep = len - 8 * last;
        key[last] &= u64::MAX >> (64 - 8 * keep);
    }
    (key, hash_of(len as u8, &key))
}

/// The hash of the word of `len` bytes with this zero-padded key (as [`key_of`] makes it);
/// a key of one word hashes to `finish_hash(len ^ key[0])`.
#[inline(always)]
fn hash_of(len: u8, key: &[u64; LONG_KEY]) -> u64 {
    let mut hash = u64::from(len);
    for (k, &word) in key.iter().enumerate() {
        hash ^= word.rotate_left(21 * k as u32);
    }
    finish_hash(hash)
}

/// Spreads every bit of `x` into the hash's high bits (the sets' index) and middle bits (the
/// filter of [`growth`]): the high half is folded onto the low half before the multiply,
/// whose bit `i` depends only on the bits of its input up to `i`. Without the fold, words
/// that differ only in their eighth byte (or the third digit of "again123456" and its
/// neighbours) shared a set, and words that differ only past their fifth byte shared a
/// filter bit.
#[inline(always)]
fn finish_hash(x: u64) -> u64 {
    (x ^ (x >> 32)).wrapping_mul(HASH_MUL)
}

/// The eight bytes of `text` from `from` (below the text's length) as a little-endian word,
/// zero past the text's end.
#[inline(always)]
fn eight_bytes_at(text: &[u8], from: usize) -> u64 {
    if let Some(eight) = text.get(from..from + 8) {
        return u64::from_le_bytes(eight.try_into().unwrap_or_default());
    }
    let tail = text.len() - from;
    match text.len().checked_sub(8) {
        // The last eight bytes of the text, shifted so that `from` comes first.
        Some(last) => {
            let eight = u64::from_le_bytes(text[last..].try_into().unwrap_or_default());
            eight >> (8 * (8 - tail))
        }
        // A text of under eight bytes: two overlapping loads, no copy through the stack (a
        // `memcpy` of a variable length, read back at once, stalls on every short text).
        None => short_tail(&text[from..]),
    }
}

/// The bytes of `tail` (1 to 7 of them) as a little-endian word, zero past its end.
#[inline(always)]
fn short_tail(tail: &[u8]) -> u64 {
    let n = tail.len();
    if n >= 4 {
        let first = u32::from_le_bytes(tail[..4].try_into().unwrap_or_default());
        let last = u32::from_le_bytes(tail[n - 4..].try_into().unwrap_or_default());
        u64::from(first) | u64::from(last) << (8 * (n - 4))
    } else {
        let (first, middle, last) = (tail[0], tail[n / 2], tail[n - 1]);
        u64::from(first) | u64::from(middle) << (8 * (n / 2)) | u64::from(last) << (8 * (n - 1))
    }
}

impl WordCache {
    fn new() -> Self {
        Self {
            short: HugeSlice::zeroed(SHORT_SETS),
            long: HugeSlice::zeroed(LONG_SETS),
            growth: Growth::new(),
            batch: Vec::with_capacity(AHEAD),
        }
    }

    /// Starts loading the lines a lookup of `probe` reads.
    #[inline(always)]
    pub fn prefetch(&self, probe: &Probe) {
        let len = probe.len();
        if len <= SHORT_WORD {
            for slot in &set_at(&self.short, probe.short_set(self.short.len())).ways {
                prefetch(slot);
            }
        } else if len <= MAX_WORD {
            for slot in &set_at(&self.long, probe.long_set(self.long.len())).ways {
                prefetch(slot);
                prefetch((slot as *const LongSlot).cast::<u8>().wrapping_add(64));
            }
        }
    }

    /// The cached segmentation of the word of `probe`, if present.
    #[inline(always)]
    pub fn find(&mut self, probe: &Probe) -> Option<Cached<'_>> {
        let len = probe.len();
        if len <= SHORT_WORD {
            let at = probe.short_set(self.short.len());
            let short = set_at_mut(&mut self.short, at);
            let slot = short.find(len as u8, &probe.key)?;
            if slot.pieces != IN_LONG {
                return Some(Cached::Short(slot));
            }
        } else if len > MAX_WORD {
            return None;
        }
        let at = probe.long_set(self.long.len());
        let slot = set_at_mut(&mut self.long, at).find(len as u8, &probe.key)?;
        Some(Cached::Long(slot))
    }

    /// The cached segmentation of the word `text[start..end]`, if present (tests; the
    /// encoders look words up through [`Self::for_each_word`]).
    #[cfg(test)]
    pub fn get(&mut self, text: &[u8], start: usize, end: usize) -> Option<Cached<'_>> {
        self.find(&Probe::new(text, start, end))
    }

    /// Calls `f(self, word)` for each word of `text` in order, as [`WordSplit::for_each_word`]
    /// finds them; stops early, returning `false`, when `f` does. Words are found [`AHEAD`]
    /// at a time, and their slots prefetched, before `f` sees the first of them, so that the
    /// misses of a batch overlap.
    #[inline]
    pub fn for_each_word(
        &mut self,
        split: WordSplit,
        text: &[u8],
        mut f: impl FnMut(&mut Self, &Probe) -> bool,
    ) -> bool {
        let mut batch = std::mem::take(&mut self.batch);
        let mut start = 0;
        let mut finished = true;
        while finished && start < text.len() {
            batch.clear();
            while batch.len() < AHEAD && start < text.len() {
                let end = split.word_end(text, start);
                let probe = Probe::new(text, start, end);
                self.prefetch(&probe);
                batch.push(probe);
                start = end;
            }
            finished = batch.iter().all(|probe| f(self, probe));
        }
        self.batch = batch;
        finished
    }

    /// Remembers the segmentation of `word` given as spans relative to the word's start;
    /// ignored when the word or the segmentation is too long for a slot (tests; the encoders
    /// use [`Self::put_probe`]).
    #[cfg(test)]
    pub fn put(&mut self, word: &[u8], spans: &[Span], margin: f32) {
        self.put_probe(&Probe::new(word, 0, word.len()), spans, margin);
    }

    /// [`Self::put`] for the word of `probe` (its text is not needed again). A put follows a
    /// miss, so this is also where the cache counts how often it missed a word it had to let
    /// go ([`Growth`]), and doubles its tables when that is often.
    pub fn put_probe(&mut self, probe: &Probe, spans: &[Span], margin: f32) {
        let len = probe.len();
        if len == 0
            || len > MAX_WORD
            || spans.len() > MAX_PIECES
            || spans.iter().any(|&(_, _, id)| id >= ID_LIMIT)
        {
            return;
        }
        let grow = self
            .growth
            .count_put(probe.hash, self.short.len() * SHORT_WAYS);
        self.store(probe, spans, margin);
        if grow {
            self.grow();
        }
    }

    /// Stores a word that fits (see [`Self::put_probe`]), noting the words that leave.
    fn store(&mut self, probe: &Probe, spans: &[Span], margin: f32) {
        let len = probe.len();
        let narrow = spans.iter().all(|&(_, _, id)| id < NARROW_ID_LIMIT);
        let fits_short = spans.len() <= if narrow { NARROW_PIECES } else { SHORT_PIECES };
        if len <= SHORT_WORD {
            let mut slot = ShortSlot {
                len: len as u8,
                pieces: IN_LONG,
                margin,
                ..ShortSlot::default()
            };
            slot.key.copy_from_slice(&probe.key[..SHORT_KEY]);
            if fits_short {
                slot.pieces = spans.len() as u8;
                slot.narrow = narrow;
                if narrow {
                    for (i, &(_, end, id)) in spans.iter().enumerate() {
                        slot.pieces_data[NARROW_ENDS + i] = end as u8;
                        slot.pieces_data[2 * i..2 * i + 2].copy_from_slice(&id.to_le_bytes()[..2]);
                    }
                } else {
                    write_pieces(&mut slot.pieces_data, SHORT_ENDS, spans);
                }
            }
            let at = probe.short_set(self.short.len());
            let set = &mut self.short[at];
            if let Some(old) = set.insert(slot, len as u8, &probe.key) {
                self.growth.note_evicted(&old);
            }
            if fits_short {
                return;
            }
        }
        let mut slot = LongSlot {
            key: probe.key,
            len: len as u8,
            pieces: spans.len() as u8,
            margin,
            ..LongSlot::default()
        };
        write_pieces(&mut slot.pieces_data, LONG_ENDS, spans);
        let at = probe.long_set(self.long.len());
        let set = &mut self.long[at];
        if let Some(old) = set.insert(slot, len as u8, &probe.key) {
            self.growth.note_evicted(&old);
        }
    }
}

/// Appends a cached word at byte `offset` of the text to `out` as spans.
#[inline]
pub fn push_cached(hit: &Cached<'_>, offset: usize, out: &mut Vec<Span>) {
    let mut start = offset;
    let mut span = |end: u8, id: u32| {
        let end = offset + usize::from(end);
        let span = (start, end, id);
        start = end;
        span
    };
    // Ranges mapped to spans have an exact length: `extend` reserves once.
    match hit {
        Cached::Short(slot) => {
            out.extend((0..slot.count()).map(|i| span(slot.end(i), slot.id(i))));
        }
        Cached::Long(slot) => {
            let n = usize::from(slot.pieces).min(MAX_PIECES);
            out.extend((0..n).map(|i| span(slot.end(i), slot.id(i))));
        }
    }
}

mod growth;
mod slot;
#[cfg(test)]
mod tests;
