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

use rustc_hash::FxHashMap;

use crate::formats::sentencepiece_model::PieceType;
use crate::models::unigram::words::{self, MAX_WORD};
use crate::models::unigram::WordSplit;
use crate::models::unigram::{PieceTrie, Span, SplitMix64};
use crate::scratch::release_if_large;

/// The symbol id of a character that is in no piece.
const NONE: u32 = u32::MAX;

/// A SentencePiece BPE model.
#[derive(Debug, Clone)]
pub struct SentencePieceBpe {
    /// NORMAL, USER_DEFINED and UNUSED pieces by text (the first id of a repeated text).
    ids: FxHashMap<String, u32>,
    /// Per symbol id: its length in bytes and whether it is an UNUSED piece.
    info: Vec<(u32, bool)>,
    /// Symbol ids of ASCII characters, and of the other characters.
    ascii: Box<[u32; 128]>,
    chars: FxHashMap<char, u32>,
    /// `(left << 32 | right)` symbol ids -> (merged piece id, its score).
    pairs: FxHashMap<u64, (u32, f32)>,
    /// Piece ids are below this; character-only symbols and [`NONE`] are not.
    piece_count: u32,
    /// Tells this model's entries in a thread's pair and word caches from other models'
    /// (never 0; shared by every SentencePiece model kind).
    cache_tag: u64,
    has_unused: bool,
    unk_id: u32,
    /// User-defined symbols: each match becomes one symbol that never merges.
    user_defined: Option<PieceTrie>,
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
    /// The pair of this symbol and the next: its queue priority (0 when there is no such
    /// piece, or the merge was dropped) and the piece it makes.
    pair: u64,
    merged: u32,
}

/// Buffers kept between calls on one thread.
#[derive(Default)]
struct Scratch {
    symbols: Vec<Symbol>,
    /// Queued pair priorities. An entry is current while it equals its left symbol's `pair`:
    /// a pair that changes gets a new priority (a symbol only grows, and the check by lengths
    /// in sentencepiece rejects exactly these), and a queued copy equal to the current pair
    /// stands for it, having the same place in the order.
    agenda: Vec<u64>,
    /// Recent pair lookups, direct-mapped: the pair table is too large for the fastest
    /// caches, and text repeats its common pairs (`▁t`, `he`) many times.
    pairs: Vec<CachedPair>,
}

/// One pair cache slot: `(cache_tag, pair key, merged piece or NONE, score)`.
type CachedPair = (u64, u64, u32, f32);

/// Pair cache slots per thread (a power of two).
const PAIR_CACHE: usize = 1024;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Bytes this thread's merge buffers hold between calls (for tests of [`crate::scratch`]).
#[cfg(test)]
pub(crate) fn kept_bytes() -> usize {
    SCRATCH.with(|cell| {
        let s = cell.borrow();
        s.symbols.capacity() * std::mem::size_of::<Symbol>() + s.agenda.capacity() * 8
    })
}

/// Orders `score` (higher first) then `left` (lower first) as one integer.
fn priority(score: f32, left: u32) -> u64 {
    // Adding 0.0 turns -0.0 into 0.0, so the two tie as sentencepiece's `==` has them.
    let bits = (score + 0.0).to_bits();
    let key = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    u64::from(key) << 32 | u64::from(!left)
}

fn left_of(priority: u64) -> u32 {
    !(priority as u32)
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
        let mut ids = FxHashMap::default();
        let mut info = Vec::new();
        let mut scores = Vec::new();
        let mut user_defined: Option<PieceTrie> = None;
        for (id, (piece, score, kind)) in pieces.enumerate() {
            if kind == PieceType::UserDefined {
                user_defined
                    .get_or_insert_with(PieceTrie::new)
                    .insert(piece.as_bytes(), id as u32);
            }
            if matches!(
                kind,
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused
            ) {
                ids.entry(piece.to_string()).or_insert(id as u32);
            }
            info.push((piece.len() as u32, kind == PieceType::Unused));
            scores.push(score);
        }
        let piece_count = info.len() as u32;
        let mut chars: FxHashMap<char, u32> = FxHashMap::default();
        let mut symbol_of = |text: &str, info: &mut Vec<(u32, bool)>| -> Option<u32> {
            if let Some(&id) = ids.get(text) {
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
        let mut pairs = FxHashMap::default();
        for (piece, &id) in &ids {
            for (cut, _) in piece.char_indices().skip(1) {
                let left = symbol_of(&piece[..cut], &mut info);
                let right = symbol_of(&piece[cut..], &mut info);
                if let (Some(l), Some(r)) = (left, right) {
                    pairs.insert(u64::from(l) << 32 | u64::from(r), (id, scores[id as usize]));
                }
            }
        }
        // Characters that are pieces themselves start as those pieces.
        for (piece, &id) in &ids {
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
        let split = WordSplit::for_pieces(ids.keys().map(String::as_str)).filter(|_| !has_unused);
        Self {
            has_unused,
            split,
            ids,
            info,
            ascii,
            chars,
            pairs,
            piece_count,
            // 64 bits never wrap, so no two models built in a process share a tag.
            cache_tag: words::new_tag(),
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
        let Some(split) = self.split else {
            return self.segment(normalized, 0.0, None, out);
        };
        out.clear();
        let cached = words::with_cache(self.cache_tag, |cache| {
            let mut word_spans = Vec::new();
            split.for_each_word(normalized.as_bytes(), |start, end| {
                let word = &normalized[start..end];
                match cache.get(normalized.as_bytes(), start, end) {
                    Some(hit) => words::push_cached(&hit, start, out),
                    None => {
                        self.segment(word, 0.0, None, &mut word_spans);
                        if word.len() <= MAX_WORD {
                            cache.put(word.as_bytes(), &word_spans, f32::INFINITY);
                        }
                        out.extend(
                            word_spans
                                .iter()
                                .map(|&(s, e, id)| (s + start, e + start, id)),
                        );
                    }
                }
                true
            })
        });
        if cached.is_none() {
            self.segment(normalized, 0.0, None, out);
        }
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
            agenda,
            pairs: cache,
        } = scratch;
        if cache.len() != PAIR_CACHE {
            *cache = vec![(0, 0, NONE, 0.0); PAIR_CACHE];
        }
        symbols.clear();
        let mut start = 0;
        while start < normalized.len() {
            let rest = &normalized[start..];
            let matched = self
                .user_defined
                .as_ref()
                .and_then(|t| t.longest_prefix(rest.as_bytes()));
            let (id, len) = match matched {
                Some(len) => (self.ids.get(&rest[..len]).copied().unwrap_or(NONE), len),
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
                pair: 0,
                merged: NONE,
            });
            start += len;
        }
        if let Some(last) = symbols.last_mut() {
            last.next = NONE;
        }
        // UNUSED pieces formed in this text, mapped back to the halves they were queued from.
        let mut rev_merge: FxHashMap<u32, (u32, u32)> = FxHashMap::default();
        // Sets the pair of `l` and its next symbol, and gives its priority if it is a piece.
        let mut pair_at = |symbols: &mut [Symbol], l: u32| -> Option<u64> {
            let ls = symbols[l as usize];
            symbols[l as usize].pair = 0;
            let rs = symbols.get(ls.next as usize)?;
            if ls.freeze || rs.freeze {
                return None;
            }
            let key = u64::from(ls.id) << 32 | u64::from(rs.id);
            let slot = &mut cache[(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize];
            if slot.0 != self.cache_tag || slot.1 != key {
                let (merged, score) = self.pairs.get(&key).copied().unwrap_or((NONE, 0.0));
                *slot = (self.cache_tag, key, merged, score);
            }
            let (merged, score) = (slot.2, slot.3);
            if merged == NONE {
                return None;
            }
            if self.has_unused && self.info[merged as usize].1 {
                rev_merge.insert(merged, (ls.id, rs.id));
            }
            let rank = priority(score, l);
            symbols[l as usize].pair = rank;
            symbols[l as usize].merged = merged;
            Some(rank)
        };
        let mut queue = std::mem::take(agenda);
        queue.clear();
        for i in 0..symbols.len().saturating_sub(1) as u32 {
            queue.extend(pair_at(symbols, i));
        }
        let mut heap = BinaryHeap::from(queue);
        while let Some(key) = heap.pop() {
            let l = left_of(key);
            let ls = symbols[l as usize];
            if ls.pair != key {
                continue;
            }
            if skip_merge() {
                symbols[l as usize].pair = 0;
                continue;
            }
            let rs = symbols[ls.next as usize];
            symbols[ls.next as usize].len = 0;
            symbols[ls.next as usize].pair = 0;
            let left = &mut symbols[l as usize];
            left.len += rs.len;
            left.id = ls.merged;
            left.next = rs.next;
            if rs.next != NONE {
                symbols[rs.next as usize].prev = l;
            }
            // The left pair first, as sentencepiece: the order decides which halves an
            // UNUSED piece formed twice is split back into.
            if ls.prev != NONE {
                heap.extend(pair_at(symbols, ls.prev));
            }
            heap.extend(pair_at(symbols, l));
        }
        *agenda = heap.into_vec();
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
        match rev_merge.get(&id) {
            Some(&(left, right)) if self.info[id as usize].1 => {
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
        /// dropout (the same draws, as both skip at the same points).
        #[test]
        fn agrees_with_the_reference(
            vocab in vocabulary(),
            text in prop::collection::vec(
                prop::sample::select(vec!['a', 'b', 'c', 'é', '▁', '中', 'z']), 0..30),
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
}
