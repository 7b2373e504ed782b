//! The SentencePiece pipeline: a `.model` file loaded into normalizer + model + the
//! processor's own rules for unknown pieces and byte fallback.
//!
//! ```text
//! text ─► SentencePieceNormalizer ─► Unigram | SentencePieceBpe | SplitModel (char, word)
//!         ─► unknowns merged or split into <0xNN> bytes ─► (piece, id)
//! ```
//!
//! Facts kept from sentencepiece's `sentencepiece_processor.cc`:
//! - without byte fallback, a run of consecutive unknown pieces becomes one unknown piece whose
//!   text is the run's text;
//! - with byte fallback, each unknown piece becomes one `<0xNN>` piece per UTF-8 byte;
//! - decoding drops control pieces, writes `unk_surface` for the unknown id, turns runs of byte
//!   pieces back into text (each byte that is not valid UTF-8 becomes U+FFFD), turns `▁` into a
//!   space and drops the `▁` that the dummy prefix put at the start.
//!
//! N-best lists and sampling (subword regularization) go through the same unknown handling;
//! n-best and entropy exist for Unigram models only, sampling on a BPE model is BPE dropout,
//! and `char` and `word` models offer neither (as in sentencepiece).
//!
//! Not handled yet (the loader refuses such files with [`Error::Unsupported`]):
//! denormalization.

use std::cell::RefCell;

use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::{self, ModelProto, ModelType, Piece, PieceType};
use crate::models::sentencepiece_bpe::{SentencePieceBpe, WordPieces};
use crate::models::sentencepiece_split::{Split, SplitModel};
use crate::models::unigram::{pick_scored, Span, SplitMix64, Unigram};
use crate::normalizers::sentencepiece::{SentencePieceNormalizer, SPACE_SYMBOL};
use crate::scratch::{release_if_large, release_text_if_large};
use crate::text_index::TextIndex;

#[cfg(test)]
mod bpe_ids_tests;
mod ids;
#[cfg(test)]
mod ids_tests;
mod offsets;
#[cfg(test)]
mod piece_ids_tests;
#[cfg(test)]
mod scratch_tests;

use ids::{IdSink, Step, Unknowns};
pub use offsets::OffsetIds;

/// One segmentation as `(piece, id)` pairs, with its score.
pub type Scored = (Vec<(String, u32)>, f32);

/// A piece of an encoded text and where in the text it came from, as sentencepiece's
/// `SentencePieceText` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetPiece {
    pub piece: String,
    pub id: u32,
    /// Byte offsets in the input of what the piece came from.
    pub begin: usize,
    pub end: usize,
    /// False for the byte pieces of an unknown run but its last (with byte fallback), which
    /// sentencepiece leaves without a surface: they are empty at the run's start.
    pub has_surface: bool,
}

thread_local! {
    /// The normalized text and the model's spans, kept between calls so that encoding short
    /// texts allocates only its output.
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch { normalized: String::new(), spans: Vec::new(), ids: Vec::new() })
    };
}

/// Bytes this thread's encode buffers hold between calls (for tests of [`crate::scratch`]).
#[cfg(test)]
fn kept_bytes() -> usize {
    SCRATCH.with(|cell| {
        let s = cell.borrow();
        s.normalized.capacity()
            + s.spans.capacity() * std::mem::size_of::<Span>()
            + s.ids.capacity() * std::mem::size_of::<u32>()
    })
}

/// Buffers of one thread's last encode.
struct Scratch {
    normalized: String,
    spans: Vec<Span>,
    ids: Vec<u32>,
}

/// The largest n-best list sentencepiece (0.2.1 and later) accepts.
const MAX_NBEST: usize = 512;

#[derive(Debug, Clone)]
enum Model {
    Unigram(Unigram),
    Bpe(SentencePieceBpe),
    Split(SplitModel),
}

impl Model {
    /// The model type's name, for messages.
    fn name(&self) -> &'static str {
        match self {
            Model::Unigram(_) => "Unigram",
            Model::Bpe(_) => "BPE",
            Model::Split(m) if m.split() == Split::Char => "char",
            Model::Split(_) => "word",
        }
    }
}

/// A loaded `.model`: immutable and `Sync`, so one instance serves every thread.
#[derive(Debug, Clone)]
pub struct SentencePieceProcessor {
    proto: ModelProto,
    /// Piece ids by text, the texts being `proto.pieces` (no second copy).
    ids: TextIndex,
    model: Model,
    normalizer: SentencePieceNormalizer,
    unk_id: u32,
    byte_ids: Option<Box<[u32; 256]>>,
}

/// The `<0xNN>` piece of a byte, as sentencepiece spells it.
pub fn byte_piece(byte: u8) -> String {
    format!("<0x{byte:02X}>")
}

impl SentencePieceProcessor {
    /// Loads a `.model` file.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        Self::from_proto(sentencepiece_model::read(path)?)
    }

    /// Loads the bytes of a `.model` file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_proto(sentencepiece_model::parse(bytes)?)
    }

    /// Checks a parsed model and builds the pipeline.
    pub fn from_proto(proto: ModelProto) -> Result<Self> {
        let spec = &proto.trainer_spec;
        let unsupported = |what: &str| {
            Err(Error::Unsupported(format!(
                "this .model uses {what}, which tokensmith does not support yet"
            )))
        };
        if proto
            .denormalizer_spec
            .as_ref()
            .is_some_and(|d| !d.precompiled_charsmap.is_empty())
        {
            return unsupported("a denormalization rule");
        }
        let mut ids = TextIndex::with_capacity(proto.pieces.len());
        let text_of = |id: u32| piece_text(&proto.pieces, id);
        let mut unk_id = None;
        for (id, p) in proto.pieces.iter().enumerate() {
            let bad = |what: String| Err(Error::ModelFormat(format!("piece {id}: {what}")));
            if p.piece.is_empty() {
                return bad("the piece is empty".into());
            }
            if ids.insert(&p.piece, id as u32, text_of).is_err() {
                return bad(format!("{:?} is defined twice", p.piece));
            }
            match p.kind {
                PieceType::Unknown if unk_id.is_some() => {
                    return bad("a second unknown piece".into());
                }
                PieceType::Unknown => unk_id = Some(id as u32),
                _ => {}
            }
        }
        let unk_id = unk_id.ok_or_else(|| {
            Error::ModelFormat("the model has no unknown piece (type UNKNOWN)".into())
        })?;
        let byte_ids = if spec.byte_fallback {
            let mut table = Box::new([0u32; 256]);
            for (byte, slot) in table.iter_mut().enumerate() {
                let piece = byte_piece(byte as u8);
                *slot = match ids.get(&piece, text_of) {
                    Some(id) if proto.pieces[id as usize].kind == PieceType::Byte => id,
                    _ => {
                        return Err(Error::ModelFormat(format!(
                            "byte_fallback is on but the byte piece {piece} is missing"
                        )));
                    }
                };
            }
            Some(table)
        } else {
            None
        };
        let user_defined: Vec<&str> = proto
            .pieces
            .iter()
            .filter(|p| p.kind == PieceType::UserDefined)
            .map(|p| p.piece.as_str())
            .collect();
        let model = match spec.model_type {
            ModelType::Bpe => Model::Bpe(SentencePieceBpe::new(
                proto
                    .pieces
                    .iter()
                    .map(|p| (p.piece.as_str(), p.score, p.kind)),
                unk_id,
            )),
            ModelType::Char => Model::Split(SplitModel::new(Split::Char, &user_defined)),
            ModelType::Word => Model::Split(SplitModel::new(Split::Word, &user_defined)),
            ModelType::Unigram => {
                let unigram = Unigram::from_model_pieces(&proto.pieces, unk_id);
                // At load, not in the first call: a loaded model is there to encode.
                unigram.prepare();
                Model::Unigram(unigram)
            }
        };
        let normalizer = SentencePieceNormalizer::new(
            &proto.normalizer_spec,
            spec.treat_whitespace_as_suffix,
            &user_defined,
        )?;
        Ok(Self {
            proto,
            ids,
            model,
            normalizer,
            unk_id,
            byte_ids,
        })
    }

    /// The normalized text that the model segments.
    pub fn normalize(&self, text: &str) -> String {
        self.normalizer.normalize(text)
    }

    /// [`Self::normalize`] into `out` (cleared first), as the encoder does into the buffer it
    /// reuses.
    pub fn normalize_to(&self, text: &str, out: &mut String) {
        self.normalizer.normalize_to(text, out);
    }

    /// Encodes `text` into `(piece, id)` pairs, exactly as `SentencePieceProcessor::Encode`.
    pub fn encode(&self, text: &str) -> Vec<(String, u32)> {
        let normalized = self.normalizer.normalize(text);
        let mut spans = Vec::new();
        self.segment(&normalized, &mut spans);
        self.pieces_of(&normalized, spans)
    }

    /// Encodes `text` into `(piece, id, begin, end)`, where `begin..end` are the byte offsets in
    /// `text` of what the piece came from, exactly as sentencepiece's `SentencePieceText`
    /// gives them: through normalization (a replacement maps to what it replaces, the dummy
    /// prefix to where the text starts), a merged unknown run spans the whole run, and with
    /// byte fallback every byte piece but the last of a character is empty at its start.
    ///
    /// ```
    /// use tokensmith_core::sentencepiece::SentencePieceProcessor;
    /// # let bytes = std::fs::read("../../tests/data/spm/test_model.model").unwrap();
    /// let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
    /// let pieces = sp.encode_with_offsets("  Hi there");
    /// let spans: Vec<&str> = pieces.iter().map(|p| &"  Hi there"[p.begin..p.end]).collect();
    /// assert_eq!(spans.concat(), "Hi there");
    /// ```
    pub fn encode_with_offsets(&self, text: &str) -> Vec<OffsetPiece> {
        let (normalized, to_orig) = self.normalizer.normalize_with_offsets(text);
        let mut spans = Vec::new();
        self.segment(&normalized, &mut spans);
        self.offset_pieces_of(&normalized, &to_orig, spans)
    }

    /// [`Self::encode_with_offsets`] without the pieces' text: ids, begins and ends in columns,
    /// with no allocation per piece.
    ///
    /// ```
    /// use tokensmith_core::sentencepiece::SentencePieceProcessor;
    /// # let bytes = std::fs::read("../../tests/data/spm/test_model.model").unwrap();
    /// let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
    /// let columns = sp.encode_offset_ids("  Hi there");
    /// let pieces = sp.encode_with_offsets("  Hi there");
    /// assert_eq!(columns.ids, pieces.iter().map(|p| p.id).collect::<Vec<_>>());
    /// assert_eq!(columns.ends, pieces.iter().map(|p| p.end).collect::<Vec<_>>());
    /// ```
    pub fn encode_offset_ids(&self, text: &str) -> OffsetIds {
        let (normalized, to_orig) = self.normalizer.normalize_with_offsets(text);
        let mut spans = Vec::new();
        self.segment(&normalized, &mut spans);
        let mut out = OffsetIds {
            ids: Vec::with_capacity(spans.len()),
            begins: Vec::with_capacity(spans.len()),
            ends: Vec::with_capacity(spans.len()),
        };
        offsets::walk(&normalized, &to_orig, &spans, self.unknowns(), &mut out);
        out
    }

    /// The normalized text and, for each of its bytes and its end, the byte offset in `text`
    /// it came from (sentencepiece's `Normalize` with offsets).
    pub fn normalize_with_offsets(&self, text: &str) -> (String, Vec<usize>) {
        self.normalizer.normalize_with_offsets(text)
    }

    /// [`Self::nbest`] with each piece's offsets, as [`Self::encode_with_offsets`] gives them.
    pub fn nbest_with_offsets(&self, text: &str, n: usize) -> Result<Vec<(Vec<OffsetPiece>, f32)>> {
        let (normalized, to_orig) = self.normalizer.normalize_with_offsets(text);
        Ok(self
            .nbest_spans(&normalized, n)?
            .into_iter()
            .map(|(spans, score)| (self.offset_pieces_of(&normalized, &to_orig, spans), score))
            .collect())
    }

    /// [`Self::sample`] with each piece's offsets, as [`Self::encode_with_offsets`] gives them.
    pub fn sample_with_offsets(
        &self,
        text: &str,
        alpha: f32,
        nbest_size: i64,
        seed: u64,
    ) -> Result<Vec<OffsetPiece>> {
        let (normalized, to_orig) = self.normalizer.normalize_with_offsets(text);
        let spans = self.sample_spans(&normalized, alpha, nbest_size, seed)?;
        Ok(self.offset_pieces_of(&normalized, &to_orig, spans))
    }

    /// Turns model spans into pieces with offsets in the original text (see [`offsets::walk`]).
    fn offset_pieces_of(
        &self,
        normalized: &str,
        to_orig: &[usize],
        spans: Vec<Span>,
    ) -> Vec<OffsetPiece> {
        let mut out: Vec<OffsetPiece> = Vec::with_capacity(spans.len());
        offsets::walk(normalized, to_orig, &spans, self.unknowns(), &mut out);
        out
    }

    /// Up to `n` best segmentations of `text` with their scores, best first (sentencepiece's
    /// `NBestEncode`: `n <= 1` gives the best one, scored 0; more than 512 is an error).
    pub fn nbest(&self, text: &str, n: usize) -> Result<Vec<Scored>> {
        let normalized = self.normalizer.normalize(text);
        Ok(self
            .nbest_spans(&normalized, n)?
            .into_iter()
            .map(|(spans, score)| (self.pieces_of(&normalized, spans), score))
            .collect())
    }

    /// The model's `n` best segmentations of `normalized` with their scores.
    fn nbest_spans(&self, normalized: &str, n: usize) -> Result<Vec<(Vec<Span>, f32)>> {
        if n > MAX_NBEST {
            return Err(Error::InvalidOption(format!(
                "nbest_size must be at most {MAX_NBEST}, got {n}"
            )));
        }
        let Model::Unigram(m) = &self.model else {
            return Err(Error::Unsupported(format!(
                "n-best encoding needs a Unigram model; this .model is {}",
                self.model.name()
            )));
        };
        Ok(m.nbest(normalized, n))
    }

    /// One sampled segmentation of `text` (sentencepiece's `SampleEncode`).
    ///
    /// Unigram: `nbest_size < 0` samples from all segmentations with probability proportional
    /// to `exp(alpha * score)`; `0` or `1` gives the best one; `> 1` samples among the
    /// `nbest_size` best (at most 512). BPE: each merge is dropped with probability `alpha`,
    /// and `nbest_size` is ignored. The same `seed` gives the same result.
    pub fn sample(
        &self,
        text: &str,
        alpha: f32,
        nbest_size: i64,
        seed: u64,
    ) -> Result<Vec<(String, u32)>> {
        let normalized = self.normalizer.normalize(text);
        let spans = self.sample_spans(&normalized, alpha, nbest_size, seed)?;
        Ok(self.pieces_of(&normalized, spans))
    }

    /// The model's sampled segmentation of `normalized` (see [`Self::sample`]).
    fn sample_spans(
        &self,
        normalized: &str,
        alpha: f32,
        nbest_size: i64,
        seed: u64,
    ) -> Result<Vec<Span>> {
        if nbest_size > MAX_NBEST as i64 {
            return Err(Error::InvalidOption(format!(
                "nbest_size must be at most {MAX_NBEST}, got {nbest_size}"
            )));
        }
        let mut rng = SplitMix64::new(seed);
        Ok(match &self.model {
            Model::Bpe(m) => m.encode_with_dropout(normalized, alpha, Some(&mut rng)),
            Model::Unigram(m) if nbest_size < 0 => m.sample(normalized, alpha, &mut rng),
            Model::Unigram(m) if nbest_size <= 1 => m.encode(normalized),
            Model::Unigram(m) => {
                let mut paths = m.nbest(normalized, nbest_size as usize);
                let i = pick_scored(&paths, alpha, &mut rng);
                paths.swap_remove(i).0
            }
            Model::Split(_) => {
                return Err(Error::Unsupported(format!(
                    "sampling needs a Unigram or BPE model; this .model is {}, which has one \
                     segmentation only",
                    self.model.name()
                )))
            }
        })
    }

    /// The entropy of the distribution over segmentations of `text` at inverse temperature
    /// `alpha` (sentencepiece's `CalculateEntropy`); Unigram models only.
    pub fn entropy(&self, text: &str, alpha: f32) -> Result<f32> {
        let Model::Unigram(m) = &self.model else {
            return Err(Error::Unsupported(format!(
                "entropy needs a Unigram model; this .model is {}",
                self.model.name()
            )));
        };
        Ok(m.entropy(&self.normalizer.normalize(text), alpha))
    }

    /// Turns model spans into pieces: unknown runs merged, or split into byte pieces.
    fn pieces_of(&self, normalized: &str, spans: Vec<Span>) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = Vec::with_capacity(spans.len());
        let mut is_prev_unk = false;
        let unknowns = self.unknowns();
        for (start, end, id) in spans {
            let w = &normalized[start..end];
            match unknowns.step(id, &mut is_prev_unk) {
                Step::Bytes(table) => {
                    out.extend(w.bytes().map(|b| (byte_piece(b), table[usize::from(b)])));
                }
                Step::JoinPrevious => {
                    if let Some(last) = out.last_mut() {
                        last.0.push_str(w);
                    }
                }
                Step::Piece => out.push((w.to_string(), id)),
            }
        }
        out
    }

    /// The model as the bytes of a `.model` file; an unmodified loaded model gives back the
    /// bytes it was loaded from.
    pub fn to_bytes(&self) -> Vec<u8> {
        sentencepiece_model::serialize(&self.proto)
    }

    /// The same model with another vocabulary (e.g. changed scores); the specs are kept.
    pub fn with_pieces(&self, pieces: Vec<sentencepiece_model::Piece>) -> Result<Self> {
        let mut proto = self.proto.clone();
        proto.pieces = pieces;
        Self::from_proto(proto)
    }

    /// The ids sentencepiece reports as `unk_id()`, `bos_id()`, `eos_id()` and `pad_id()`: the
    /// id of the piece named in the trainer spec when it has the right type, else -1.
    pub fn special_ids(&self) -> [i64; 4] {
        let spec = &self.proto.trainer_spec;
        let find = |name: &str, kind: PieceType| {
            self.piece_id(name)
                .filter(|&id| self.proto.pieces[id as usize].kind == kind)
                .map_or(-1, i64::from)
        };
        [
            find(&spec.unk_piece, PieceType::Unknown),
            find(&spec.bos_piece, PieceType::Control),
            find(&spec.eos_piece, PieceType::Control),
            find(&spec.pad_piece, PieceType::Control),
        ]
    }

    /// Encodes `text` into ids (as [`Self::encode`], without building the pieces' text).
    pub fn encode_ids(&self, text: &str) -> Vec<u32> {
        self.with_ids(text, <[u32]>::to_vec)
    }

    /// Calls `f` with the ids of `text` (as [`Self::encode_ids`]), from buffers this thread
    /// keeps between calls: encoding a short text then allocates nothing.
    ///
    /// ```
    /// use tokensmith_core::sentencepiece::SentencePieceProcessor;
    /// # let bytes = std::fs::read("../../tests/data/spm/test_model.model").unwrap();
    /// let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
    /// assert_eq!(sp.with_ids("Hi there", |ids| ids.len()), sp.encode_ids("Hi there").len());
    /// ```
    pub fn with_ids<R>(&self, text: &str, f: impl FnOnce(&[u32]) -> R) -> R {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                let Scratch {
                    normalized,
                    spans,
                    ids,
                } = &mut *scratch;
                self.normalizer.normalize_to(text, normalized);
                self.ids_into(normalized, spans, ids);
                let result = f(ids);
                release_text_if_large(normalized);
                release_if_large(spans);
                release_if_large(ids);
                result
            }
            // `f` encoding again on this thread: fresh buffers.
            Err(_) => {
                let mut ids = Vec::new();
                self.ids_into(&self.normalizer.normalize(text), &mut Vec::new(), &mut ids);
                f(&ids)
            }
        })
    }

    /// The model's segmentation of `normalized` into `spans` (cleared first).
    fn segment(&self, normalized: &str, spans: &mut Vec<Span>) {
        match &self.model {
            Model::Unigram(m) => m.segment_into(normalized, spans),
            Model::Bpe(m) => m.encode_into(normalized, spans),
            Model::Split(m) => m.segment_into(normalized, spans, |p| self.text_piece_id(p)),
        }
    }

    /// The ids of `normalized` into `out` (cleared first), merging or splitting unknowns: a
    /// model that segments word by word writes them straight from its word cache.
    fn ids_into(&self, normalized: &str, spans: &mut Vec<Span>, out: &mut Vec<u32>) {
        out.clear();
        let unknowns = self.unknowns();
        match &self.model {
            Model::Unigram(m) => {
                let mut sink = IdSink::new(unknowns, normalized.as_bytes(), out, spans);
                if m.segment_with(normalized, &mut sink).is_some() {
                    return;
                }
            }
            Model::Bpe(m) => {
                if self
                    .bpe_ids_by_words(m, unknowns, normalized, out)
                    .is_some()
                {
                    return;
                }
            }
            Model::Split(_) => {}
        }
        out.clear();
        self.segment(normalized, spans);
        let mut is_prev_unk = false;
        for &(start, end, id) in spans.iter() {
            unknowns.push(normalized.as_bytes(), start, end, id, &mut is_prev_unk, out);
        }
    }

    /// The ids of `normalized` from a BPE model's words into `out`: a cached word without an
    /// unknown piece is copied as its ids; any other word goes piece by piece through the
    /// unknown rule. `None` (with `out` partly written) when the model merges whole texts.
    fn bpe_ids_by_words(
        &self,
        model: &SentencePieceBpe,
        unknowns: Unknowns<'_>,
        normalized: &str,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        let text = normalized.as_bytes();
        let mut is_prev_unk = false;
        model.for_each_word(normalized, |start, pieces| match pieces {
            WordPieces::Cached(hit) => {
                let at = out.len();
                if hit.push_ids(out, self.unk_id) {
                    out.truncate(at);
                    let mut from = start;
                    hit.for_each_piece(|end, id| {
                        let end = start + end;
                        unknowns.push(text, from, end, id, &mut is_prev_unk, out);
                        from = end;
                    });
                } else {
                    // A word has at least one piece, and its last one is known.
                    is_prev_unk = false;
                }
            }
            WordPieces::Merged(spans) => {
                for &(s, e, id) in spans {
                    unknowns.push(text, start + s, start + e, id, &mut is_prev_unk, out);
                }
            }
        })
    }

    fn unknowns(&self) -> Unknowns<'_> {
        Unknowns {
            unk_id: self.unk_id,
            byte_ids: self.byte_ids.as_deref(),
        }
    }

    /// Decodes ids into text, exactly as `SentencePieceProcessor::DecodeIds`.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.decode_items(ids.iter().map(|&id| (id, None)), None)
    }

    /// Decodes pieces, exactly as `SentencePieceProcessor::DecodePieces`: a piece that is not
    /// in the vocabulary is written as it is (the text of a merged unknown run), not as
    /// `unk_surface`.
    pub fn decode_pieces<S: AsRef<str>>(&self, pieces: &[S]) -> Result<String> {
        self.decode_items(self.given_pieces(pieces), None)
    }

    /// [`Self::decode`] with the `begin..end` byte span each id wrote in the text, as
    /// sentencepiece's decoded `SentencePieceText` gives them: a control piece is empty where
    /// it stands; a byte piece that does not end a character is empty at the character's
    /// start, and the one that ends it spans it; an invalid byte spans its U+FFFD.
    ///
    /// ```
    /// use tokensmith_core::sentencepiece::SentencePieceProcessor;
    /// # let bytes = std::fs::read("../../tests/data/spm/test_model.model").unwrap();
    /// let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
    /// let ids = sp.encode_ids("Hi there");
    /// let (text, spans) = sp.decode_with_spans(&ids).unwrap();
    /// let parts: Vec<&str> = spans.iter().map(|&(b, e)| &text[b..e]).collect();
    /// assert_eq!(parts.concat(), "Hi there");
    /// ```
    pub fn decode_with_spans(&self, ids: &[u32]) -> Result<(String, Vec<(usize, usize)>)> {
        let mut spans = Vec::with_capacity(ids.len());
        let text = self.decode_items(ids.iter().map(|&id| (id, None)), Some(&mut spans))?;
        Ok((text, spans))
    }

    /// [`Self::decode_pieces`] with spans, as [`Self::decode_with_spans`].
    pub fn decode_pieces_with_spans<S: AsRef<str>>(
        &self,
        pieces: &[S],
    ) -> Result<(String, Vec<(usize, usize)>)> {
        let mut spans = Vec::with_capacity(pieces.len());
        let text = self.decode_items(self.given_pieces(pieces), Some(&mut spans))?;
        Ok((text, spans))
    }

    fn given_pieces<'a, S: AsRef<str>>(
        &'a self,
        pieces: &'a [S],
    ) -> impl Iterator<Item = (u32, Option<&'a str>)> + 'a {
        pieces
            .iter()
            .map(|p| (self.piece_to_id(p.as_ref()), Some(p.as_ref())))
    }

    /// Decodes `items` (an id, and the piece's text when pieces were given); `spans`, when
    /// given, receives each item's span in the text.
    fn decode_items<'a>(
        &self,
        items: impl Iterator<Item = (u32, Option<&'a str>)>,
        mut spans: Option<&mut Vec<(usize, usize)>>,
    ) -> Result<String> {
        let strip_bos_space = self.proto.normalizer_spec.add_dummy_prefix
            || self.proto.normalizer_spec.remove_extra_whitespaces;
        let mut text = String::new();
        let mut bytes: Vec<u8> = Vec::new();
        let remove_extra = self.proto.normalizer_spec.remove_extra_whitespaces;
        // Leading `▁`s are dropped while nothing visible has been written: only the first one
        // without remove_extra_whitespaces, all of them with it (sentencepiece 0.2).
        let mut is_bos_ws = true;
        let mut bos_ws_seen = false;
        for (id, given) in items {
            let piece = self.piece(id)?;
            if piece.kind == PieceType::Byte {
                bytes.push(piece_to_byte(&piece.piece).ok_or_else(|| {
                    Error::ModelFormat(format!("byte piece {:?} is not <0xNN>", piece.piece))
                })?);
                continue;
            }
            flush_bytes(&mut bytes, &mut text, spans.as_deref_mut());
            if bos_ws_seen || !text.is_empty() {
                is_bos_ws = false;
            }
            bos_ws_seen = false;
            let begin = text.len();
            match piece.kind {
                PieceType::Control => {}
                PieceType::Unknown => match given {
                    Some(g) if g != piece.piece => text.push_str(g),
                    _ => text.push_str(&self.proto.trainer_spec.unk_surface),
                },
                _ => {
                    let mut s = piece.piece.as_str();
                    if is_bos_ws && strip_bos_space {
                        if let Some(rest) = s.strip_prefix(SPACE_SYMBOL) {
                            s = rest;
                            bos_ws_seen = !remove_extra;
                        }
                    }
                    text.push_str(&s.replace(SPACE_SYMBOL, " "));
                }
            }
            if let Some(spans) = spans.as_deref_mut() {
                spans.push((begin, text.len()));
            }
        }
        flush_bytes(&mut bytes, &mut text, spans);
        Ok(text)
    }

    fn piece(&self, id: u32) -> Result<&sentencepiece_model::Piece> {
        self.proto
            .pieces
            .get(id as usize)
            .ok_or_else(|| Error::UnknownTokenId {
                id: i64::from(id),
                valid: format!("0..{}", self.proto.pieces.len()),
            })
    }

    /// The number of pieces.
    pub fn piece_size(&self) -> usize {
        self.proto.pieces.len()
    }

    /// The piece with `id`.
    pub fn id_to_piece(&self, id: u32) -> Result<&str> {
        Ok(&self.piece(id)?.piece)
    }

    /// The id of `piece`, or the unknown id when it is not in the vocabulary (as sentencepiece).
    pub fn piece_to_id(&self, piece: &str) -> u32 {
        self.piece_id(piece).unwrap_or(self.unk_id)
    }

    /// The id a char or word model gives the text `piece`: its id when it is a normal or
    /// user-defined piece, else the unknown id. So a control, byte or unused piece spelt in
    /// the text is unknown, as the `sentencepiece` 0.2.3 wheel encodes it (measured; its
    /// `PieceToId` alone would give their ids).
    fn text_piece_id(&self, piece: &str) -> u32 {
        self.piece_id(piece)
            .filter(|&id| {
                matches!(
                    self.proto.pieces[id as usize].kind,
                    PieceType::Normal | PieceType::UserDefined
                )
            })
            .unwrap_or(self.unk_id)
    }

    /// The id of `piece` if it is in the vocabulary.
    fn piece_id(&self, piece: &str) -> Option<u32> {
        let pieces = &self.proto.pieces;
        self.ids.get(piece, |id| piece_text(pieces, id))
    }

    /// The score of the piece with `id`.
    pub fn score(&self, id: u32) -> Result<f32> {
        Ok(self.piece(id)?.score)
    }

    /// The piece's type.
    pub fn piece_type(&self, id: u32) -> Result<PieceType> {
        Ok(self.piece(id)?.kind)
    }

    /// The parsed file.
    pub fn proto(&self) -> &ModelProto {
        &self.proto
    }

    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }
}

fn piece_to_byte(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// Appends byte pieces as text; each byte that does not start a valid UTF-8 character
/// becomes U+FFFD on its own, as sentencepiece does. `spans`, when given, receives each
/// byte's span (see [`SentencePieceProcessor::decode_with_spans`]).
fn flush_bytes(
    bytes: &mut Vec<u8>,
    text: &mut String,
    mut spans: Option<&mut Vec<(usize, usize)>>,
) {
    let mut rest: &[u8] = bytes;
    while !rest.is_empty() {
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(s) => (s, false),
            // `valid_up_to` bytes were just checked to be UTF-8.
            Err(e) => (
                std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
                true,
            ),
        };
        if let Some(spans) = spans.as_deref_mut() {
            let mut at = text.len();
            for c in valid.chars() {
                let n = c.len_utf8();
                spans.extend(std::iter::repeat_n((at, at), n - 1));
                spans.push((at, at + n));
                at += n;
            }
        }
        text.push_str(valid);
        rest = &rest[valid.len()..];
        if invalid {
            let at = text.len();
            text.push('\u{FFFD}');
            if let Some(spans) = spans.as_deref_mut() {
                spans.push((at, text.len()));
            }
            rest = &rest[1..];
        }
    }
    bytes.clear();
}

/// The text of the piece with `id`: how the piece index reads the pieces it points at.
fn piece_text(pieces: &[Piece], id: u32) -> &str {
    &pieces[id as usize].piece
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_become_one_replacement_each() {
        let mut text = String::new();
        flush_bytes(&mut vec![b'a', 0xE2, 0x96, b'b'], &mut text, None);
        assert_eq!(text, "a\u{FFFD}\u{FFFD}b");
    }

    /// A loaded Unigram model has built its character trie: the first encode builds
    /// nothing.
    #[test]
    fn load_builds_the_character_trie() {
        for name in ["test_model.model", "test_ja_model.model"] {
            let path = format!("{}/../../tests/data/spm/{name}", env!("CARGO_MANIFEST_DIR"));
            let sp = SentencePieceProcessor::open(std::path::Path::new(&path)).unwrap();
            let Model::Unigram(m) = &sp.model else {
                panic!("{name} is a Unigram model");
            };
            assert!(m.is_prepared(), "{name}");
            // A model made from the pieces alone (as the trainer makes them) does not.
            let bare = Unigram::from_model_pieces(&sp.proto.pieces, sp.unk_id);
            assert!(!bare.is_prepared());
            bare.prepare();
            assert!(bare.is_prepared());
        }
    }

    #[test]
    fn byte_spans_end_at_each_character_and_each_invalid_byte() {
        let (mut text, mut spans) = ("x".to_string(), Vec::new());
        // "é" (two bytes), an invalid byte, then "a".
        flush_bytes(
            &mut vec![0xC3, 0xA9, 0xFF, b'a'],
            &mut text,
            Some(&mut spans),
        );
        assert_eq!(text, "xé\u{FFFD}a");
        assert_eq!(spans, [(1, 1), (1, 3), (3, 6), (6, 7)]);
    }

    #[test]
    fn byte_piece_names() {
        assert_eq!(byte_piece(0x0a), "<0x0A>");
        assert_eq!(piece_to_byte("<0xFF>"), Some(0xff));
        assert_eq!(piece_to_byte("<0xFFF>"), None);
    }
}
