//! A byte-level BPE encoding in tiktoken's sense: a pre-tokenizer, a BPE vocabulary and
//! special tokens, with encode, count and decode.
//!
//! ```
//! use tokensmith_core::{Encoding, SpecialPolicy};
//! let ranks = (0u8..=255).map(|b| (vec![b], b as u32)).chain([(b"ab".to_vec(), 256)]).collect();
//! let enc = Encoding::new(ranks, vec![("<|end|>".into(), 257)], r"\w+|\s+|.").unwrap();
//! assert_eq!(enc.encode_ordinary("ab a").unwrap(), [256, 32, 97]);
//! let ids = enc.encode("ab<|end|>", &SpecialPolicy { allowed: enc.specials().set_of(["<|end|>"]), disallowed: None }).unwrap();
//! assert_eq!(ids, [256, 257]);
//! assert_eq!(enc.decode_bytes(&ids).unwrap(), b"ab<|end|>");
//! ```

use crate::error::{Error, Result};
use crate::models::bpe::{with_cache, Bpe, Rank, ThreadState};
use crate::pre_tokenizers::PreTokenizer;
use crate::span_batches::SpanBatches;
use crate::special_tokens::{SpecialPolicy, SpecialSet, SpecialTokens};

/// Encodes the pieces at `spans` of `text`, appending their ids to `out`.
#[inline(never)]
fn encode_batch(
    bpe: &Bpe,
    text: &[u8],
    spans: &[(usize, usize)],
    out: &mut Vec<Rank>,
    state: &mut ThreadState,
) -> Result<()> {
    bpe.encode_spans(text, spans, out, state)
}

/// The number of ids of the pieces at `spans` of `text`; `scratch` holds the ids of pieces
/// that must be merged.
#[inline(never)]
fn count_batch(
    bpe: &Bpe,
    text: &[u8],
    spans: &[(usize, usize)],
    scratch: &mut Vec<Rank>,
    state: &mut ThreadState,
) -> Result<usize> {
    bpe.count_spans(text, spans, scratch, state)
}

/// A part of a text split at its allowed special tokens.
enum Segment<'t> {
    Text(&'t str),
    Special(Rank),
}

/// Pre-tokenizer + BPE + special tokens. Immutable and `Sync`: share it across threads.
#[derive(Debug, Clone)]
pub struct Encoding {
    bpe: Bpe,
    pre: PreTokenizer,
    specials: SpecialTokens,
    pattern: String,
}

impl Encoding {
    /// Builds an encoding from ranks, special tokens and a pre-tokenizer pattern.
    ///
    /// A special token may not share an id with a mergeable token.
    pub fn new(
        ranks: Vec<(Vec<u8>, Rank)>,
        specials: Vec<(String, Rank)>,
        pattern: &str,
    ) -> Result<Self> {
        Self::from_bpe(Bpe::new(ranks)?, specials, pattern)
    }

    /// Builds an encoding from a BPE vocabulary (say, [`Bpe::from_merges`]), special tokens
    /// and a pre-tokenizer pattern.
    pub fn from_bpe(bpe: Bpe, specials: Vec<(String, Rank)>, pattern: &str) -> Result<Self> {
        let specials = SpecialTokens::new(specials)?;
        for (name, id) in specials.iter() {
            if let Some(bytes) = bpe.token_bytes(id) {
                return Err(Error::InvalidVocab(format!(
                    "special token {name:?} has id {id}, which is already the token {:?}",
                    String::from_utf8_lossy(bytes)
                )));
            }
        }
        Ok(Self {
            bpe,
            pre: PreTokenizer::new(pattern)?,
            specials,
            pattern: pattern.to_string(),
        })
    }

    pub fn bpe(&self) -> &Bpe {
        &self.bpe
    }

    pub fn specials(&self) -> &SpecialTokens {
        &self.specials
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    pub fn pre_tokenizer(&self) -> &PreTokenizer {
        &self.pre
    }

    /// One past the largest id, special tokens included.
    pub fn n_vocab(&self) -> usize {
        let special = self.specials.max_id().map_or(0, |m| m as usize + 1);
        self.bpe.rank_bound().max(special)
    }

    /// Runs the pre-tokenizer over `text` (no special tokens) and hands `batch` the spans of
    /// its pieces, [`BATCH`](crate::models::bpe::BATCH) at a time, with this thread's caches.
    #[inline]
    fn for_each_batch(
        &self,
        text: &str,
        mut batch: impl FnMut(&[(usize, usize)], &mut ThreadState) -> Result<()>,
    ) -> Result<()> {
        // The splitter only records where pieces are; each batch of BATCH pieces is then
        // prepared (cache slots requested from memory) and encoded out of line, so that the
        // table lookups of a batch overlap and the per-piece step stays small enough to be
        // inlined into the splitter's loop.
        with_cache(&self.bpe, |state| {
            let mut batches = SpanBatches::new(|spans: &[(usize, usize)]| batch(spans, state));
            self.pre.for_each_piece(text, &mut batches)?;
            batches.finish()
        })
    }

    /// The number of ids of `text` (no special tokens), without keeping them.
    fn count_ordinary(&self, text: &str, scratch: &mut Vec<Rank>) -> Result<usize> {
        let bytes = text.as_bytes();
        let mut total = 0;
        self.for_each_batch(text, |spans, state| {
            total += count_batch(&self.bpe, bytes, spans, scratch, state)?;
            Ok(())
        })?;
        Ok(total)
    }

    /// Splits `text` at the special tokens of `allowed` and hands `f` the pieces in order:
    /// the ordinary text between specials, and each special's id.
    fn for_each_segment(
        &self,
        text: &str,
        allowed: &SpecialSet,
        mut f: impl FnMut(Segment<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut start = 0;
        while let Some(m) = self.specials.find_from(text, start, allowed) {
            f(Segment::Text(&text[start..m.start]))?;
            f(Segment::Special(self.specials.id_at(m.index)))?;
            start = m.end;
        }
        f(Segment::Text(&text[start..]))
    }

    /// Appends the ids of `text` to `out`, treating special-token text as ordinary text.
    #[inline]
    pub fn encode_ordinary_into(&self, text: &str, out: &mut Vec<Rank>) -> Result<()> {
        let bytes = text.as_bytes();
        self.for_each_batch(text, |spans, state| {
            encode_batch(&self.bpe, bytes, spans, out, state)
        })
    }

    /// The ids of `text`, treating special-token text as ordinary text.
    pub fn encode_ordinary(&self, text: &str) -> Result<Vec<Rank>> {
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        self.encode_ordinary_into(text, &mut out)?;
        Ok(out)
    }

    /// Appends the ids of `text` to `out` under a special-token policy.
    ///
    /// Fails with [`Error::DisallowedSpecial`] before encoding anything if the text holds a
    /// disallowed special token.
    pub fn encode_into(
        &self,
        text: &str,
        policy: &SpecialPolicy,
        out: &mut Vec<Rank>,
    ) -> Result<()> {
        self.specials.check(text, policy)?;
        if policy.allowed == SpecialSet::None {
            return self.encode_ordinary_into(text, out);
        }
        self.for_each_segment(text, &policy.allowed, |segment| match segment {
            Segment::Text(t) => self.encode_ordinary_into(t, out),
            Segment::Special(id) => {
                out.push(id);
                Ok(())
            }
        })
    }

    /// The ids of `text` under a special-token policy.
    pub fn encode(&self, text: &str, policy: &SpecialPolicy) -> Result<Vec<Rank>> {
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        self.encode_into(text, policy, &mut out)?;
        Ok(out)
    }

    /// The number of ids `encode` would return, without keeping them: memory stays flat
    /// on huge inputs.
    pub fn count(&self, text: &str, policy: &SpecialPolicy) -> Result<usize> {
        self.specials.check(text, policy)?;
        let mut total = 0usize;
        let mut scratch = Vec::with_capacity(64);
        self.for_each_segment(text, &policy.allowed, |segment| match segment {
            Segment::Text(t) => {
                total += self.count_ordinary(t, &mut scratch)?;
                Ok(())
            }
            Segment::Special(_) => {
                total += 1;
                Ok(())
            }
        })?;
        Ok(total)
    }

    /// The bytes of one token, special or not.
    pub fn token_bytes(&self, id: Rank) -> Result<&[u8]> {
        self.bpe
            .token_bytes(id)
            .or_else(|| self.specials.name_of(id).map(str::as_bytes))
            .ok_or_else(|| self.unknown_id(id as i64))
    }

    /// The error for an id that is not in the vocabulary.
    pub fn unknown_id(&self, id: i64) -> Error {
        Error::UnknownTokenId {
            id,
            valid: format!("0..{} except unused gaps", self.n_vocab()),
        }
    }

    /// Appends the bytes of `ids` to `out`.
    pub fn decode_into(&self, ids: &[Rank], out: &mut Vec<u8>) -> Result<()> {
        for &id in ids {
            out.extend_from_slice(self.token_bytes(id)?);
        }
        Ok(())
    }

    /// The bytes of `ids`, concatenated.
    pub fn decode_bytes(&self, ids: &[Rank]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(ids.len() * 4);
        self.decode_into(ids, &mut out)?;
        Ok(out)
    }

    /// The character offset at which each token starts in the decoded text.
    ///
    /// A token that starts with a UTF-8 continuation byte belongs to the character begun by
    /// an earlier token, so its offset is that character's.
    pub fn decode_offsets(&self, ids: &[Rank]) -> Result<Vec<usize>> {
        let mut offsets = Vec::with_capacity(ids.len());
        let mut chars = 0usize;
        for &id in ids {
            let bytes = self.token_bytes(id)?;
            let continues = bytes.first().is_some_and(|&b| (0x80..0xC0).contains(&b));
            offsets.push(chars.saturating_sub(continues as usize));
            chars += bytes
                .iter()
                .filter(|&&b| !(0x80..0xC0).contains(&b))
                .count();
        }
        Ok(offsets)
    }

    /// The id of a byte string that is one whole token (mergeable or special).
    pub fn single_token(&self, bytes: &[u8]) -> Option<Rank> {
        self.bpe.rank_of(bytes).or_else(|| {
            std::str::from_utf8(bytes)
                .ok()
                .and_then(|s| self.specials.id_of(s))
        })
    }

    /// Every mergeable token's bytes, sorted.
    pub fn sorted_token_bytes(&self) -> Vec<&[u8]> {
        let mut all: Vec<&[u8]> = self.bpe.iter().map(|(b, _)| b).collect();
        all.sort_unstable();
        all
    }
}
