//! Encoding the pieces of a text [`BATCH`] at a time: the encoder's hot path.
//!
//! The pre-tokenizer hands over where each piece is; the encoder collects [`BATCH`] of them
//! and then, in two tight passes:
//!
//! 1. packs each piece's bytes into its cache key and starts loading its slot of the piece
//!    cache, which is larger than L2, so that the memory waits of the batch overlap;
//! 2. reads the ranks of the pieces that hit the cache (nearly all of them on text like that
//!    seen before) into a small array on the stack, which then goes to the output in one copy.
//!
//! A piece that misses (or is longer than a cache key) is encoded on its own, and the pieces
//! after it go back to the second pass. At the first short miss of a batch, the pieces after
//! it are probed once, and those that will miss too start loading what they need next (a
//! vocabulary slot, the stored bytes of a long piece), so that their memory waits overlap.
//! (Until 2026-12 every piece after a miss took a slower path; on new English text, where a
//! batch holds one or two misses, that was half of all pieces.) Counting runs the same
//! passes and adds up the number of ranks instead of writing them.

use super::cache::{CachedRanks, PieceCache, ThreadState, MAX_TOKENS};
use super::long_cache::{LongPieceCache, LONG_MAX};
use super::model::{Bpe, Rank};
use super::piece_table::{InlineKey, INLINE};
use crate::error::Result;
use std::mem::MaybeUninit;

/// How many pieces [`Bpe::encode_spans`] takes at once.
pub const BATCH: usize = 32;

/// The cache keys of a batch of pieces, and where each one's lookup starts: the set of the
/// piece cache for a piece of at most [`INLINE`] bytes (whose key holds its bytes), the
/// [`LongPieceCache::hash`] for a longer one up to [`LONG_MAX`] bytes, 0 beyond (a longer
/// piece's key holds only its length).
///
/// Only the first `n` entries are written: a batch is prepared for every 32 pieces, and
/// clearing the arrays first would cost as much as preparing a few of its pieces.
struct Keys {
    keys: [MaybeUninit<InlineKey>; BATCH],
    at: [MaybeUninit<u64>; BATCH],
    /// How many entries are written.
    n: usize,
    /// Bit `k` is set when the `k`-th piece is longer than a key.
    long: u32,
}

impl Keys {
    /// Room for the keys of a batch, none written yet.
    #[inline(always)]
    fn empty() -> Self {
        Self {
            keys: [const { MaybeUninit::uninit() }; BATCH],
            at: [const { MaybeUninit::uninit() }; BATCH],
            n: 0,
            long: 0,
        }
    }

    /// Writes the keys of the pieces at `spans` (at most [`BATCH`]) of `text`, with their
    /// cache slots requested from memory. (Filled in place: a returned `Keys` was copied.)
    ///
    /// The loop handles the common piece, short and with a whole 16-byte word of text from
    /// its start, in line; a longer one or one near the text's end goes to
    /// [`fill_other`](Self::fill_other), out of line, so that the loop keeps its values in
    /// registers.
    #[inline(always)]
    fn fill(&mut self, text: &[u8], spans: &[(usize, usize)], state: &ThreadState) {
        let n = spans.len().min(BATCH);
        self.n = n;
        self.long = 0;
        // Pieces starting before this have a whole word of text from their start.
        let wide_until = text.len().saturating_sub(INLINE);
        for (k, &(start, end)) in spans[..n].iter().enumerate() {
            if end - start <= INLINE && start < wide_until {
                self.write_short(k, InlineKey::from_text(text, start, end), state);
            } else {
                self.fill_other(text, k, start, end, state);
            }
        }
    }

    /// Writes `key` as the `k`-th piece's, with its set of the piece cache requested.
    #[inline(always)]
    fn write_short(&mut self, k: usize, key: InlineKey, state: &ThreadState) {
        let set = PieceCache::index(key.hash());
        state.pieces.prefetch_set(set);
        self.keys[k].write(key);
        self.at[k].write(set as u64);
    }

    /// [`fill`](Self::fill) for the `k`-th piece, at `start..end`, when it is longer than a
    /// key or lies within a word of the text's end.
    #[inline(never)]
    fn fill_other(&mut self, text: &[u8], k: usize, start: usize, end: usize, state: &ThreadState) {
        let len = end - start;
        if len <= INLINE {
            self.write_short(k, InlineKey::from_text(text, start, end), state);
            return;
        }
        self.keys[k].write(InlineKey {
            len: len.min(u32::MAX as usize) as u32,
            ..InlineKey::default()
        });
        self.long |= 1 << k;
        let mut hash = 0;
        if len <= LONG_MAX {
            hash = LongPieceCache::hash(&text[start..end]);
            state.long_pieces.prefetch(hash);
        }
        self.at[k].write(hash);
    }

    /// The keys of the pieces `from..to` (`to` at most `n`).
    #[inline(always)]
    fn keys(&self, from: usize, to: usize) -> &[InlineKey] {
        let written = &self.keys[from..to.min(self.n)];
        // SAFETY: `new` wrote the first `n` entries, and `MaybeUninit<T>` has `T`'s layout.
        unsafe { &*(written as *const [MaybeUninit<InlineKey>] as *const [InlineKey]) }
    }

    /// Where the lookups of the pieces `from..to` (`to` at most `n`) start.
    #[inline(always)]
    fn ats(&self, from: usize, to: usize) -> &[u64] {
        let written = &self.at[from..to.min(self.n)];
        // SAFETY: as in `keys`.
        unsafe { &*(written as *const [MaybeUninit<u64>] as *const [u64]) }
    }

    /// The key of the `k`-th piece (`k` below `n`).
    #[inline(always)]
    fn key(&self, k: usize) -> InlineKey {
        self.keys(k, k + 1)[0]
    }

    /// Where the lookup of the `k`-th piece starts (`k` below `n`).
    #[inline(always)]
    fn at(&self, k: usize) -> u64 {
        self.ats(k, k + 1)[0]
    }

    /// Hands `hit` the cached ranks of the pieces from the `k`-th one on (of the first `n`)
    /// while they hit the piece cache, and returns the index of the first one that does not
    /// (a miss, or a piece longer than a key), or `n`.
    #[inline(always)]
    fn hits_from(
        &self,
        k: usize,
        n: usize,
        state: &mut ThreadState,
        hit: impl FnMut(CachedRanks),
    ) -> usize {
        // Up to the next long piece, only a miss stops the loop.
        let next_long = (self.long >> k << k).trailing_zeros() as usize;
        let stop = n.min(next_long).min(self.n);
        if k >= stop {
            return k;
        }
        k + state
            .pieces
            .find_run(self.keys(k, stop), self.ats(k, stop), hit)
    }

    /// Whether the `k`-th piece is longer than a key.
    #[inline(always)]
    fn is_long(&self, k: usize) -> bool {
        self.long >> k & 1 == 1
    }
}

impl Bpe {
    /// Appends the ranks of the pieces at `spans` of `text` (consecutive, at most [`BATCH`]
    /// of them) to `out`, consulting and filling `state`'s caches.
    #[inline]
    pub fn encode_spans(
        &self,
        text: &[u8],
        spans: &[(usize, usize)],
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        let mut keys = Keys::empty();
        keys.fill(text, spans, state);
        let n = spans.len().min(BATCH);
        let mut k = 0;
        let mut probed = false;
        while k < n {
            // Room for the ranks of every piece left, and a whole slot after the last.
            out.reserve((n - k + 1) * MAX_TOKENS);
            let before = out.len();
            let spare = out.spare_capacity_mut().as_mut_ptr();
            let mut written = 0;
            k = keys.hits_from(k, n, state, |hit| {
                // SAFETY: at most `n - k` pieces hit, each writing at most MAX_TOKENS ranks,
                // so this slot lies within the `(n - k + 1) * MAX_TOKENS` reserved above.
                let slot =
                    unsafe { &mut *spare.add(written).cast::<[MaybeUninit<Rank>; MAX_TOKENS]>() };
                written += hit.write_to(slot);
            });
            // SAFETY: `write_to` initialised the first `written` ranks after the old length,
            // within the capacity reserved above.
            unsafe { out.set_len(before + written) };
            if k == n {
                break;
            }
            if !probed && !keys.is_long(k) {
                self.probe_after_cold(&keys, k, state);
                probed = true;
            }
            self.encode_missed(text, spans[k], &keys, k, out, state)?;
            k += 1;
        }
        Ok(())
    }

    /// The number of ranks of the pieces at `spans` of `text`, as
    /// [`encode_spans`](Self::encode_spans) would append them; `scratch` holds the ranks of the
    /// pieces that miss the cache.
    #[inline]
    pub fn count_spans(
        &self,
        text: &[u8],
        spans: &[(usize, usize)],
        scratch: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<usize> {
        let mut keys = Keys::empty();
        keys.fill(text, spans, state);
        let n = spans.len().min(BATCH);
        let mut total = 0;
        let mut k = 0;
        let mut probed = false;
        while k < n {
            k = keys.hits_from(k, n, state, |hit| total += hit.count());
            if k == n {
                break;
            }
            if !probed && !keys.is_long(k) {
                self.probe_after_cold(&keys, k, state);
                probed = true;
            }
            scratch.clear();
            self.encode_missed(text, spans[k], &keys, k, scratch, state)?;
            total += scratch.len();
            k += 1;
        }
        Ok(total)
    }

    /// [`probe_after`](Self::probe_after), unless the last short miss was found in the
    /// long-piece cache: on text like that seen before, the misses are the few pieces of more
    /// ranks than a slot of the piece cache holds, found in the long-piece cache, whose sets
    /// the probe would load for nothing. (On the multilingual corpus's 2 KB documents with
    /// an 8k byte-level vocabulary, the probe was 2.7% of all instructions.)
    #[inline(always)]
    fn probe_after_cold(&self, keys: &Keys, first: usize, state: &ThreadState) {
        if !state.warm_misses {
            self.probe_after(keys, first, state);
        }
    }

    /// After the first short piece of a batch that missed the piece cache (the `first`
    /// one), starts loading what every piece from it on that misses will need: for a short
    /// piece its vocabulary slot and the long-piece cache set of the merged short pieces, for
    /// a long one its stored bytes. Their memory waits then overlap instead of following one
    /// another; the pieces that hit are left to the fast path.
    #[inline(never)]
    fn probe_after(&self, keys: &Keys, first: usize, state: &ThreadState) {
        let (keys_k, ats) = (keys.keys(first, keys.n), keys.ats(first, keys.n));
        // Long pieces' entries hold no set index: their bits are dropped.
        let mut short_misses = state.pieces.misses(keys_k, ats) & !(keys.long >> first);
        while short_misses != 0 {
            let k = short_misses.trailing_zeros() as usize;
            short_misses &= short_misses - 1;
            let hash = keys_k[k].hash();
            self.prefetch_token(hash);
            state
                .long_pieces
                .prefetch(LongPieceCache::hash_of_key(hash));
        }
        let mut long = keys.long >> first;
        while long != 0 {
            let k = long.trailing_zeros() as usize;
            long &= long - 1;
            if keys_k[k].len as usize <= LONG_MAX {
                state.long_pieces.prefetch_entry(ats[k]);
            }
        }
    }

    /// Appends the ranks of the `k`-th piece of a batch, at `span`, which missed the piece
    /// cache or is longer than a key.
    #[inline(always)]
    fn encode_missed(
        &self,
        text: &[u8],
        span: (usize, usize),
        keys: &Keys,
        k: usize,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        let (start, end) = span;
        if keys.is_long(k) {
            return self.encode_long_hashed(&text[start..end], keys.at(k), out, state);
        }
        let key = keys.key(k);
        self.encode_short_piece(text, start, end, key, key.hash(), out, state)
    }
}

#[cfg(test)]
mod tests {
    use super::super::merge::tests::{cl100k, reference};
    use super::*;
    use proptest::prelude::*;

    /// A short piece of more ranks than a piece-cache slot holds misses the piece cache every
    /// time: merged the first time (a cold miss), then found in the long-piece cache (a warm
    /// one); a new piece that must be merged makes the misses cold again.
    #[test]
    fn misses_are_warm_while_the_long_piece_cache_answers_them() {
        let bpe = cl100k();
        let mut state = bpe.new_thread_state();
        let many: &[u8] = b"\xf8\xf9\xfa\xfb\xfc\xfd";
        let other: &[u8] = b"\xfd\xfc\xfb\xfa\xf9\xf8";
        assert!(reference(bpe, many).len() > MAX_TOKENS);
        let encode = |piece: &[u8], state: &mut ThreadState| {
            let mut out = vec![];
            bpe.encode_spans(piece, &[(0, piece.len())], &mut out, state)
                .unwrap();
            assert_eq!(out, reference(bpe, piece));
            state.warm_misses
        };
        assert!(!encode(many, &mut state), "merged");
        assert!(encode(many, &mut state), "from the long-piece cache");
        assert!(encode(many, &mut state), "again");
        assert!(!encode(other, &mut state), "a new piece");
        // Merged after the cache was asked first (warm), it is kept there all the same.
        assert!(encode(other, &mut state), "kept after its merge");
        assert!(encode(many, &mut state));
        // While misses are warm, the long-piece cache is asked before the vocabulary: a
        // whole token that misses the piece cache (which starts empty here) is not there,
        // and still comes out as its one rank.
        let mut state = ThreadState::default();
        assert!(!encode(many, &mut state));
        assert!(encode(many, &mut state));
        for token in [&b"hello"[..], b" world", b"\xe4\xb8\xad"] {
            assert_eq!(reference(bpe, token).len(), 1);
            assert!(!encode(token, &mut state), "{token:?} is a token");
            assert!(encode(many, &mut state));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// A batch, with repeated pieces, short (inline) and long ones, and cache slots
        /// overwritten inside the batch, gives each piece's own merge result, cold and warm,
        /// and counts as many ranks.
        #[test]
        fn batches_equal_piece_by_piece_merges(
            words in prop::collection::vec(
                prop::collection::vec(prop::sample::select(b"aab eeinst\xe4\xb8\xad-".to_vec()), 1..300),
                1..8,
            ),
            picks in prop::collection::vec(0usize..8, 1..=BATCH),
        ) {
            let bpe = cl100k();
            let mut text = Vec::new();
            let mut spans = Vec::new();
            for &k in &picks {
                let word = &words[k % words.len()];
                spans.push((text.len(), text.len() + word.len()));
                text.extend_from_slice(word);
            }
            let expected: Vec<Rank> = spans.iter().flat_map(|&(a, b)| reference(bpe, &text[a..b])).collect();
            // From an empty cache and from one that starts with the vocabulary's tokens.
            for mut state in [ThreadState::default(), bpe.new_thread_state()] {
                for _ in 0..2 {
                    let mut out = vec![7];
                    bpe.encode_spans(&text, &spans, &mut out, &mut state).unwrap();
                    prop_assert_eq!(&out[1..], &expected[..]);
                }
            }
            // Counting, cold and then warm, gives the number of ranks without keeping them.
            let mut state = ThreadState::default();
            for _ in 0..2 {
                let mut scratch = vec![7];
                let n = bpe.count_spans(&text, &spans, &mut scratch, &mut state).unwrap();
                prop_assert_eq!(n, expected.len());
            }
        }
    }
}
