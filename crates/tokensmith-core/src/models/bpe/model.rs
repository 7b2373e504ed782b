//! The byte-level BPE vocabulary: bytes to rank, rank to bytes, and the merge table.

use super::merge;
use super::token_table::TokenTable;
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;

/// A token's rank, which is also its id.
pub type Rank = u32;

/// Marks "no rank" in dense tables.
pub(crate) const NO_RANK: Rank = Rank::MAX;

/// A tiktoken-style BPE vocabulary, immutable once built and safe to share across threads.
#[derive(Debug, Clone)]
pub struct Bpe {
    encoder: FxHashMap<Vec<u8>, Rank>,
    /// `(left, right)` packed into a u64, to the rank of their concatenation.
    pairs: FxHashMap<u64, Rank>,
    byte_rank: [Rank; 256],
    decoder: TokenTable,
}

#[inline(always)]
pub(crate) fn pair_key(a: Rank, b: Rank) -> u64 {
    ((a as u64) << 32) | b as u64
}

impl Bpe {
    /// Builds the vocabulary from `(token bytes, rank)` pairs.
    ///
    /// Fails if two tokens share a rank or if a token is empty.
    ///
    /// ```
    /// use tokensmith_core::models::bpe::Bpe;
    /// let bpe = Bpe::new(vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1), (b"ab".to_vec(), 2)]).unwrap();
    /// assert_eq!(bpe.encode(b"abab").unwrap(), [2, 2]);
    /// ```
    pub fn new(ranks: Vec<(Vec<u8>, Rank)>) -> Result<Self> {
        let mut encoder: FxHashMap<Vec<u8>, Rank> = FxHashMap::default();
        encoder.reserve(ranks.len());
        for (bytes, rank) in ranks {
            if bytes.is_empty() {
                return Err(Error::InvalidVocab(format!(
                    "token with rank {rank} is empty"
                )));
            }
            if rank == NO_RANK {
                return Err(Error::InvalidVocab(format!("rank {rank} is reserved")));
            }
            if let Some(old) = encoder.insert(bytes.clone(), rank) {
                return Err(Error::InvalidVocab(format!(
                    "token {bytes:?} appears twice (ranks {old} and {rank})"
                )));
            }
        }
        let max_rank = encoder.values().copied().max().unwrap_or(0) as usize;
        if max_rank > 2 * encoder.len() + 1024 {
            return Err(Error::InvalidVocab(format!(
                "the largest rank is {max_rank} but there are only {} tokens; ranks must be dense",
                encoder.len()
            )));
        }
        let decoder = TokenTable::new(encoder.iter().map(|(b, &r)| (b.as_slice(), r)));
        let distinct_ranks = (0..decoder.id_bound() as u32)
            .filter(|&r| decoder.get(r).is_some())
            .count();
        if distinct_ranks != encoder.len() {
            return Err(Error::InvalidVocab(format!(
                "{} tokens but only {distinct_ranks} distinct ranks: two tokens share a rank",
                encoder.len()
            )));
        }
        let mut byte_rank = [NO_RANK; 256];
        for (b, slot) in byte_rank.iter_mut().enumerate() {
            if let Some(&r) = encoder.get(&[b as u8][..]) {
                *slot = r;
            }
        }
        let pairs = build_pairs(&encoder);
        Ok(Self {
            encoder,
            pairs,
            byte_rank,
            decoder,
        })
    }

    /// The rank of a whole byte string, if it is a token.
    #[inline(always)]
    pub fn rank_of(&self, bytes: &[u8]) -> Option<Rank> {
        self.encoder.get(bytes).copied()
    }

    /// The bytes of the token with this rank.
    #[inline(always)]
    pub fn token_bytes(&self, rank: Rank) -> Option<&[u8]> {
        self.decoder.get(rank)
    }

    /// The rank of the token made by joining tokens `a` and `b`, or `NO_RANK`.
    #[inline(always)]
    pub(crate) fn pair_rank(&self, a: Rank, b: Rank) -> Rank {
        self.pairs.get(&pair_key(a, b)).copied().unwrap_or(NO_RANK)
    }

    #[inline(always)]
    pub(crate) fn byte_rank(&self, b: u8) -> Result<Rank> {
        match self.byte_rank[b as usize] {
            NO_RANK => Err(Error::MissingByte(b)),
            r => Ok(r),
        }
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.encoder.len()
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.encoder.is_empty()
    }

    /// One past the largest rank.
    pub fn rank_bound(&self) -> usize {
        self.decoder.id_bound()
    }

    /// Every `(bytes, rank)` pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], Rank)> {
        self.encoder.iter().map(|(b, &r)| (b.as_slice(), r))
    }

    /// Appends the ranks of one piece to `out`.
    #[inline]
    pub fn encode_piece(&self, piece: &[u8], out: &mut Vec<Rank>) -> Result<()> {
        if let Some(r) = self.rank_of(piece) {
            out.push(r);
            return Ok(());
        }
        merge::merge(self, piece, out)
    }

    /// The ranks of one piece (convenient, not fast).
    pub fn encode(&self, piece: &[u8]) -> Result<Vec<Rank>> {
        let mut out = Vec::new();
        self.encode_piece(piece, &mut out)?;
        Ok(out)
    }
}

fn build_pairs(encoder: &FxHashMap<Vec<u8>, Rank>) -> FxHashMap<u64, Rank> {
    use rayon::prelude::*;
    let tokens: Vec<(&Vec<u8>, &Rank)> = encoder.iter().collect();
    let found: Vec<(u64, Rank)> = tokens
        .par_iter()
        .flat_map_iter(|(bytes, &rank)| {
            (1..bytes.len()).filter_map(move |k| {
                let a = encoder.get(&bytes[..k])?;
                let b = encoder.get(&bytes[k..])?;
                Some((pair_key(*a, *b), rank))
            })
        })
        .collect();
    let mut pairs = FxHashMap::default();
    pairs.reserve(found.len());
    pairs.extend(found);
    pairs
}
