//! The SentencePiece BPE encoder: a linked list of symbols and a heap of candidate merges, where
//! every symbol is an id and every candidate one lookup in a table of id pairs.
//!
//! Symbol ids: a symbol is always a piece (anything merged is one) or a single character (what
//! the text starts as). A piece's symbol id is its piece id; a character that is no piece but
//! is half of some piece gets an id past the pieces; any other character gets [`NONE`] and can
//! never merge. The pair table maps `(left, right)` symbol ids to the piece their texts
//! concatenate to, for every way of cutting every piece in two at a character boundary.

use std::cell::RefCell;
use std::collections::BinaryHeap;

use super::pair_table::{Merge, PairTable};
use crate::text_index::{self, TextIndex};

use rustc_hash::FxHashMap;

use crate::formats::sentencepiece_model::PieceType;
use crate::models::sentencepiece_parts::UserSymbols;
use crate::models::unigram::words::{self, Cached, MAX_WORD};
use crate::models::unigram::WordSplit;
use crate::models::unigram::{Span, SplitMix64};
use crate::scratch::release_if_large;
use crate::thread_tables::CacheTag;

/// The symbol id of a character that is in no piece.
const NONE: u32 = u32::MAX;

/// A SentencePiece BPE model.
#[derive(Debug, Clone)]
pub struct SentencePieceBpe {
    /// USER_DEFINED pieces by text: the first id of the text among the NORMAL,
    /// USER_DEFINED and UNUSED pieces (which a match in [`Self::user_defined`] becomes).
    user_defined_ids: FxHashMap<String, u32>,
    /// Per symbol id: its length in bytes and whether it is an UNUSED piece.
    info: Vec<(u32, bool)>,
    /// Symbol ids of ASCII characters, and of the other characters.
    ascii: Box<[u32; 128]>,
    chars: FxHashMap<char, u32>,
    /// Symbol id pairs -> the piece they merge into and its rank.
    pairs: PairTable,
    /// Piece ids are below this; character-only symbols and [`NONE`] are not.
    piece_count: u32,
    /// Tells this model's entries in a thread's word cache from other models'
    /// (never 0; shared by every SentencePiece model kind).
    cache_tag: std::sync::Arc<CacheTag>,
    has_unused: bool,
    unk_id: u32,
    /// User-defined symbols: each match becomes one symbol that never merges.
    user_defined: UserSymbols,
    /// How words split when no piece crosses a word boundary and no UNUSED piece exists (see
    /// [`SentencePieceBpe::encode_into`]).
    split: Option<WordSplit>,
}

/// One symbol of the text being merged; merged-away symbols keep `len == 0`.
#[derive(Debug, Clone, Copy)]
struct Symbol {
    start: usize,
    len: usize,
    prev: u32,
    next: u32,
    id: u32,
    freeze: bool,
    /// The piece the pair of this symbol and the next makes (see [`Scratch::pairs`]).
    merged: u32,
}

/// Texts of at most this many characters find their next merge by scanning the pairs'
/// priorities, longer ones keep a heap: a scan of a few words' priorities costs less than
/// the heap's pushes and pops, and its stale entries.
const SCAN_LIMIT: usize = 32;

/// One word's pieces as [`SentencePieceBpe::for_each_word`] hands them on, relative to the
/// word's start.
pub enum WordPieces<'a> {
    /// From this thread's word cache.
    Cached(&'a Cached<'a>),
    /// Merged now, as `(start, end, id)` spans.
    Merged(&'a [Span]),
}

/// Buffers kept between calls on one thread.
#[derive(Default)]
struct Scratch {
    symbols: Vec<Symbol>,
    /// Per symbol: the priority of the pair of it and the next symbol, 0 when they make no
    /// piece (or the merge was dropped, or the symbol is gone).
    pairs: Vec<u64>,
    /// Queued pair priorities (texts over [`SCAN_LIMIT`] characters). An entry is current
    /// while it equals its left symbol's pair: a pair that changes gets a new priority (a
    /// symbol only grows, and the check by lengths in sentencepiece rejects exactly these),
    /// and a queued copy equal to the current pair stands for it, having the same place in
    /// the order.
    agenda: Vec<u64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Bytes this thread's merge buffers hold between calls (for tests of [`crate::scratch`]).
#[cfg(test)]
pub(crate) fn kept_bytes() -> usize {
    SCRATCH.with(|cell| {
        let s = cell.borrow();
        s.symbols.capacity() * std::mem::size_of::<Symbol>()
            + s.agenda.capacity() * 8
            + s.pairs.capacity() * 8
    })
}

/// `score` as an integer in the same order (`-0.0` and `0.0` equal).
fn score_order(score: f32) -> u32 {
    // Adding 0.0 turns -0.0 into 0.0, so the two tie as sentencepiece's `==` has them.
    let bits = (score + 0.0).to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// Each score's rank among the distinct values of `scores` (equal scores, equal ranks).
///
/// One sort of `(order, index)` keys and one pass over them (no search per score); the keys
/// of a model whose scores fall with the id, as a trainer writes them, are one run that the
/// sort only reverses.
fn ranks(scores: &[f32]) -> Vec<u32> {
    let mut keys: Vec<u64> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| u64::from(score_order(s)) << 32 | !(i as u32) as u64)
        .collect();
    keys.sort_unstable();
    let mut out = vec![0; scores.len()];
    let mut rank = 0;
    for (n, &key) in keys.iter().enumerate() {
        if n > 0 && key >> 32 != keys[n - 1] >> 32 {
            rank += 1;
        }
        out[!(key as u32) as usize] = rank;
    }
    out
}

/// Orders `rank` (higher first) then `left` (lower first) as one integer, never 0.
fn priority(rank: u32, left: u32) -> u64 {
    u64::from(rank) << 32 | u64::from(!left)
}

fn left_of(priority: u64) -> u32 {
    !(priority as u32)
}

/// Merges the pair at symbol `l` (current, and not dropped) and sets the two pairs it changes
/// with `pair_at`, giving their priorities.
#[inline(always)]
fn merge_at(
    symbols: &mut [Symbol],
    pairs: &mut [u64],
    l: u32,
    pair_at: &mut impl FnMut(&mut [Symbol], &mut [u64], u32) -> Option<u64>,
) -> (Option<u64>, Option<u64>) {
    let ls = symbols[l as usize];
    let rs = symbols[ls.next as usize];
    symbols[ls.next as usize].len = 0;
    pairs[ls.next as usize] = 0;
    let left = &mut symbols[l as usize];
    left.len += rs.len;
    left.id = ls.merged;
    left.next = rs.next;
    if rs.next != NONE {
        symbols[rs.next as usize].prev = l;
    }
    // The left pair first, as sentencepiece: the order decides which halves an UNUSED piece
    // formed twice is split back into.
    let before = if ls.prev != NONE {
        pair_at(symbols, pairs, ls.prev)
    } else {
        None
    };
    (before, pair_at(symbols, pairs, l))
}

impl SentencePieceBpe {
    /// Builds the model from `(piece, score, type)` in id order.
    ///
    /// ```
    /// use tokensmith_core::formats::sentencepiece_model::PieceType;
    /// use tokensmith_core::models::sentencepiece_bpe::SentencePieceBpe;
    /// let pieces = [("<unk>", 0.0, PieceType::Unknown), ("a", -1.0, PieceType::Normal),
    ///               ("b", -2.0, PieceType::Normal), ("ab", -0.5, PieceType::Normal)];
    /// let m = SentencePieceBpe::new(pieces.into_iter(), 0);
    /// assert_eq!(m.encode("abc"), vec![(0, 2, 3), (2, 3, 0)]);
    /// ```
    pub fn new<'a>(pieces: impl Iterator<Item = (&'a str, f32, PieceType)>, unk_id: u32) -> Self {
        let pieces = pieces.collect::<Vec<_>>();
        // The pieces that merge or are merged, each text once (its first id), in id order.
        let mut merged: Vec<(&str, u32)> = Vec::with_capacity(pieces.len());
        let mut index = TextIndex::with_capacity(pieces.len());
        let text_of = |id: u32| pieces[id as usize].0;
        let mut info = Vec::with_capacity(pieces.len());
        let mut scores = Vec::with_capacity(pieces.len());
        let user_defined = UserSymbols::new(
            pieces
                .iter()
                .zip(0..)
                .filter(|(p, _)| p.2 == PieceType::UserDefined)
                .map(|(p, id)| (p.0, id)),
        );
        for (id, &(piece, score, kind)) in pieces.iter().enumerate() {
            let merges = matches!(
                kind,
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused
            );
            if merges && index.insert(piece, id as u32, text_of).is_ok() {
                merged.push((piece, id as u32));
            }
            info.push((piece.len() as u32, kind == PieceType::Unused));
            scores.push(score);
        }
        // A user-defined match's symbol is the first id of its text among the merged pieces.
        let user_defined_ids: FxHashMap<String, u32> = pieces
            .iter()
            .filter(|&&(_, _, kind)| kind == PieceType::UserDefined)
            .filter_map(|&(piece, _, _)| {
                let id = index.get(piece, text_of)?;
                Some((piece.to_string(), id))
            })
            .collect();
        let piece_count = info.len() as u32;
        let mut chars: FxHashMap<char, u32> = FxHashMap::default();
        // The symbol of `text` (hash `h`): a piece, or a character that is none.
        let mut symbol_of = |text: &str, h: u64, info: &mut Vec<(u32, bool)>| -> Option<u32> {
            if let Some(id) = index.get_hashed(text.as_bytes(), h, text_of) {
                return Some(id);
            }
            let mut it = text.chars();
            let (Some(c), None) = (it.next(), it.next()) else {
                return None;
            };
            Some(*chars.entry(c).or_insert_with(|| {
                info.push((c.len_utf8() as u32, false));
                info.len() as u32 - 1
            }))
        };
        let rank = ranks(&scores);
        // Every pair is listed once: a text has one symbol, so a pair names one text, the
        // piece it makes, and that piece's cuts are distinct.
        let mut pairs = Vec::new();
        // Per byte offset of the piece: the hash of the piece's bytes from there to its end.
        let mut suffix_hashes: Vec<u64> = Vec::new();
        for &(piece, id) in &merged {
            let bytes = piece.as_bytes();
            if bytes.len() < 2 {
                continue;
            }
            text_index::suffix_hashes(bytes, &mut suffix_hashes);
            let mut prefix_hash = text_index::extend_right(0, bytes[0]);
            for cut in 1..bytes.len() {
                let byte = bytes[cut];
                // Only cuts at character boundaries (not before a continuation byte).
                if byte & 0xC0 != 0x80 {
                    let left = symbol_of(&piece[..cut], prefix_hash, &mut info);
                    let right = symbol_of(&piece[cut..], suffix_hashes[cut], &mut info);
                    if let (Some(l), Some(r)) = (left, right) {
                        let merge = Merge {
                            piece: id,
                            rank: rank[id as usize],
                        };
                        pairs.push((l, r, merge));
                    }
                }
                prefix_hash = text_index::extend_right(prefix_hash, byte);
            }
        }
        let pairs = PairTable::new(&pairs, true);
        // Characters that are pieces themselves start as those pieces.
        for &(piece, id) in &merged {
            let mut it = piece.chars();
            if let (Some(c), None) = (it.next(), it.next()) {
                chars.insert(c, id);
            }
        }
        let mut ascii = Box::new([NONE; 128]);
        for (byte, slot) in ascii.iter_mut().enumerate() {
            if let Some(&id) = chars.get(&char::from(byte as u8)) {
                *slot = id;
            }
        }
        let has_unused = info.iter().any(|&(_, unused)| unused);
        let split =
            WordSplit::for_pieces(merged.iter().map(|&(piece, _)| piece)).filter(|_| !has_unused);
        Self {
            has_unused,
            split,
            user_defined_ids,
            info,
            ascii,
            chars,
            pairs,
            piece_count,
            // 64 bits never wrap, so no two models built in a process share a tag.
            cache_tag: CacheTag::new(),
            unk_id,
            user_defined,
        }
    }

    /// Segments `normalized` into `(start, end, id)` byte spans.
    pub fn encode(&self, normalized: &str) -> Vec<Span> {
        let mut out = Vec::new();
        self.encode_into(normalized, &mut out);
        out
    }

    /// Writes the segmentation of `normalized` into `out` (cleared first).
    ///
    /// When no piece crosses a word boundary ([`WordSplit`]), no merge does either, and the
    /// merges inside one word happen in the same order whatever the other words hold (the
    /// queue orders them by score, then by position, and positions keep their order within a
    /// word), so each word is merged alone and its result kept in a per-thread cache. Models
    /// with UNUSED pieces merge the whole text: which halves such a piece splits back into
    /// depends on the last time it formed anywhere in the text.
    pub fn encode_into(&self, normalized: &str, out: &mut Vec<Span>) {
        out.clear();
        let by_words = self.for_each_word(normalized, |start, pieces| match pieces {
            WordPieces::Cached(hit) => words::push_cached(hit, start, out),
            WordPieces::Merged(spans) => {
                out.extend(spans.iter().map(|&(s, e, id)| (s + start, e + start, id)));
            }
        });
        if by_words.is_none() {
            self.segment(normalized, 0.0, None, out);
        }
    }

    /// Calls `f(start, pieces)` for each word of `normalized` in order, `start` its first
    /// byte, as [`Self::encode_into`] segments it, so that a caller can take cached words'
    /// ids without spans. `None`, having called nothing, when this model merges whole texts
    /// (or this thread's word cache is in use: a call from inside `f`).
    pub fn for_each_word(
        &self,
        normalized: &str,
        mut f: impl FnMut(usize, WordPieces<'_>),
    ) -> Option<()> {
        let split = self.split?;
        // Words come [`words::AHEAD`] at a time with their cache slots prefetched: on a text
        // of many distinct words, the slots are in no CPU cache.
        words::with_cache(self.cache_tag.get(), |cache| {
            let mut word_spans = Vec::new();
            cache.for_each_word(split, normalized.as_bytes(), |cache, probe| {
                let start = probe.start;
                match cache.find(probe) {
                    Some(hit) => f(start, WordPieces::Cached(&hit)),
                    None => {
                        let word = &normalized[start..probe.end];
                        self.segment(word, 0.0, None, &mut word_spans);
                        if word.len() <= MAX_WORD {
                            cache.put_probe(probe, &word_spans, f32::INFINITY);
                        }
                        f(start, WordPieces::Merged(&word_spans));
                    }
                }
                true
            });
        })
    }

    /// Segments `normalized`, skipping each merge with probability `alpha` (BPE dropout).
    /// `alpha <= 0` (or no generator) never skips; `alpha >= 1` skips every merge.
    pub fn encode_with_dropout(
        &self,
        normalized: &str,
        alpha: f32,
        rng: Option<&mut SplitMix64>,
    ) -> Vec<Span> {
        let mut out = Vec::new();
        self.segment(normalized, alpha, rng, &mut out);
        out
    }

    fn segment(
        &self,
        normalized: &str,
        alpha: f32,
        rng: Option<&mut SplitMix64>,
        out: &mut Vec<Span>,
    ) {
        out.clear();
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                self.segment_with(normalized, alpha, rng, out, &mut scratch);
                // Frees what a long text left (see `crate::scratch`).
                release_if_large(&mut scratch.symbols);
                release_if_large(&mut scratch.pairs);
                release_if_large(&mut scratch.agenda);
            }
            Err(_) => self.segment_with(normalized, alpha, rng, out, &mut Scratch::default()),
        });
    }

    /// The symbol id of the character that starts `rest`, and its length.
    fn char_symbol(&self, rest: &str) -> (u32, usize) {
        let lead = rest.as_bytes()[0];
        if lead < 0x80 {
            return (self.ascii[usize::from(lead)], 1);
        }
        let c = rest.chars().next().unwrap_or_default();
        (self.chars.get(&c).copied().unwrap_or(NONE), c.len_utf8())
    }

    fn segment_with(
        &self,
        normalized: &str,
        alpha: f32,
        mut rng: Option<&mut SplitMix64>,
        out: &mut Vec<Span>,
        scratch: &mut Scratch,
    ) {
        let mut skip_merge = || {
            if alpha <= 0.0 {
                return false;
            }
            if alpha >= 1.0 {
                return true;
            }
            rng.as_mut()
                .is_some_and(|r| r.next_f64() < f64::from(alpha))
        };
        let Scratch {
            symbols,
            pairs,
            agenda,
        } = scratch;
        symbols.clear();
        let mut start = 0;
        while start < normalized.len() {
            let rest = &normalized[start..];
            let matched = self.user_defined.longest_at(rest);
            let (id, len) = match matched {
                Some((len, _)) => (
                    self.user_defined_ids
                        .get(&rest[..len])
                        .copied()
                        .unwrap_or(NONE),
                    len,
                ),
                None => self.char_symbol(rest),
            };
            let i = symbols.len() as u32;
            symbols.push(Symbol {
                start,
                len,
                prev: i.wrapping_sub(1),
                next: i + 1,
                id,
                freeze: matched.is_some(),
                merged: NONE,
            });
            start += len;
        }
        if let Some(last) = symbols.last_mut() {
            last.next = NONE;
        }
        // The first pairs' lookups are independent: their buckets load together.
        for two in symbols.windows(2) {
            self.pairs.prefetch(two[0].id, two[1].id);
        }
        pairs.clear();
        pairs.resize(symbols.len(), 0);
        // UNUSED pieces formed in this text, mapped back to the halves they were queued from.
        let mut rev_merge: FxHashMap<u32, (u32, u32)> = FxHashMap::default();
        // Sets the pair of `l` and its next symbol, and gives its priority if it is a piece.
        let mut pair_at = |symbols: &mut [Symbol], pairs: &mut [u64], l: u32| -> Option<u64> {
            pairs[l as usize] = 0;
            let ls = symbols[l as usize];
            let rs = symbols.get(ls.next as usize)?;
            if ls.freeze || rs.freeze {
                return None;
            }
            let merge = self.pairs.get(ls.id, rs.id)?;
            if self.has_unused && self.info[merge.piece as usize].1 {
                rev_merge.insert(merge.piece, (ls.id, rs.id));
            }
            let rank = priority(merge.rank, l);
            pairs[l as usize] = rank;
            symbols[l as usize].merged = merge.piece;
            Some(rank)
        };
        if symbols.len() <= SCAN_LIMIT {
            for i in 0..symbols.len().saturating_sub(1) as u32 {
                pair_at(symbols, pairs, i);
            }
            loop {
                let best = pairs.iter().copied().max().unwrap_or(0);
                if best == 0 {
                    break;
                }
                let l = left_of(best);
                if skip_merge() {
                    pairs[l as usize] = 0;
                    continue;
                }
                merge_at(symbols, pairs, l, &mut pair_at);
            }
        } else {
            let mut queue = std::mem::take(agenda);
            queue.clear();
            for i in 0..symbols.len().saturating_sub(1) as u32 {
                queue.extend(pair_at(symbols, pairs, i));
            }
            let mut heap = BinaryHeap::from(queue);
            while let Some(key) = heap.pop() {
                let l = left_of(key);
                if pairs[l as usize] != key {
                    continue;
                }
                if skip_merge() {
                    pairs[l as usize] = 0;
                    continue;
                }
                let (before, after) = merge_at(symbols, pairs, l, &mut pair_at);
                heap.extend(before);
                heap.extend(after);
            }
            *agenda = heap.into_vec();
        }
        let mut index = if symbols.is_empty() { NONE } else { 0 };
        while index != NONE {
            let s = symbols[index as usize];
            self.resegment(s.id, s.start, s.len, &rev_merge, out);
            index = s.next;
        }
    }

    /// Writes symbol `id` at `start..start + len` as spans, splitting UNUSED pieces back.
    fn resegment(
        &self,
        id: u32,
        start: usize,
        len: usize,
        rev_merge: &FxHashMap<u32, (u32, u32)>,
        out: &mut Vec<Span>,
    ) {
        if id >= self.piece_count {
            out.push((start, start + len, self.unk_id));
            return;
        }
        // Only UNUSED pieces split back: other pieces skip the map.
        let halves = if self.info[id as usize].1 {
            rev_merge.get(&id)
        } else {
            None
        };
        match halves {
            Some(&(left, right)) => {
                let left_len = self.info[left as usize].0 as usize;
                self.resegment(left, start, left_len, rev_merge, out);
                self.resegment(right, start + left_len, len - left_len, rev_merge, out);
            }
            _ => out.push((start, start + len, id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference::ReferenceBpe;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_by_score_leftmost_on_ties() {
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("a", -1.0, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ab", -2.0, PieceType::Normal),
            ("ba", -2.0, PieceType::Normal),
            ("aba", -3.0, PieceType::Normal),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        // "abab": ab (left) and ba tie; the leftmost ab merges, then ab+ab is no piece.
        assert_eq!(m.encode("abab"), vec![(0, 2, 3), (2, 4, 3)]);
        assert_eq!(m.encode("abx"), vec![(0, 2, 3), (2, 3, 0)]);
        assert_eq!(m.encode(""), vec![]);
    }

    proptest! {
        /// A score's rank is the number of distinct smaller scores.
        #[test]
        fn ranks_count_the_distinct_smaller_scores(
            scores in prop::collection::vec(prop::sample::select(
                vec![-3.0f32, -2.5, -1.0, -0.0, 0.0, 0.5, 1e-30]), 0..50),
        ) {
            let got = ranks(&scores);
            for (i, &s) in scores.iter().enumerate() {
                let mut smaller: Vec<f32> = scores.iter().copied().filter(|&t| t < s).collect();
                smaller.sort_by(f32::total_cmp);
                smaller.dedup_by(|a, b| a == b);
                prop_assert_eq!(got[i] as usize, smaller.len());
            }
        }
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        // "xy" (-0.0) and "yz" (0.0) tie, so the leftmost, "xy", merges first.
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("x", -1.0, PieceType::Normal),
            ("y", -1.0, PieceType::Normal),
            ("z", -1.0, PieceType::Normal),
            ("xy", -0.0, PieceType::Normal),
            ("yz", 0.0, PieceType::Normal),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        assert_eq!(m.encode("xyz"), vec![(0, 2, 4), (2, 3, 3)]);
    }

    #[test]
    fn user_defined_symbols_never_merge() {
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("a", -1.0, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ab", -0.5, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ba", -0.1, PieceType::UserDefined),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        // "ba" is taken first as a frozen symbol, so "ab" cannot form across it.
        assert_eq!(m.encode("aba"), vec![(0, 1, 1), (1, 3, 5)]);
        assert_eq!(m.encode("abab"), vec![(0, 1, 1), (1, 3, 5), (3, 4, 2)]);
    }

    #[test]
    fn pieces_made_of_unknown_characters_still_form() {
        // "é" is no piece, but "éa" is: the pair (é, a) merges.
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("a", -1.0, PieceType::Normal),
            ("éa", -2.0, PieceType::Normal),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        assert_eq!(m.encode("éaé"), vec![(0, 3, 2), (3, 5, 0)]);
    }

    /// A random vocabulary over a small alphabet: pieces of 1 to 4 characters with random
    /// scores and types (including UNUSED and USER_DEFINED), some characters left out.
    fn vocabulary() -> impl Strategy<Value = Vec<(String, f32, PieceType)>> {
        let alphabet = prop::sample::select(vec!['a', 'b', 'c', 'é', '▁', '中']);
        let kind = prop::sample::select(vec![
            PieceType::Normal,
            PieceType::Normal,
            PieceType::Normal,
            PieceType::Normal,
            PieceType::Unused,
            PieceType::UserDefined,
            PieceType::Control,
        ]);
        let score = prop::sample::select(vec![-3.0f32, -2.0, -1.5, -1.0, -0.5, 0.0]);
        let piece = (prop::collection::vec(alphabet, 1..5), score, kind)
            .prop_map(|(cs, s, k)| (cs.into_iter().collect::<String>(), s, k));
        prop::collection::vec(piece, 1..40).prop_map(|mut v| {
            v.insert(0, ("<unk>".into(), 0.0, PieceType::Unknown));
            let mut seen = std::collections::HashSet::new();
            v.retain(|(p, _, _)| seen.insert(p.clone()));
            v
        })
    }

    /// Pieces where the mark only starts a piece (or runs of it do), so that words split:
    /// 1 to 4 characters, optionally after one or two marks, NORMAL, USER_DEFINED or CONTROL.
    fn word_vocabulary() -> impl Strategy<Value = Vec<(String, f32, PieceType)>> {
        let alphabet = prop::sample::select(vec!['a', 'b', 'c', 'é', '中']);
        let kind = prop::sample::select(vec![
            PieceType::Normal,
            PieceType::Normal,
            PieceType::Normal,
            PieceType::UserDefined,
            PieceType::Control,
        ]);
        let score = prop::sample::select(vec![-3.0f32, -2.0, -1.5, -1.0, -0.5, 0.0]);
        let piece = (
            0..3usize,
            prop::collection::vec(alphabet, 0..4),
            score,
            kind,
        )
            .prop_map(|(marks, cs, s, k)| {
                let mut piece: String = "▁".repeat(marks);
                piece.extend(cs);
                (piece, s, k)
            });
        prop::collection::vec(piece, 1..60).prop_map(|mut v| {
            v.retain(|(p, _, _)| !p.is_empty());
            v.insert(0, ("<unk>".into(), 0.0, PieceType::Unknown));
            let mut seen = std::collections::HashSet::new();
            v.retain(|(p, _, _)| seen.insert(p.clone()));
            v
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Word by word (first call and cached second call) equals the whole-text reference;
        /// the split is checked to be in use, so the test does exercise it.
        #[test]
        fn word_by_word_agrees_with_the_whole_text(
            vocab in word_vocabulary(),
            text in prop::collection::vec(
                prop::sample::select(vec!['a', 'b', 'c', 'é', '▁', '▁', '中', 'z']), 0..80),
        ) {
            let text: String = text.into_iter().collect();
            let items = || vocab.iter().map(|(p, s, k)| (p.as_str(), *s, *k));
            let fast = SentencePieceBpe::new(items(), 0);
            prop_assert!(fast.split.is_some());
            let want = ReferenceBpe::new(items(), 0).encode(&text);
            prop_assert_eq!(&fast.encode(&text), &want);
            prop_assert_eq!(&fast.encode(&text), &want);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The id-keyed encoder gives the reference encoder's spans, with and without
        /// dropout (the same draws, as both skip at the same points); texts on both sides of
        /// [`SCAN_LIMIT`] characters, so that both ways of finding the next merge run.
        #[test]
        fn agrees_with_the_reference(
            vocab in vocabulary(),
            text in prop::collection::vec(
                prop::sample::select(vec!['a', 'b', 'c', 'é', '▁', '中', 'z']), 0..2 * SCAN_LIMIT),
            seed in any::<u64>(),
        ) {
            let text: String = text.into_iter().collect();
            let items = || vocab.iter().map(|(p, s, k)| (p.as_str(), *s, *k));
            let fast = SentencePieceBpe::new(items(), 0);
            let slow = ReferenceBpe::new(items(), 0);
            prop_assert_eq!(fast.encode(&text), slow.encode(&text));
            let (mut a, mut b) = (SplitMix64::new(seed), SplitMix64::new(seed));
            prop_assert_eq!(
                fast.encode_with_dropout(&text, 0.3, Some(&mut a)),
                slow.encode_with_dropout(&text, 0.3, Some(&mut b))
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]
        /// A vocabulary whose pieces have ids past what the packed pair table holds (after
        /// `<unk>`, padding of single characters the texts never use) takes the general
        /// table, and still gives the reference encoder's spans.
        #[test]
        fn a_large_vocabulary_agrees_with_the_reference(
            vocab in vocabulary(),
            texts in prop::collection::vec(prop::collection::vec(
                prop::sample::select(vec!['a', 'b', 'c', 'é', '▁', '中', 'z']), 0..2 * SCAN_LIMIT), 20),
        ) {
            let padding: Vec<String> = (0..70_000u32)
                .filter_map(|i| char::from_u32(0x20000 + i))
                .map(String::from)
                .collect();
            let items = || {
                vocab[..1]
                    .iter()
                    .map(|(p, s, k)| (p.as_str(), *s, *k))
                    .chain(padding.iter().map(|p| (p.as_str(), -5.0, PieceType::Normal)))
                    .chain(vocab[1..].iter().map(|(p, s, k)| (p.as_str(), *s, *k)))
            };
            // A piece of two characters makes a pair (longer ones may not: "aaa" needs "aa").
            prop_assume!(vocab.iter().any(|(p, _, k)| p.chars().count() == 2
                && matches!(k, PieceType::Normal | PieceType::UserDefined | PieceType::Unused)));
            let fast = SentencePieceBpe::new(items(), 0);
            prop_assert!(!fast.pairs.is_narrow());
            let slow = ReferenceBpe::new(items(), 0);
            for text in texts {
                let text: String = text.into_iter().collect();
                prop_assert_eq!(fast.encode(&text), slow.encode(&text));
            }
        }
    }
}
