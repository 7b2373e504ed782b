//! Every symbol the BPE trainer has made: single characters, and pairs of two symbols.
//!
//! A pair is known by its two parts, as sentencepiece knows it by the fingerprint of its
//! parts, so `▁t`+`he` and `▁th`+`e` are two symbols with one text. Each pair is in one of
//! three states, which sentencepiece's symbol cache implies:
//! - `Live`: in the cache, with its exact count of adjacent occurrences;
//! - `Erased`: taken out of the cache after it was chosen (merged, or skipped as a
//!   duplicate text);
//! - `Ghost`: made anew, with no occurrences, when a neighbouring merge looks up an erased
//!   pair that is still adjacent somewhere (sentencepiece's `ResetFreq` does this); it stays
//!   in the cache with count 0, and is no candidate again: a merge adds only to the pairs
//!   it makes, which hold the merged symbol and so were never made before.
//!
//! Every symbol's text is kept, one after another in one string, so a new pair's text is
//! two copies, not a walk down its parts.

use rustc_hash::FxHashMap;

use super::pair_map::PairMap;
use crate::models::bpe::prefetch;
use crate::trainers::unigram::PieceRules;

/// No symbol (the parts of a character).
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Live,
    Erased,
    Ghost,
}

/// The symbol table. See the module documentation.
pub struct Symbols {
    /// The two parts of each symbol; `(c, NONE)` for the character `c`.
    parts: Vec<(u32, u32)>,
    /// The length of each symbol in characters.
    pub chars: Vec<u32>,
    /// The first 8 bytes of each symbol's text, big-endian, zero-padded: orders most texts
    /// without spelling them.
    pub prefix: Vec<u64>,
    /// The weighted count of each `Live` pair's adjacent occurrences.
    pub freq: Vec<u64>,
    pub state: Vec<State>,
    /// The words each pair occurs in, by their places in the word store, ascending; may
    /// name words it no longer occurs in.
    pub occurrences: Vec<Vec<u32>>,
    /// Every symbol's text, one after another; symbol `id`'s ends at `ends[id]`.
    texts: String,
    ends: Vec<usize>,
    /// The text of the pair being looked up (kept to save an allocation per new pair).
    scratch: String,
    pair_ids: PairMap,
    char_ids: FxHashMap<char, u32>,
    rules: PieceRules,
    /// Symbols in sentencepiece's cache: characters, and `Live` or `Ghost` pairs (its size
    /// sized the active set of older sentencepiece releases; kept for inspection).
    pub cache_size: usize,
}

impl Symbols {
    pub fn new(rules: PieceRules) -> Self {
        Self {
            parts: Vec::new(),
            chars: Vec::new(),
            prefix: Vec::new(),
            freq: Vec::new(),
            state: Vec::new(),
            occurrences: Vec::new(),
            texts: String::new(),
            ends: Vec::new(),
            scratch: String::new(),
            pair_ids: PairMap::default(),
            char_ids: FxHashMap::default(),
            rules,
            cache_size: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// True for a pair (false for a character).
    pub fn is_pair(&self, id: u32) -> bool {
        self.parts[id as usize].1 != NONE
    }

    /// The count sentencepiece sees: a ghost's is 0.
    pub fn count(&self, id: u32) -> u64 {
        match self.state[id as usize] {
            State::Live => self.freq[id as usize],
            _ => 0,
        }
    }

    /// The symbol of character `c`.
    pub fn char_id(&mut self, c: char) -> u32 {
        if let Some(&id) = self.char_ids.get(&c) {
            return id;
        }
        let mut buf = [0u8; 4];
        let id = self.push((c as u32, NONE), 1, c.encode_utf8(&mut buf));
        self.char_ids.insert(c, id);
        id
    }

    /// The text of `id`.
    pub fn text_of(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.texts[start..self.ends[i]]
    }

    /// The text of `id`, owned.
    pub fn text(&self, id: u32) -> String {
        self.text_of(id).to_string()
    }

    /// The pair `left`+`right` when it may be a piece (made if new), as sentencepiece's
    /// `GetPairSymbol`; `None` for an invalid piece or one holding U+2585.
    ///
    /// A new pair is `Live` with count 0; an `Erased` one comes back as a `Ghost`.
    pub fn lookup(&mut self, left: u32, right: u32) -> Option<u32> {
        if let Some(id) = self.pair_ids.get(left, right) {
            if id == NONE {
                return None;
            }
            if self.state[id as usize] == State::Erased {
                self.state[id as usize] = State::Ghost;
                self.cache_size += 1;
            }
            return Some(id);
        }
        let found = self.new_pair(left, right);
        self.pair_ids.insert(left, right, found.unwrap_or(NONE));
        found
    }

    /// The pair `left`+`right`, which was never looked up, as [`Self::lookup`] makes it:
    /// one hash operation instead of two. A merge's new pairs are such pairs: each holds the
    /// merged symbol, which no word held before.
    pub fn make(&mut self, left: u32, right: u32) -> Option<u32> {
        let found = self.new_pair(left, right);
        let old = self.pair_ids.insert(left, right, found.unwrap_or(NONE));
        debug_assert!(old.is_none(), "pair {left}+{right} was made twice");
        found
    }

    /// A new symbol for `left`+`right` if its text may be a piece.
    fn new_pair(&mut self, left: u32, right: u32) -> Option<u32> {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.push_str(self.text_of(left));
        text.push_str(self.text_of(right));
        let found = if self.rules.is_valid(&text) {
            let chars = self.chars[left as usize] + self.chars[right as usize];
            Some(self.push((left, right), chars, &text))
        } else {
            None
        };
        self.scratch = text;
        found
    }

    /// Starts fetching the map entry that [`Self::lookup`] or [`Self::make`] of
    /// `left`+`right` reads first.
    pub fn prefetch_pair(&self, left: u32, right: u32) {
        self.pair_ids.prefetch(left, right);
    }

    /// Starts fetching what [`Self::make`] of `left`+`right` reads of its parts, in two
    /// steps: `first` their lengths and where their texts are, then (once those are in) the
    /// texts. The merged part is in cache; the other is any symbol.
    pub fn prefetch_parts(&self, left: u32, right: u32, first: bool) {
        for id in [left as usize, right as usize] {
            if first {
                prefetch(self.ends.as_ptr().wrapping_add(id.wrapping_sub(1)));
                prefetch(self.chars.as_ptr().wrapping_add(id));
            } else if let Some(&start) = id.checked_sub(1).and_then(|i| self.ends.get(i)) {
                prefetch(self.texts.as_ptr().wrapping_add(start));
            }
        }
    }

    /// The two parts of pair `id`.
    pub fn parts_of(&self, id: u32) -> (u32, u32) {
        self.parts[id as usize]
    }

    /// Takes `id` out of the cache.
    pub fn erase(&mut self, id: u32) {
        if self.state[id as usize] != State::Erased {
            self.state[id as usize] = State::Erased;
            self.cache_size -= 1;
        }
        self.freq[id as usize] = 0;
        self.occurrences[id as usize] = Vec::new();
    }

    /// Records that `id` occurs `weight` more times in all, in `words` (ascending).
    pub fn add_words(&mut self, id: u32, weight: u64, words: Vec<u32>) {
        let i = id as usize;
        self.freq[i] += weight;
        let occ = &mut self.occurrences[i];
        if occ.is_empty() {
            *occ = words;
            return;
        }
        for w in words {
            // The lists stay ascending: `WordStore::parts` relies on it.
            debug_assert!(
                occ.last().is_none_or(|&last| last <= w),
                "word ids must ascend"
            );
            if occ.last() != Some(&w) {
                occ.push(w);
            }
        }
    }

    /// Starts fetching the count of `id`, for a [`Self::remove`] soon after.
    pub fn prefetch_count(&self, id: u32) {
        prefetch(self.freq.as_ptr().wrapping_add(id as usize));
    }

    /// Records that `id` occurs `weight` fewer times.
    pub fn remove(&mut self, id: u32, weight: u64) {
        let f = &mut self.freq[id as usize];
        *f = f.saturating_sub(weight);
    }

    fn push(&mut self, parts: (u32, u32), chars: u32, text: &str) -> u32 {
        let id = self.parts.len() as u32;
        let mut head = [0u8; 8];
        let n = text.len().min(8);
        head[..n].copy_from_slice(&text.as_bytes()[..n]);
        self.texts.push_str(text);
        self.ends.push(self.texts.len());
        self.parts.push(parts);
        self.chars.push(chars);
        self.prefix.push(u64::from_be_bytes(head));
        self.freq.push(0);
        self.state.push(State::Live);
        self.occurrences.push(Vec::new());
        self.cache_size += 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_known_by_their_parts() {
        let mut s = Symbols::new(PieceRules::default());
        let (a, b) = (s.char_id('a'), s.char_id('b'));
        let ab = s.lookup(a, b).unwrap();
        let abb = s.lookup(ab, b).unwrap();
        let bb = s.lookup(b, b).unwrap();
        let a_bb = s.lookup(a, bb).unwrap();
        assert_ne!(abb, a_bb);
        assert_eq!(s.text(abb), s.text(a_bb));
        assert_eq!(s.chars[abb as usize], 3);
        // "b▁" may not be a piece: ▁ only opens one.
        let space = s.char_id('▁');
        assert_eq!(s.lookup(b, space), None);
        assert_eq!(s.cache_size, 7);
        s.erase(ab);
        assert_eq!(s.cache_size, 6);
        assert_eq!(s.lookup(a, b), Some(ab));
        assert_eq!((s.state[ab as usize], s.count(ab)), (State::Ghost, 0));
        assert_eq!(s.cache_size, 7);
    }
}
