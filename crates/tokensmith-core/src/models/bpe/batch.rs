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
//! The first piece that misses (or is longer than a cache key) and everything after it go to
//! [`Bpe::encode_rest`], which first probes them all, starts loading what the misses need
//! next (a vocabulary slot, the stored bytes of a long piece), and then encodes them in order.
//! Counting runs the same passes and adds up the number of ranks instead of writing them.

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
struct Keys {
    keys: [InlineKey; BATCH],
    at: [u64; BATCH],
    /// Bit `k` is set when the `k`-th piece is longer than a key.
    long: u32,
}

impl Keys {
    /// The keys of the pieces at `spans` (at most [`BATCH`]) of `text`, with their cache
    /// slots requested from memory.
    #[inline(always)]
    fn new(text: &[u8], spans: &[(usize, usize)], state: &ThreadState) -> Self {
        let mut keys = Self {
            keys: [InlineKey::default(); BATCH],
            at: [0; BATCH],
            long: 0,
        };
        for (k, &(start, end)) in spans.iter().enumerate().take(BATCH) {
            let len = end - start;
            if len <= INLINE {
                let key = InlineKey::from_text(text, start, end);
                let set = PieceCache::index(key.hash());
                state.pieces.prefetch_set(set);
                keys.keys[k] = key;
                keys.at[k] = set as u64;
            } else {
                keys.keys[k].len = len.min(u32::MAX as usize) as u32;
                keys.long |= 1 << k;
                if len <= LONG_MAX {
                    let hash = LongPieceCache::hash(&text[start..end]);
                    state.long_pieces.prefetch(hash);
                    keys.at[k] = hash;
                }
            }
        }
        keys
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
        let stop = n.min(next_long).min(BATCH);
        if k >= stop {
            return k;
        }
        k + state
            .pieces
            .find_run(&self.keys[k..stop], &self.at[k..stop], hit)
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
        let keys = Keys::new(text, spans, state);
        let n = spans.len().min(BATCH);
        let mut k = 0;
        while k < n {
            // Room for the ranks of every piece left, and a whole slot after the last.
            out.reserve((n - k + 1) * MAX_TOKENS);
            let before = out.len();
            let spare = out.spare_capacity_mut();
            let mut written = 0;
            k = keys.hits_from(k, n, state, |hit| {
                let slot: &mut [MaybeUninit<Rank>; MAX_TOKENS] = (&mut spare
                    [written..written + MAX_TOKENS])
                    .try_into()
                    .expect("a slot of MAX_TOKENS ranks");
                written += hit.write_to(slot);
            });
            // SAFETY: `write_to` initialised the first `written` ranks after the old length,
            // within the capacity reserved above.
            unsafe { out.set_len(before + written) };
            if k == n {
                break;
            }
            if !keys.is_long(k) {
                return self.encode_rest(text, spans, &keys, k, out, state);
            }
            let (start, end) = spans[k];
            self.encode_long_hashed(&text[start..end], keys.at[k], out, state)?;
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
        let keys = Keys::new(text, spans, state);
        let n = spans.len().min(BATCH);
        let mut total = 0;
        let mut k = 0;
        while k < n {
            k = keys.hits_from(k, n, state, |hit| total += hit.count());
            if k == n {
                break;
            }
            scratch.clear();
            if !keys.is_long(k) {
                self.encode_rest(text, spans, &keys, k, scratch, state)?;
                return Ok(total + scratch.len());
            }
            let (start, end) = spans[k];
            self.encode_long_hashed(&text[start..end], keys.at[k], scratch, state)?;
            total += scratch.len();
            k += 1;
        }
        Ok(total)
    }

    /// The pieces of a batch from the `first` one on, which may miss the cache.
    #[inline(never)]
    fn encode_rest(
        &self,
        text: &[u8],
        spans: &[(usize, usize)],
        keys: &Keys,
        first: usize,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        let spans = &spans[..spans.len().min(BATCH)];
        // Short pieces are looked up first (nearly all hit); a miss starts loading the
        // vocabulary slot its merge will need, and a long piece its stored bytes.
        let mut hits = [None::<CachedRanks>; BATCH];
        let pending = keys.keys.iter().zip(&keys.at).zip(&mut hits);
        for ((&key, &at), hit) in pending.take(spans.len()).skip(first) {
            let len = key.len as usize;
            if len <= INLINE {
                *hit = state.pieces.find_in_set(key, at as usize);
                if hit.is_none() {
                    self.prefetch_token(key.hash());
                }
            } else if len <= LONG_MAX {
                state.long_pieces.prefetch_entry(at);
            }
        }
        for (k, &(start, end)) in spans.iter().enumerate().skip(first) {
            let key = keys.keys[k];
            if let Some(hit) = &hits[k] {
                hit.append_to(out);
            } else if key.len as usize <= INLINE {
                self.encode_short_piece(text, start, end, key, key.hash(), out, state)?;
            } else {
                self.encode_long_hashed(&text[start..end], keys.at[k], out, state)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::merge::tests::{cl100k, reference};
    use super::*;
    use proptest::prelude::*;

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
