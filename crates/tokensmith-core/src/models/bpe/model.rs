//! The byte-level BPE vocabulary: bytes to rank, rank to bytes, and the merge table.

use super::cache::ThreadState;
use super::cuts::{CutTable, LazyCuts};
use super::fill::OwnEncodings;
use super::long_cache::{LongPieceCache, LONG_MAX};
use super::merge;
use super::pair_table::{PairTable, RANK_BITS};
use super::piece_table::{InlineKey, PieceTable, INLINE};
use super::token_table::TokenTable;
use crate::error::{Error, Result};
use crate::limits::{self, Limit};
use crate::thread_tables::CacheTag;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A token's rank, which is also its id.
pub type Rank = u32;

/// Marks "no rank" in dense tables.
pub(crate) const NO_RANK: Rank = Rank::MAX;

/// A tiktoken-style BPE vocabulary, immutable once built and safe to share across threads.
#[derive(Debug, Clone)]
pub struct Bpe {
    /// Identifies this vocabulary to the per-thread piece caches, which are let go once the
    /// vocabulary and its clones are dropped.
    tag: Arc<CacheTag>,
    encoder: FxHashMap<Vec<u8>, Rank>,
    /// The same map as `encoder`, laid out for fast lookups of whole pieces.
    lookup: PieceTable,
    /// `(left, right)` to the rank of their concatenation.
    pairs: PairTable,
    byte_rank: [Rank; 256],
    decoder: TokenTable,
    /// The rank of the empty token, if the vocabulary has one. tiktoken accepts it (Whisper's
    /// multilingual vocabulary holds one); encoding never yields it and it decodes to nothing,
    /// so it lives only in the decoder, outside every encoding table.
    empty: Option<Rank>,
    /// A piece that is a token is that token, without merging (tiktoken; HF's
    /// `ignore_merges`). Without it, every piece is merged from its bytes (HF's BPE).
    whole_pieces: bool,
    /// Which tokens a new thread's piece cache starts with, when they must be found by
    /// merging (see [`OwnEncodings`]).
    own: OwnEncodings,
    /// Where long pieces may be cut before merging, built once a megabyte of them is merged.
    cuts: LazyCuts,
}

impl Bpe {
    /// Builds the vocabulary from `(token bytes, rank)` pairs.
    ///
    /// Fails if two tokens share a rank or a byte string. One token may be empty, as tiktoken
    /// allows: it keeps its rank for decoding and is never produced by encoding.
    ///
    /// ```
    /// use tokensmith_core::models::bpe::Bpe;
    /// let bpe = Bpe::new(vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1), (b"ab".to_vec(), 2)]).unwrap();
    /// assert_eq!(bpe.encode(b"abab").unwrap(), [2, 2]);
    /// ```
    pub fn new(ranks: Vec<(Vec<u8>, Rank)>) -> Result<Self> {
        Self::build(ranks, None, true)
    }

    /// Builds the vocabulary from `(token bytes, id)` pairs and an explicit merge list of
    /// `(left, right, merged)` ids: only the listed pairs merge, the lowest merged id first.
    /// That is HF's BPE when the merged ids rise with the merges' order (the caller checks).
    /// With `whole_pieces`, a piece that is a token is that token (HF's `ignore_merges`).
    ///
    /// ```
    /// use tokensmith_core::models::bpe::Bpe;
    /// let tokens = vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1), (b"ab".to_vec(), 2), (b"ba".to_vec(), 3)];
    /// // "ba" is a token, but no merge makes it
    /// let bpe = Bpe::from_merges(tokens.clone(), vec![(0, 1, 2)], false).unwrap();
    /// assert_eq!(bpe.encode(b"ba").unwrap(), [1, 0]);
    /// let whole = Bpe::from_merges(tokens, vec![(0, 1, 2)], true).unwrap();
    /// assert_eq!(whole.encode(b"ba").unwrap(), [3]);
    /// ```
    pub fn from_merges(
        tokens: Vec<(Vec<u8>, Rank)>,
        mut merges: Vec<(Rank, Rank, Rank)>,
        whole_pieces: bool,
    ) -> Result<Self> {
        // A fixed insertion order makes the table's layout, and so its speed, reproducible.
        merges.sort_unstable();
        Self::build(tokens, Some(merges), whole_pieces)
    }

    fn build(
        ranks: Vec<(Vec<u8>, Rank)>,
        merges: Option<Vec<(Rank, Rank, Rank)>>,
        whole_pieces: bool,
    ) -> Result<Self> {
        let mut encoder: FxHashMap<Vec<u8>, Rank> = FxHashMap::default();
        encoder.reserve(ranks.len());
        let mut empty: Option<Rank> = None;
        for (bytes, rank) in ranks {
            limits::check(
                Limit::MaxTokenBytes,
                bytes.len() as u64,
                "a token's length in bytes",
            )?;
            if rank == NO_RANK {
                return Err(Error::InvalidVocab(format!("rank {rank} is reserved")));
            }
            if bytes.is_empty() {
                if let Some(old) = empty.replace(rank) {
                    return Err(Error::InvalidVocab(format!(
                        "the empty token appears twice (ranks {old} and {rank})"
                    )));
                }
                continue;
            }
            if let Some(old) = encoder.insert(bytes.clone(), rank) {
                return Err(Error::InvalidVocab(format!(
                    "token {bytes:?} appears twice (ranks {old} and {rank})"
                )));
            }
        }
        let count = encoder.len() + usize::from(empty.is_some());
        let max_rank = encoder.values().chain(&empty).copied().max().unwrap_or(0) as usize;
        // The packed tables use the all-ones 21-bit value to mark "empty" and "no rank".
        let limit = (1usize << RANK_BITS) - 1;
        if max_rank >= limit {
            return Err(Error::InvalidVocab(format!(
                "rank {max_rank} is too large: ranks must be below {limit}"
            )));
        }
        if max_rank > 2 * count + 1024 {
            return Err(Error::InvalidVocab(format!(
                "the largest rank is {max_rank} but there are only {count} tokens; ranks must be dense"
            )));
        }
        let decoder = TokenTable::new(
            encoder
                .iter()
                .map(|(b, &r)| (b.as_slice(), r))
                .chain(empty.map(|r| (&b""[..], r))),
        );
        let distinct_ranks = (0..decoder.id_bound() as u32)
            .filter(|&r| decoder.get(r).is_some())
            .count();
        if distinct_ranks != count {
            return Err(Error::InvalidVocab(format!(
                "{count} tokens but only {distinct_ranks} distinct ranks: two tokens share a rank"
            )));
        }
        let mut byte_rank = [NO_RANK; 256];
        for (b, slot) in byte_rank.iter_mut().enumerate() {
            if let Some(&r) = encoder.get(&[b as u8][..]) {
                *slot = r;
            }
        }
        let merges = merges.unwrap_or_else(|| find_pairs(&encoder));
        if let Some(&(a, b, m)) = merges
            .iter()
            .find(|&&(a, b, m)| [a, b, m].iter().any(|&r| decoder.get(r).is_none()))
        {
            return Err(Error::InvalidVocab(format!(
                "the merge ({a}, {b}) -> {m} names an id that is not a token"
            )));
        }
        let pairs = PairTable::new(&merges, &byte_rank, decoder.id_bound());
        let lookup = PieceTable::new(encoder.iter().map(|(b, &r)| (b.as_slice(), r)));
        Ok(Self {
            tag: CacheTag::new(),
            encoder,
            lookup,
            pairs,
            byte_rank,
            decoder,
            empty,
            whole_pieces,
            own: OwnEncodings::default(),
            cuts: LazyCuts::default(),
        })
    }

    /// The rank of a whole byte string, if it is a token.
    #[inline(always)]
    pub fn rank_of(&self, bytes: &[u8]) -> Option<Rank> {
        self.lookup.get(bytes)
    }

    /// Every merge as `(left, right, merged)`, in no particular order.
    pub(crate) fn merges(&self) -> impl Iterator<Item = (Rank, Rank, Rank)> + '_ {
        self.pairs.merges()
    }

    /// The safe cuts of this vocabulary's long pieces, built now if they are not.
    #[cfg(test)]
    pub(super) fn cut_table(&self) -> &CutTable {
        self.cuts.get(self)
    }

    /// The safe cuts for a long piece of `len` bytes, once enough long pieces have been
    /// merged to be worth building them (see `cuts.rs`).
    #[inline]
    pub(super) fn cuts_for_piece(&self, len: usize) -> Option<&CutTable> {
        self.cuts.for_piece(self, len)
    }

    /// The bytes of the token with this rank.
    #[inline(always)]
    pub fn token_bytes(&self, rank: Rank) -> Option<&[u8]> {
        self.decoder.get(rank)
    }

    /// The rank of the token made by joining tokens `a` and `b`, or `NO_RANK`.
    #[inline(always)]
    pub(crate) fn pair_rank(&self, a: Rank, b: Rank) -> Rank {
        self.pairs.get(a, b)
    }

    /// The rank of the token made of two single bytes, or `NO_RANK`.
    #[inline(always)]
    pub(crate) fn byte_pair_rank(&self, a: u8, b: u8) -> Rank {
        self.pairs.of_bytes(a, b)
    }

    #[inline(always)]
    pub(crate) fn byte_rank(&self, b: u8) -> Result<Rank> {
        match self.byte_rank[b as usize] {
            NO_RANK => Err(Error::MissingByte(b)),
            r => Ok(r),
        }
    }

    /// A process-unique id of this vocabulary (shared by clones).
    pub fn id(&self) -> u64 {
        self.tag.get()
    }

    /// Appends the ranks of `text[start..end]` to `out`, consulting and filling `cache`.
    ///
    /// This is the encoder's hot path: a cached piece costs one L1/L2 lookup.
    #[inline(always)]
    pub fn encode_piece_cached(
        &self,
        text: &[u8],
        start: usize,
        end: usize,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        if end - start > INLINE {
            return self.encode_long_piece(&text[start..end], out, state);
        }
        let key = InlineKey::from_text(text, start, end);
        self.encode_short_piece(text, start, end, key, key.hash(), out, state)
    }

    /// Starts loading the vocabulary slot where the lookup of an inline key with this hash
    /// begins (for a piece that missed the piece cache and is about to be encoded).
    #[inline(always)]
    pub(super) fn prefetch_token(&self, hash: usize) {
        self.lookup.prefetch(hash);
    }

    /// A piece of at most [`INLINE`] bytes whose key and hash are known.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn encode_short_piece(
        &self,
        text: &[u8],
        start: usize,
        end: usize,
        key: InlineKey,
        hash: usize,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        if state.pieces.get_into(key, hash, out) {
            return Ok(());
        }
        let before = out.len();
        let piece = &text[start..end];
        let long_hash = LongPieceCache::hash_of_key(hash);
        // The long-piece cache also holds the merged short pieces, those of more ranks than
        // a slot holds among them. On text like that seen before (the last short miss was
        // found there), those are the short misses, so the cache is asked before the
        // vocabulary is searched; it holds no whole token, so the answer is the same.
        let asked = self.whole_pieces && state.warm_misses;
        let found = asked && state.long_pieces.get_into(piece, long_hash, out);
        if !found {
            let whole = if self.whole_pieces {
                self.lookup.get_hashed(key, hash)
            } else {
                None
            };
            state.warm_misses = match whole {
                Some(r) => {
                    out.push(r);
                    false
                }
                None => self.encode_short_merged(piece, long_hash, !asked, out, state)?,
            };
        }
        state.pieces.put(key, hash, &out[before..]);
        Ok(())
    }

    /// A piece of at most [`INLINE`] bytes that missed the piece cache and is not a token
    /// (or may not be taken whole): the long-piece cache may still hold it, since it keeps
    /// the merged short pieces too, with as many ranks as they have. There it survives the
    /// piece cache's evictions (a set of the piece cache keeps only two pieces, and a few
    /// scripts' text wants more), so warm text merges almost nothing again. `hash` is the
    /// piece's [`LongPieceCache::hash_of_key`]; `ask` is false when the cache was asked
    /// already. Returns whether the long-piece cache held it.
    #[inline(never)]
    fn encode_short_merged(
        &self,
        piece: &[u8],
        hash: u64,
        ask: bool,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<bool> {
        if ask && state.long_pieces.get_into(piece, hash, out) {
            return Ok(true);
        }
        let before = out.len();
        merge::merge(self, piece, out, &mut state.scratch)?;
        state.long_pieces.put(piece, hash, &out[before..]);
        Ok(false)
    }

    /// A piece of more than [`INLINE`] bytes.
    #[inline(always)]
    fn encode_long_piece(
        &self,
        piece: &[u8],
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        let hash = if piece.len() <= LONG_MAX {
            LongPieceCache::hash(piece)
        } else {
            0
        };
        self.encode_long_hashed(piece, hash, out, state)
    }

    /// A piece of more than [`INLINE`] bytes whose [`LongPieceCache::hash`] is `hash` (any
    /// value if the piece is longer than [`LONG_MAX`]).
    #[inline(always)]
    pub(super) fn encode_long_hashed(
        &self,
        piece: &[u8],
        hash: u64,
        out: &mut Vec<Rank>,
        state: &mut ThreadState,
    ) -> Result<()> {
        let whole = |piece: &[u8]| {
            if self.whole_pieces {
                self.lookup.get_long(piece)
            } else {
                None
            }
        };
        if piece.len() > LONG_MAX {
            if let Some(r) = whole(piece) {
                out.push(r);
                return Ok(());
            }
            return merge::merge(self, piece, out, &mut state.scratch);
        }
        // The cache first: a hit then costs one hash of the piece instead of two.
        if state.long_pieces.get_into(piece, hash, out) {
            return Ok(());
        }
        let before = out.len();
        match whole(piece) {
            Some(r) => out.push(r),
            None => merge::merge(self, piece, out, &mut state.scratch)?,
        }
        state.long_pieces.put(piece, hash, &out[before..]);
        Ok(())
    }

    /// The bytes of every token and where each one's sit among them.
    pub(super) fn decoder(&self) -> &TokenTable {
        &self.decoder
    }

    /// Whether a piece that is a token is that token.
    pub(super) fn whole_pieces(&self) -> bool {
        self.whole_pieces
    }

    /// The shared record of which tokens merge to themselves.
    pub(super) fn own_encodings(&self) -> &OwnEncodings {
        &self.own
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.encoder.len() + usize::from(self.empty.is_some())
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One past the largest rank.
    pub fn rank_bound(&self) -> usize {
        self.decoder.id_bound()
    }

    /// Every `(bytes, rank)` pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], Rank)> {
        self.encoder
            .iter()
            .map(|(b, &r)| (b.as_slice(), r))
            .chain(self.empty.map(|r| (&b""[..], r)))
    }

    /// Appends the ranks of one piece to `out`.
    pub fn encode_piece(&self, piece: &[u8], out: &mut Vec<Rank>) -> Result<()> {
        super::cache::with_cache(self, |state| {
            self.encode_piece_cached(piece, 0, piece.len(), out, state)
        })
    }

    /// The ranks of one piece (convenient, not fast).
    pub fn encode(&self, piece: &[u8]) -> Result<Vec<Rank>> {
        let mut out = Vec::new();
        self.encode_piece(piece, &mut out)?;
        Ok(out)
    }
}

/// Every `(left, right, merged)` where both halves of a token are tokens themselves.
fn find_pairs(encoder: &FxHashMap<Vec<u8>, Rank>) -> Vec<(Rank, Rank, Rank)> {
    use rayon::prelude::*;
    // A token splits only where both halves have the length of some token: trying the lengths
    // that occur rather than every cut keeps one very long token from costing its length
    // squared (a 640 KB token took 30 s to load).
    let mut lengths: Vec<usize> = encoder.keys().map(Vec::len).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let mut is_length = vec![false; lengths.last().map_or(0, |&n| n + 1)];
    for &n in &lengths {
        is_length[n] = true;
    }
    let (lengths, is_length) = (&lengths, &is_length);
    // In this crate's pools: see `parallel::install` (rayon's global pool hangs after fork).
    crate::parallel::install(|| {
        let tokens: Vec<(&Vec<u8>, &Rank)> = encoder.iter().collect();
        let mut found: Vec<(Rank, Rank, Rank)> = tokens
            .par_iter()
            .flat_map_iter(|(bytes, &rank)| {
                let n = bytes.len();
                let cuts = lengths.iter().copied().take_while(move |&k| k < n);
                cuts.filter(move |&k| is_length[n - k])
                    .filter_map(move |k| {
                        let a = encoder.get(&bytes[..k])?;
                        let b = encoder.get(&bytes[k..])?;
                        Some((*a, *b, rank))
                    })
            })
            .collect();
        // A fixed insertion order makes the table's layout, and so its speed, reproducible.
        found.par_sort_unstable();
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_piece_of_more_ranks_than_a_cache_slot_comes_back_from_the_long_piece_cache() {
        // Single bytes only: a piece of seven bytes is seven ranks, more than a slot holds.
        let bpe = Bpe::new((0..=255u8).map(|b| (vec![b], b as Rank)).collect()).unwrap();
        let mut state = ThreadState::default();
        let text = b"abcdefg";
        let expected: Vec<Rank> = text.iter().map(|&b| b as Rank).collect();
        let key = InlineKey::new(text);
        for _ in 0..2 {
            let mut out = vec![1];
            bpe.encode_piece_cached(text, 0, 7, &mut out, &mut state)
                .unwrap();
            assert_eq!(out[1..], expected);
        }
        assert!(!state.pieces.contains(key, key.hash()));
        let mut cached = Vec::new();
        let hash = LongPieceCache::hash_of_key(key.hash());
        assert!(state.long_pieces.get_into(text, hash, &mut cached));
        assert_eq!(cached, expected);
    }

    #[test]
    fn the_all_ones_rank_is_refused() {
        let limit: Rank = (1 << super::super::pair_table::RANK_BITS) - 1;
        let err = Bpe::new(vec![(b"a".to_vec(), limit)]).unwrap_err();
        assert!(
            err.to_string().contains("ranks must be below 2097151"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_token_decodes_to_nothing_and_is_never_produced() {
        let ranks = vec![
            (b"a".to_vec(), 0),
            (b"b".to_vec(), 1),
            (b"ab".to_vec(), 2),
            (Vec::new(), 3),
        ];
        let bpe = Bpe::new(ranks).unwrap();
        assert_eq!(bpe.encode(b"abab").unwrap(), [2, 2]);
        assert_eq!(bpe.encode(b"ba").unwrap(), [1, 0]);
        assert_eq!(bpe.token_bytes(3), Some(&b""[..]));
        assert_eq!(bpe.len(), 4);
        let mut all: Vec<(Vec<u8>, Rank)> = bpe.iter().map(|(b, r)| (b.to_vec(), r)).collect();
        all.sort_by_key(|&(_, r)| r);
        assert_eq!(all[3], (Vec::new(), 3));
        let twice = Bpe::new(vec![(b"a".to_vec(), 0), (Vec::new(), 1), (Vec::new(), 2)]);
        assert!(twice
            .unwrap_err()
            .to_string()
            .contains("empty token appears twice"));
    }
}
