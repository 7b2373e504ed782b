//! Ids without tokens, offsets or word ids, for byte-level BPE and BERT-style `tokenizer.json`
//! files. A byte-level BPE file takes the pipeline of [`crate::Encoding`] (a pre-tokenizer
//! over bytes, a BPE with per-thread piece caches) instead of the character pipeline that
//! tracks every offset; a BERT-style file (a BertNormalizer or none, the BertPreTokenizer and
//! a WordPiece model) takes the fused pass of [`super::bert_ids`].
//!
//! A byte-level file qualifies when its pipeline is one the engine computes exactly:
//! - no normalizer, or NFC (Qwen2): the text is composed first ([`super::nfc_text`]), with
//!   the Unicode 9 tables of HF's NFC (those of the character pipeline);
//! - a `ByteLevel` pre-tokenizer with GPT-2's regex (`use_regex`) and no prefix space, or a
//!   `Split` with the Llama-3 or Qwen2 pattern (isolated) before a `ByteLevel` without regex
//!   or prefix space (the splitters of [`crate::pre_tokenizers`], equal to the regex);
//! - a BPE model with every byte's character in its vocabulary, no subword prefix or
//!   suffix, no dropout, and merges whose merged ids rise with the merges' order. HF merges
//!   the listed pair of lowest merge rank (the leftmost on ties); the engine merges the
//!   listed pair whose merged id is lowest, the same pair under that condition.
//!
//! Added tokens are cut out of the text first, as the character pipeline does. An
//! encoding falls back to that pipeline when truncation or padding is set, or when an added
//! token is matched after normalization (`normalized: true`), or when the fused BERT pass
//! meets a text it does not handle.
//!
//! What this module does not handle: other `Split` patterns, other normalizers and prefix
//! spaces; those files take the character pipeline.

use super::added_tokens::AddedMatcher;
use super::bert_ids::BertIds;
use super::bpe::Bpe as HfBpe;
use super::byte_level::{byte_chars, ByteLevel};
use super::model::Model;
use super::nfc_text;
use super::normalizers::Normalizer;
use super::pre_tokenizers::PreTokenizer;
use super::processors::{Piece, PostProcessor};
use super::tokenizer::HfTokenizer;
use super::wordpiece::WordPiece;
use crate::error::Result;
use crate::models::bpe::Bpe;
use crate::pre_tokenizers::R50K_PATTERN;
use crate::scratch::release_if_large;
use crate::Encoding;
use rustc_hash::FxHashMap;

/// The engine that gives a qualifying file's ids.
#[derive(Clone, Debug)]
pub enum FastIds {
    /// A byte-level BPE file.
    ByteLevel {
        engine: Box<Encoding>,
        /// The file's normalizer is NFC (Qwen2): texts not known to be in NFC are composed
        /// before the engine sees them.
        nfc: bool,
    },
    /// A BERT-style file: the fused pass, and a copy of the file's WordPiece model (with a
    /// word cache of its own).
    Bert(Box<(BertIds, WordPiece)>),
}

impl FastIds {
    /// The engine for this pipeline, or `None` when the file does not qualify (see the
    /// module's documentation).
    pub fn new(
        normalizer: Option<&Normalizer>,
        pre_tokenizer: Option<&PreTokenizer>,
        model: &Model,
    ) -> Option<Self> {
        if let (Some(PreTokenizer::Bert), Model::WordPiece(wp)) = (pre_tokenizer, model) {
            let pass = match normalizer {
                None => BertIds::new(None),
                Some(Normalizer::Bert(n)) => BertIds::new(Some(n)),
                Some(_) => return None,
            };
            return Some(Self::Bert(Box::new((pass, wp.clone()))));
        }
        let nfc = match normalizer {
            None => false,
            Some(Normalizer::Nfc) => true,
            Some(_) => return None,
        };
        let no_prefix = |b: &ByteLevel| !b.add_prefix_space;
        let pattern = match pre_tokenizer? {
            PreTokenizer::ByteLevel(b) if b.use_regex && no_prefix(b) => R50K_PATTERN,
            PreTokenizer::Sequence(steps) => match steps.as_slice() {
                [PreTokenizer::Split(split), PreTokenizer::ByteLevel(b)]
                    if !b.use_regex && no_prefix(b) =>
                {
                    split.known_words_pattern()?
                }
                _ => return None,
            },
            _ => return None,
        };
        let Model::Bpe(bpe) = model else {
            return None;
        };
        let (tokens, merges) = byte_level_merges(bpe)?;
        let engine = Bpe::from_merges(tokens, merges, bpe.ignores_merges()).ok()?;
        Encoding::from_bpe(engine, vec![], pattern)
            .ok()
            .map(|engine| Self::ByteLevel {
                engine: Box::new(engine),
                nfc,
            })
    }

    /// Appends the ids of `text` (no added tokens in it) to `out` and returns `true`; `false`
    /// when this text must take the character pipeline. HF normalizes each piece between
    /// added tokens on its own, as this does.
    pub fn encode_into(&self, text: &str, out: &mut Vec<u32>) -> Result<bool> {
        match self {
            Self::ByteLevel { engine, nfc } => {
                if *nfc {
                    engine.encode_ordinary_into(&nfc_text::nfc(text), out)?;
                } else {
                    engine.encode_ordinary_into(text, out)?;
                }
                Ok(true)
            }
            Self::Bert(bert) => bert.0.encode_into(&bert.1, text, out),
        }
    }
}

/// `(token bytes, id)` pairs.
type Tokens = Vec<(Vec<u8>, u32)>;
/// `(left, right, merged)` ids.
type Merges = Vec<(u32, u32, u32)>;

/// The model's tokens as bytes and its merges as `(left, right, merged)` ids, when it is a
/// byte-level BPE whose merged ids rise with the merges' order. Tokens spelled with
/// characters outside GPT-2's byte alphabet cannot come out of byte-level merging and are
/// left out, unless a merge names them (then the model does not qualify).
fn byte_level_merges(bpe: &HfBpe) -> Option<(Tokens, Merges)> {
    if !bpe.is_plain() {
        return None;
    }
    let byte_of: FxHashMap<char, u8> = byte_chars()
        .iter()
        .enumerate()
        .map(|(b, &c)| (c, b as u8))
        .collect();
    let mut tokens = Vec::with_capacity(bpe.vocab().len());
    let mut is_byte_level = FxHashMap::default();
    for (token, &id) in bpe.vocab() {
        let bytes: Option<Vec<u8>> = token.chars().map(|c| byte_of.get(&c).copied()).collect();
        is_byte_level.insert(id, bytes.is_some());
        if let Some(bytes) = bytes {
            tokens.push((bytes, id));
        }
    }
    let singles = tokens.iter().filter(|(b, _)| b.len() == 1).count();
    if singles != 256 {
        return None;
    }
    let mut merges: Vec<(u32, u32, u32, u32)> = bpe
        .merge_table()
        .map(|((a, b), (rank, id))| (rank, a, b, id))
        .collect();
    merges.sort_unstable();
    let rising = merges.windows(2).all(|w| w[0].3 < w[1].3);
    let known = |id: &u32| is_byte_level.get(id) == Some(&true);
    let all_known = merges
        .iter()
        .all(|(_, a, b, id)| known(a) && known(b) && known(id));
    if !rising || !all_known {
        return None;
    }
    Some((
        tokens,
        merges.into_iter().map(|(_, a, b, id)| (a, b, id)).collect(),
    ))
}

/// `(ranks, other ids)` of [`HfTokenizer::byte_level_ranks`].
pub type ByteLevelRanks = (Vec<(Vec<u8>, u32)>, Vec<u32>);

impl HfTokenizer {
    /// The model as tiktoken-style ranks, when it is a byte-level BPE whose merged ids rise
    /// with the merges' order and lie above their parts' ids (merging by rank then makes the
    /// merge list's choices): the 256 bytes and the merged tokens as `(bytes, id)`, and the
    /// ids of the vocabulary's other entries. `None` for any other model.
    pub fn byte_level_ranks(&self) -> Option<ByteLevelRanks> {
        let Model::Bpe(bpe) = &self.model else {
            return None;
        };
        let (tokens, merges) = byte_level_merges(bpe)?;
        if merges.iter().any(|&(a, b, id)| id <= a || id <= b) {
            return None;
        }
        let merged: rustc_hash::FxHashSet<u32> = merges.iter().map(|m| m.2).collect();
        let ranks: Vec<(Vec<u8>, u32)> = tokens
            .into_iter()
            .filter(|(bytes, id)| bytes.len() == 1 || merged.contains(id))
            .collect();
        let in_ranks: rustc_hash::FxHashSet<u32> = ranks.iter().map(|r| r.1).collect();
        let mut others: Vec<u32> = bpe
            .vocab()
            .values()
            .copied()
            .filter(|id| !in_ranks.contains(id))
            .collect();
        others.sort_unstable();
        Some((ranks, others))
    }

    /// Whether the file qualifies for [`FastIds`] (its configuration may still send a call
    /// to the character pipeline: see [`Self::encode_ids`]).
    pub fn has_fast_ids(&self) -> bool {
        self.fast_ids().is_some()
    }

    /// The engine, built on the first call and kept (see the field `fast`).
    fn fast_ids(&self) -> Option<&FastIds> {
        self.fast
            .get_or_init(|| {
                FastIds::new(
                    self.normalizer.as_ref(),
                    self.pre_tokenizer.as_ref(),
                    &self.model,
                )
            })
            .as_ref()
    }

    /// The ids [`HfTokenizer::encode`] would give, computed without tokens or offsets, or
    /// `None` when this file or configuration takes the character pipeline (see
    /// [`FastIds`]). The ids are the same as `encode(text, pair, add_special_tokens)`'s.
    pub fn encode_ids(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> Option<Result<Vec<u32>>> {
        let fast = self.fast_ids()?;
        let configured = self.truncation.is_some() || self.padding.is_some();
        if configured || !self.normalized_matcher.is_empty() {
            return None;
        }
        // The first sequence's ids go to a buffer the thread keeps, by the rule of
        // [`crate::scratch`]: the engine reserves room for the most ids each batch of pieces
        // could give before writing it, so a buffer sized for the text would be reallocated on
        // every short line. The result is copied out at its exact length.
        let mut kept = KEPT_IDS.take();
        kept.clear();
        let ids = self.ids_into(fast, text, pair, add_special_tokens, &mut kept);
        release_if_large(&mut kept);
        KEPT_IDS.set(kept);
        ids
    }

    /// [`HfTokenizer::encode_ids`] with `first` (empty) to hold the first sequence's ids.
    fn ids_into(
        &self,
        fast: &FastIds,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
        first: &mut Vec<u32>,
    ) -> Option<Result<Vec<u32>>> {
        let mut second = Vec::new();
        for (text, out) in
            std::iter::once((text, &mut *first)).chain(pair.map(|p| (p, &mut second)))
        {
            match sequence_ids(fast, &self.raw_matcher, text, out) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        let template = match (&self.post_processor, add_special_tokens) {
            (
                Some(PostProcessor {
                    template: Some(t), ..
                }),
                true,
            ) => t,
            _ => {
                let mut ids = Vec::with_capacity(first.len() + second.len());
                ids.extend_from_slice(first);
                ids.extend_from_slice(&second);
                return Some(Ok(ids));
            }
        };
        let mut ids = Vec::with_capacity(first.len() + second.len() + 8);
        for piece in template.pieces(pair.is_some()) {
            match piece {
                Piece::Sequence { second: false, .. } => ids.extend_from_slice(first),
                Piece::Sequence { second: true, .. } => ids.extend_from_slice(&second),
                Piece::Special { name, .. } => {
                    let special = template.special_tokens.get(name)?;
                    ids.extend_from_slice(&special.ids);
                }
            }
        }
        Some(Ok(ids))
    }
}

thread_local! {
    /// The first sequence's ids of [`HfTokenizer::encode_ids`]: empty between calls, with
    /// its capacity kept. A call takes it out (a nested call finds an empty one).
    static KEPT_IDS: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The ids of one sequence: its added tokens, and the engine's ids of the text between them
/// (`false` when a piece must take the character pipeline).
fn sequence_ids(
    fast: &FastIds,
    added: &AddedMatcher,
    text: &str,
    out: &mut Vec<u32>,
) -> Result<bool> {
    if added.is_empty() {
        return fast.encode_into(text, out);
    }
    for (id, (start, end)) in added.find_bytes(text) {
        match id {
            Some(id) => out.push(id),
            None => {
                if !fast.encode_into(&text[start..end], out)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}
