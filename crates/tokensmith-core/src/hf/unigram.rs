//! HF's Unigram model: the best-scoring segmentation of a word into vocabulary pieces.
//!
//! Facts kept from HF `tokenizers` so that results are identical:
//! - every piece of the vocabulary can match (the unknown and control pieces too), with its
//!   score; a character that starts no one-character piece can also be an unknown node scored
//!   `min_score - 10`, `min_score` taken over the whole vocabulary;
//! - scores are summed in `f64`, starts are visited left to right, and a candidate replaces a
//!   node only when strictly better (SentencePiece sums in `f32`, which breaks some near-ties
//!   differently);
//! - consecutive unknown nodes are always fused into one piece; every piece is then looked up
//!   by its text, so a fused piece that happens to be a vocabulary entry takes that entry's id;
//! - a piece that is not in the vocabulary becomes `<0xNN>` byte tokens when `byte_fallback`
//!   is on and all its bytes have one (each with the whole piece's span), else the unknown id;
//! - with duplicate pieces, the last id wins, as in HF's token-to-id map.
//!
//! ```
//! use tokensmith_core::hf::unigram::HfUnigram;
//! let vocab = [("<unk>", 0.0), ("ab", -1.0), ("a", -2.0), ("b", -2.0)];
//! let m = HfUnigram::new(vocab.iter().map(|&(p, s)| (p.to_string(), s)).collect(), Some(0), false)
//!     .unwrap();
//! let word: Vec<char> = "abxyb".chars().collect();
//! // "x" and "y" are unknown: one fused piece with the unknown id.
//! assert_eq!(m.tokenize(&word).unwrap(), vec![(1, 0, 2), (0, 2, 4), (3, 4, 5)]);
//! assert!(m.spells_unknown(0));
//! ```
//!
//! The trie is the one of [`crate::models::unigram`]; its Viterbi is not reused because it
//! follows SentencePiece (`f32` sums, piece types), not HF.
//!
//! Without an `unk_id` (the file HF's `SentencePieceUnigramTokenizer` writes by default), a
//! word encodes as long as no unknown node would enter the best path; where one would, HF
//! fails ("unknown token but `unk_id` is missing"), and so does [`HfUnigram::tokenize`]
//! ([`super::model::missing_unknown`]).
//!
//! Subword sampling (HF's `alpha` and `nbest_size`, which are not file options in HF) is set
//! with [`HfUnigram::set_sampling`] and drawn as HF draws it ([`sample`]); sampled words are
//! not cached.

mod sample;

use super::model::missing_unknown;
use super::word_cache::WordCache;
use crate::models::unigram::PieceTrie;
use crate::{Error, Result};
use rustc_hash::FxHashMap;

const UNK_PENALTY: f64 = 10.0;

/// A Unigram vocabulary with scores.
#[derive(Clone, Debug)]
pub struct HfUnigram {
    vocab: FxHashMap<String, u32>,
    scores: Vec<f64>,
    trie: PieceTrie,
    unk_id: Option<u32>,
    min_score: f64,
    byte_fallback: bool,
    cache: WordCache,
    /// HF's `alpha` (not 0) and `nbest_size`, when words are sampled.
    sampling: Option<(f64, Option<usize>)>,
}

#[derive(Clone, Copy)]
struct Best {
    id: Option<u32>,
    score: f64,
    start: Option<usize>,
}

impl HfUnigram {
    /// Builds the model from `(piece, score)` in id order; `unk_id`, if any, must be an index
    /// of it.
    pub fn new(
        pieces: Vec<(String, f64)>,
        unk_id: Option<u32>,
        byte_fallback: bool,
    ) -> Result<Self> {
        if let Some(unk_id) = unk_id.filter(|&id| id as usize >= pieces.len()) {
            return Err(Error::InvalidVocab(format!(
                "unk_id {unk_id} is not below the vocabulary size {}",
                pieces.len()
            )));
        }
        let mut vocab = FxHashMap::default();
        let mut min_score = f64::INFINITY;
        for (id, (piece, score)) in pieces.iter().enumerate() {
            vocab.insert(piece.clone(), id as u32);
            min_score = min_score.min(*score);
        }
        let mut trie = PieceTrie::new();
        for (piece, &id) in &vocab {
            trie.insert(piece.as_bytes(), id);
        }
        Ok(Self {
            vocab,
            scores: pieces.into_iter().map(|(_, s)| s).collect(),
            trie,
            unk_id,
            min_score,
            byte_fallback,
            cache: WordCache::default(),
            sampling: None,
        })
    }

    /// Samples each word's segmentation with smoothing `alpha` among all of them, or among
    /// the `nbest` best when it is above 0 (HF's `Unigram(alpha=, nbest_size=)`); `alpha`
    /// None or 0 gives the best segmentation, as in HF.
    pub fn set_sampling(&mut self, alpha: Option<f64>, nbest: Option<usize>) {
        self.sampling = alpha.filter(|&a| a != 0.0).map(|a| (a, nbest));
    }

    /// HF's `alpha` and `nbest_size` as set by [`Self::set_sampling`] (None when not sampling).
    pub fn sampling(&self) -> Option<(f64, Option<usize>)> {
        self.sampling
    }

    /// The vocabulary (piece -> id).
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// How many pieces the model has, a piece listed twice counted twice (as HF counts them).
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether the model has no piece (never, once built).
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Whether a token of id `id` is spelled by the text it covers rather than by its
    /// vocabulary entry: HF names an unknown Unigram piece by its own text.
    pub fn spells_unknown(&self, id: u32) -> bool {
        Some(id) == self.unk_id
    }

    /// The pieces of one word as `(id, start, end)`, in characters of `word`.
    ///
    /// # Errors
    /// The word needs the unknown piece and the model has no `unk_id`.
    pub fn tokenize(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let mut out = Vec::new();
        self.tokenize_into(word, &mut out)?;
        Ok(out)
    }

    /// Appends the pieces of one word to `out`, as [`Self::tokenize`] gives them (words
    /// seen before come from the model's cache, as in HF).
    ///
    /// # Errors
    /// As [`Self::tokenize`] (then `out` is as it was).
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        if let Some((alpha, nbest)) = self.sampling {
            let text: String = word.iter().collect();
            let spans = self.sample_spans(&text, alpha, nbest);
            out.extend(self.tokens_of(word, &text, spans)?);
            return Ok(());
        }
        self.cache
            .try_tokenize_into(word, out, |w| self.tokenize_uncached(w))
    }

    fn tokenize_uncached(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let text: String = word.iter().collect();
        let spans = self.segment(&text);
        self.tokens_of(word, &text, spans)
    }

    /// The tokens of `word` (spelled `text`) from its segmentation `spans` (byte spans with
    /// their id, `None` for fused unknown nodes), or the error of a word that needed an
    /// unknown id the model lacks (`spans` is `None`).
    fn tokens_of(
        &self,
        word: &[char],
        text: &str,
        spans: Option<Vec<(usize, usize, Option<u32>)>>,
    ) -> Result<Vec<(u32, usize, usize)>> {
        let missing = || missing_unknown("unk_id", "no unk_id", word);
        let spans = spans.ok_or_else(missing)?;
        let mut out = Vec::new();
        // Spans come in order: one walk turns their byte offsets into characters.
        let (mut byte, mut char) = (0, 0);
        let mut to_char = |b: usize| {
            char += text[byte..b].chars().count();
            byte = b;
            char
        };
        for (s, e, id) in spans {
            let (cs, ce) = (to_char(s), to_char(e));
            // A fused unknown piece is looked up by its text (it may be a vocabulary entry).
            let piece = &text[s..e];
            if let Some(id) = id.or_else(|| self.vocab.get(piece).copied()) {
                out.push((id, cs, ce));
                continue;
            }
            if self.byte_fallback {
                let ids: Option<Vec<u32>> = piece
                    .bytes()
                    .map(|b| self.vocab.get(&format!("<0x{b:02X}>")).copied())
                    .collect();
                if let Some(ids) = ids {
                    out.extend(ids.into_iter().map(|id| (id, cs, ce)));
                    continue;
                }
            }
            // Spans without an id come from unknown nodes, so the model has an unknown id.
            out.push((self.unk_id.ok_or_else(missing)?, cs, ce));
        }
        Ok(out)
    }

    /// Calls `node(start, end, id, score)` for every node of `text`'s lattice, as HF's
    /// `populate_nodes` makes them: by start, each vocabulary piece that matches there (by
    /// length), then an unknown node (`id` None, scored `min_score - 10`) of one character
    /// where no one-character piece starts.
    fn for_each_node(&self, text: &str, mut node: impl FnMut(usize, usize, Option<u32>, f64)) {
        let bytes = text.as_bytes();
        let unk_score = self.min_score - UNK_PENALTY;
        let mut start = 0;
        while start < bytes.len() {
            let mblen = utf8_len(bytes[start]);
            let mut single = false;
            self.trie.common_prefixes(&bytes[start..], |len, id| {
                node(start, start + len, Some(id), self.scores[id as usize]);
                single |= len == mblen;
            });
            if !single {
                node(start, start + mblen, None, unk_score);
            }
            start += mblen;
        }
    }

    /// Whether a node of id `id` (None: an unknown node) is fused with its unknown
    /// neighbours: HF fuses every node whose id is the unknown id.
    fn is_unknown(&self, id: Option<u32>) -> bool {
        id.is_none() || id == self.unk_id
    }

    /// The best path as byte spans with the id of their piece, consecutive unknown nodes
    /// fused into one span without an id; `None` if an unknown node would enter the path of a
    /// model without an unknown id (where HF fails).
    fn segment(&self, text: &str) -> Option<Vec<(usize, usize, Option<u32>)>> {
        thread_local! {
            // The best node at each byte position, reused from word to word.
            static BEST: std::cell::Cell<Vec<Best>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let size = text.len();
        let empty = Best {
            id: None,
            score: 0.0,
            start: None,
        };
        let mut best = BEST.take();
        best.clear();
        best.resize(size + 1, empty);
        let mut failed = false;
        self.for_each_node(text, |start, end, id, score| {
            let score = best[start].score + score;
            let target = &mut best[end];
            if target.start.is_none() || score > target.score {
                // Without an unknown id, an unknown node that would win fails the word.
                failed |= id.is_none() && self.unk_id.is_none();
                *target = Best {
                    id: id.or(self.unk_id),
                    score,
                    start: Some(start),
                };
            }
        });
        let mut spans = Vec::new();
        let mut end = size;
        while !failed && end > 0 {
            // Every character boundary is reached (by a piece or an unknown node).
            let Some(s) = best[end].start else { break };
            spans.push((s, end, best[end].id));
            end = s;
        }
        // A long word's table is freed, not kept (see `crate::scratch`).
        crate::scratch::release_if_large(&mut best);
        BEST.set(best);
        if failed {
            return None;
        }
        spans.reverse();
        Some(self.fused(spans))
    }

    /// `path` (byte spans in order with their id, None for unknown nodes) with each run of
    /// unknown nodes fused into one span without an id.
    fn fused(&self, path: Vec<(usize, usize, Option<u32>)>) -> Vec<(usize, usize, Option<u32>)> {
        let mut out: Vec<(usize, usize, Option<u32>)> = Vec::with_capacity(path.len());
        for (s, e, id) in path {
            let unknown = self.is_unknown(id);
            match out.last_mut() {
                Some(last) if unknown && last.2.is_none() => last.1 = e,
                _ => out.push((s, e, if unknown { None } else { id })),
            }
        }
        out
    }
}

/// The length of the UTF-8 character that starts with byte `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0..0x80 => 1,
        0xE0..0xF0 => 3,
        0xF0.. => 4,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(pieces: &[(&str, f64)], byte_fallback: bool) -> HfUnigram {
        let pieces = pieces.iter().map(|&(p, s)| (p.to_string(), s)).collect();
        HfUnigram::new(pieces, Some(0), byte_fallback).unwrap()
    }

    fn ids(m: &HfUnigram, text: &str) -> Vec<(u32, usize, usize)> {
        m.tokenize(&text.chars().collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn best_path_wins() {
        // [ab, c] scores -1 - 3 = -4; [a, bc] scores -2 - 1.5 = -3.5.
        let m = model(
            &[
                ("<unk>", 0.0),
                ("ab", -1.0),
                ("a", -2.0),
                ("bc", -1.5),
                ("c", -3.0),
                ("b", -3.0),
            ],
            false,
        );
        assert_eq!(ids(&m, "abc"), [(2, 0, 1), (3, 1, 3)]);
    }

    #[test]
    fn unknowns_fuse_then_fall_back_to_bytes() {
        let m = model(
            &[
                ("<unk>", 0.0),
                ("a", -1.0),
                ("<0xC3>", -5.0),
                ("<0xA9>", -5.0),
            ],
            true,
        );
        // "éé" is one fused unknown piece: four byte tokens, each spanning both characters.
        assert_eq!(
            ids(&m, "aéé"),
            [(1, 0, 1), (2, 1, 3), (3, 1, 3), (2, 1, 3), (3, 1, 3)]
        );
        // "ü" has a byte with no token: the fused piece is one unknown.
        assert_eq!(ids(&m, "üé"), [(0, 0, 2)]);
    }

    #[test]
    fn unknown_score_is_ten_below_the_minimum() {
        // min -5, so an unknown "x" scores -15: x + y = -15 + 12 beats "xy" (-5).
        let m = model(&[("<unk>", 0.0), ("xy", -5.0), ("y", 12.0)], false);
        assert_eq!(ids(&m, "xy"), [(0, 0, 1), (2, 1, 2)]);
        // With y at 9, x + y = -6 loses to "xy".
        let m = model(&[("<unk>", 0.0), ("xy", -5.0), ("y", 9.0)], false);
        assert_eq!(ids(&m, "xy"), [(1, 0, 2)]);
    }

    #[test]
    fn bad_unk_id_is_refused() {
        let pieces = vec![("a".to_string(), -1.0)];
        assert!(HfUnigram::new(pieces, Some(3), false).is_err());
    }

    /// HF fails only where an unknown node would enter the best path: "ab" goes through the
    /// piece "ab" though "b" has no piece of its own, while "xb" and a lone "b" need one.
    #[test]
    fn without_unk_id_a_word_that_needs_it_fails() {
        let pieces = [("a", -1.0), ("ab", -1.0), ("c", -2.0), ("<0x62>", -3.0)];
        let m = HfUnigram::new(
            pieces.iter().map(|&(p, s)| (p.to_string(), s)).collect(),
            None,
            true,
        )
        .unwrap();
        assert_eq!(ids(&m, "abc"), [(1, 0, 2), (2, 2, 3)]);
        assert_eq!(ids(&m, "ca"), [(2, 0, 1), (0, 1, 2)]);
        for word in ["b", "cb", "xb", "ax"] {
            let mut out = vec![(5, 0, 1)];
            let chars: Vec<char> = word.chars().collect();
            // Twice: a failed word is not remembered, and fails again.
            for _ in 0..2 {
                let err = m.tokenize_into(&chars, &mut out).unwrap_err();
                assert!(err.to_string().contains("model.unk_id"), "{word}: {err}");
                assert_eq!(out, [(5, 0, 1)], "{word}");
            }
        }
    }
}
