//! What a new thread's piece cache starts with: every token of up to [`INLINE`] bytes that is
//! its own piece's encoding.
//!
//! Under tiktoken's rule (`whole_pieces`) a piece that is a token is that token, so every
//! short token qualifies and the fill reads them straight from the vocabulary. A vocabulary
//! built from explicit merges without `whole_pieces` (GPT-2's and Qwen2's `tokenizer.json`)
//! merges every piece from its bytes, and a token no merge makes comes out as several tokens.
//! There the qualifying tokens are found by running the merge code itself on each token's
//! bytes, so the fill is exact by construction: once per vocabulary, on its first thread,
//! kept as one bit per rank and shared by clones. Tokens that merge into several tokens are
//! left out; a piece equal to one is merged on its first miss, as before.
//!
//! It does not pre-fill pieces longer than [`INLINE`] bytes, or anything the text has not
//! shown to be common.

use super::cache::{PieceCache, ThreadState};
use super::long_cache::LongPieceCache;
use super::merge::{self, MergeScratch};
use super::model::{Bpe, Rank};
use super::piece_table::{InlineKey, INLINE};
use std::sync::{Arc, OnceLock};

/// One bit per rank: set when the token has at most [`INLINE`] bytes and merging its bytes
/// gives that token alone. Computed on first use and shared by the vocabulary's clones.
#[derive(Debug, Clone, Default)]
pub(super) struct OwnEncodings(Arc<OnceLock<Vec<u64>>>);

impl OwnEncodings {
    /// The bits for `bpe` (the vocabulary this record belongs to), found on the first call.
    fn bits(&self, bpe: &Bpe) -> &[u64] {
        self.0.get_or_init(|| {
            let mut bits = vec![0u64; bpe.rank_bound().div_ceil(64)];
            let (mut out, mut scratch) = (Vec::new(), MergeScratch::default());
            for rank in 0..bpe.rank_bound() as Rank {
                let Some(bytes) = bpe.token_bytes(rank) else {
                    continue;
                };
                if !(1..=INLINE).contains(&bytes.len()) {
                    continue;
                }
                out.clear();
                // A token with a byte the vocabulary lacks cannot be encoded: not cached.
                let merged = merge::merge(bpe, bytes, &mut out, &mut scratch).is_ok();
                if merged && out == [rank] {
                    bits[rank as usize / 64] |= 1 << (rank % 64);
                }
            }
            bits
        })
    }
}

impl Bpe {
    /// A new thread's caches for this vocabulary, whose piece cache starts out holding every
    /// token of up to [`INLINE`] bytes that is its own piece's encoding: text never seen
    /// before then hits on its common words instead of looking each one up or merging it.
    /// They go in from the highest rank down, so that where more tokens share a set than it
    /// holds, the lowest ranks (the most frequent merges) stay. The tables the first pieces
    /// that miss it need (the long-piece cache, the merge scratch) are allocated and backed by
    /// memory here too, so that their page faults (a few hundred microseconds on huge pages)
    /// are part of setting the thread up rather than of its first encode call.
    pub(crate) fn new_thread_state(&self) -> ThreadState {
        let mut state = ThreadState {
            pieces: PieceCache::default(),
            long_pieces: LongPieceCache::backed(),
            scratch: MergeScratch::ready(self.rank_bound()),
            warm_misses: false,
        };
        let own = (!self.whole_pieces()).then(|| self.own_encodings().bits(self));
        let decoder = self.decoder();
        // Keys read straight from the decoder's arena, where the bytes of all tokens sit one
        // after another.
        let arena = decoder.bytes();
        let ranks = (0..self.rank_bound() as Rank).rev();
        state.pieces.prefill(ranks.filter_map(|r| {
            let (start, end) = decoder.span(r)?;
            let inline = (1..=INLINE).contains(&(end - start));
            let qualifies = own.is_none_or(|bits| bits[r as usize / 64] >> (r % 64) & 1 == 1);
            (inline && qualifies).then(|| (InlineKey::from_text(arena, start, end), r))
        }));
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::data_gym;
    use std::collections::HashMap;

    /// The ranks cached for `bytes` in `state`, if any.
    fn cached(state: &mut ThreadState, bytes: &[u8]) -> Option<Vec<Rank>> {
        let key = InlineKey::new(bytes);
        let mut out = Vec::new();
        state
            .pieces
            .get_into(key, key.hash(), &mut out)
            .then_some(out)
    }

    #[test]
    fn a_new_threads_cache_holds_the_tokens_that_are_their_own_encoding() {
        let tokens = vec![
            (b"a".to_vec(), 0),
            (b"b".to_vec(), 1),
            (b"c".to_vec(), 2),
            (b"ab".to_vec(), 3),
            (b"abc".to_vec(), 4),
        ];
        // tiktoken's rule: a piece that is a token is that token, though no merge makes "abc".
        let whole = Bpe::new(tokens.clone()).unwrap();
        let mut state = whole.new_thread_state();
        assert_eq!(cached(&mut state, b"abc"), Some(vec![4]));
        // Merges only: "ab" is merged, "abc" is two tokens and so left out of the fill.
        let merged = Bpe::from_merges(tokens, vec![(0, 1, 3)], false).unwrap();
        let mut state = merged.new_thread_state();
        assert_eq!(cached(&mut state, b"ab"), Some(vec![3]));
        assert_eq!(cached(&mut state, b"c"), Some(vec![2]));
        assert_eq!(cached(&mut state, b"abc"), None);
        let mut out = Vec::new();
        merged
            .encode_spans(b"abc", &[(0, 3)], &mut out, &mut state)
            .unwrap();
        assert_eq!(out, [3, 2]);
    }

    /// Every token of up to [`INLINE`] bytes encodes the same through a pre-filled cache and
    /// an empty one, and as `expected` says; returns how many tokens were checked.
    fn check_every_short_token(bpe: &Bpe, expected: impl Fn(&[u8]) -> Vec<Rank>) -> usize {
        let mut prefilled = bpe.new_thread_state();
        let mut empty = ThreadState::default();
        let mut checked = 0;
        for (bytes, _) in bpe.iter().filter(|(b, _)| (1..=INLINE).contains(&b.len())) {
            let [mut a, mut b] = [Vec::new(), Vec::new()];
            let span = [(0, bytes.len())];
            bpe.encode_spans(bytes, &span, &mut a, &mut prefilled)
                .unwrap();
            bpe.encode_spans(bytes, &span, &mut b, &mut empty).unwrap();
            let want = expected(bytes);
            assert_eq!((&a, &b), (&want, &want), "{bytes:?}");
            checked += 1;
        }
        checked
    }

    #[test]
    fn every_prefilled_token_encodes_as_through_an_empty_cache() {
        let bpe = super::super::merge::tests::cl100k();
        let checked = check_every_short_token(bpe, |b| vec![bpe.rank_of(b).unwrap()]);
        assert!(checked > 90_000, "{checked}");
    }

    /// Merge order by the bytes of a merge's halves.
    type Order = HashMap<(Vec<u8>, Vec<u8>), usize>;

    /// HF's BPE, written independently: merge the adjacent pair listed first (`order`, by the
    /// bytes of its halves), repeat; then look each part up.
    fn listed_merges(bpe: &Bpe, order: &Order, piece: &[u8]) -> Vec<Rank> {
        let mut parts: Vec<Vec<u8>> = piece.iter().map(|&b| vec![b]).collect();
        while let Some((_, i)) = (1..parts.len())
            .filter_map(|i| Some((*order.get(&(parts[i - 1].clone(), parts[i].clone()))?, i)))
            .min()
        {
            let right = parts.remove(i);
            parts[i - 1].extend(right);
        }
        parts.iter().map(|p| bpe.rank_of(p).unwrap()).collect()
    }

    #[test]
    fn every_short_gpt2_token_encodes_as_hf_merges_it_through_a_prefilled_cache() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/gpt2_data_gym/vocab.bpe.gz"
        );
        let (tokens, merges) = data_gym::read(path.as_ref()).unwrap();
        let bpe = Bpe::from_merges(tokens, merges.clone(), false).unwrap();
        // The merges are read in file order, which is the order HF applies them in.
        let bytes = |r| bpe.token_bytes(r).unwrap().to_vec();
        let order: Order = merges
            .iter()
            .enumerate()
            .map(|(i, &(a, b, _))| ((bytes(a), bytes(b)), i))
            .collect();
        let checked = check_every_short_token(&bpe, |b| listed_merges(&bpe, &order, b));
        assert!(checked > 45_000, "{checked}");
        // Most short tokens are their own encoding and so start out cached.
        let bits = bpe.own_encodings().bits(&bpe);
        let own: u32 = bits.iter().map(|w| w.count_ones()).sum();
        assert!(own as usize > checked * 9 / 10, "{own} of {checked}");
    }
}
