//! Viterbi segmentation, following sentencepiece's `unigram::Model::EncodeOptimized`.
//!
//! Facts kept from sentencepiece so that results are identical:
//! - the pieces in the lattice are the NORMAL and USER_DEFINED ones (sentencepiece skips UNUSED
//!   matches; here they are left out of the trie); a USER_DEFINED piece of n bytes scores
//!   `0.1 * n - 0.1` (see [`user_defined_score`]), which the trie stores with it;
//! - where no piece covers exactly the next character, that character becomes an unknown node
//!   scored `min_score - 10` (min and max over NORMAL pieces);
//! - starts are visited character by character, left to right (characters cut by the lead
//!   byte's length, as sentencepiece's `OneCharLen`), and at each start the matches shortest
//!   first; a candidate replaces a node only when strictly better, so ties go
//!   to the earlier start;
//! - path scores are `f32`, and a candidate is one `f32` addition of the piece's score to the
//!   score at its start;
//! - the scores are rebased to keep them small, as sentencepiece 0.2.3 does (read from its
//!   compiled `unigram::Model` Viterbi loop, which has no public source): when the score at the
//!   start being visited is below `-100000` or above `100000`, that score is subtracted (in
//!   `f32`) from it and from every reached position up to the furthest end seen so far, and the
//!   walk goes on from 0. On long inputs this decides near ties that plain `f32` sums round
//!   together (see `docs/sentencepiece.md`).
//!
//! Consecutive unknown characters are merged later, by the processor, not here.

use std::cell::RefCell;

use super::char_trie::NONE;
use super::lattice::Lattice;
use super::nbest::nbest;
use super::sample::{sample_path, SplitMix64};
use super::trie::PieceTrie;
use super::unknown_runs::merge_runs;
use super::word_sink::{SpanSink, WordSink};
use super::word_split::WordSplit;
use super::words::{self, MAX_WORD};
use crate::formats::sentencepiece_model::PieceType;
use crate::scratch::release_if_large;
use crate::thread_tables::CacheTag;

pub(super) const UNK_PENALTY: f32 = 10.0;

/// One vocabulary entry of a Unigram model.
#[derive(Debug, Clone, PartialEq)]
pub struct UnigramPiece {
    pub piece: String,
    pub score: f32,
    pub kind: PieceType,
}

/// A Unigram model: pieces with log-probability scores, and the trie over them, which holds
/// each piece's Viterbi score so that a match costs no second lookup.
#[derive(Debug, Clone)]
pub struct Unigram {
    pieces: Vec<UnigramPiece>,
    trie: PieceTrie,
    unk_id: u32,
    min_score: f32,
    max_score: f32,
    /// How words split when no lattice node can cross a word boundary (see [`Self::segment_into`]).
    split: Option<WordSplit>,
    /// The largest magnitude of a node score (pieces and unknown); infinite if any is not finite.
    max_abs: f32,
    /// This model's word cache tables.
    cache_tag: std::sync::Arc<CacheTag>,
    /// Each piece's Viterbi node score (see [`Self::node_score`]).
    node_scores: Vec<f32>,
}

/// Scores beyond this magnitude are rebased (sentencepiece 0.2.3's constant).
const REBASE_AT: f32 = 100_000.0;

/// The best path ending at one character position (12 bytes, so the table a call fills is
/// small).
#[derive(Clone, Copy)]
struct BestPath {
    score: f32,
    id: u32,
    /// The character where the last piece of the path starts, or `NO_START` when nothing ends
    /// here yet.
    starts_at: u32,
}

const NO_START: u32 = u32::MAX;

/// Viterbi's per-position tables, kept between calls so that short texts allocate nothing.
#[derive(Default)]
struct Tables {
    best: Vec<BestPath>,
    /// The best losing candidate's score at each position (filled only when margins are asked
    /// for).
    second: Vec<f32>,
    /// The text's character codes, and each character's byte offset (then the text's length).
    codes: Vec<u32>,
    offsets: Vec<usize>,
}

/// Bytes this thread's Viterbi tables hold between calls (for tests of [`crate::scratch`]).
#[cfg(test)]
pub(crate) fn kept_table_bytes() -> usize {
    BEST.with(|cell| {
        let t = cell.borrow();
        t.best.capacity() * std::mem::size_of::<BestPath>()
            + t.second.capacity() * std::mem::size_of::<f32>()
            + t.codes.capacity() * std::mem::size_of::<u32>()
            + t.offsets.capacity() * std::mem::size_of::<usize>()
    })
}

impl Tables {
    /// Frees the tables a long text left (see [`crate::scratch`]).
    fn release_if_large(&mut self) {
        release_if_large(&mut self.best);
        release_if_large(&mut self.second);
        release_if_large(&mut self.codes);
        release_if_large(&mut self.offsets);
    }
}

thread_local! {
    static BEST: RefCell<Tables> = RefCell::new(Tables::default());
}

impl Unigram {
    /// Builds the model. `unk_id` is the id given to characters no piece covers.
    ///
    /// ```
    /// use tokensmith_core::models::unigram::Unigram;
    /// let m = Unigram::from_probabilities(&[("<unk>", 0.0), ("ab", 0.4), ("a", 0.3), ("b", 0.2), ("c", 0.1)], 0);
    /// assert_eq!(m.encode("abc"), vec![(0, 2, 1), (2, 3, 4)]);
    /// ```
    pub fn new(pieces: Vec<UnigramPiece>, unk_id: u32) -> Self {
        let mut trie = PieceTrie::new();
        let (mut min_score, mut max_score) = (f32::MAX, f32::MIN_POSITIVE);
        let mut max_abs = 0.0f32;
        for (id, p) in pieces.iter().enumerate() {
            let score = match p.kind {
                PieceType::Normal => {
                    min_score = min_score.min(p.score);
                    max_score = max_score.max(p.score);
                    p.score
                }
                PieceType::UserDefined => user_defined_score(p.piece.len()),
                _ => continue,
            };
            trie.insert_scored(p.piece.as_bytes(), id as u32, score);
            max_abs = max_abs.max(if score.is_finite() {
                score.abs()
            } else {
                f32::INFINITY
            });
        }
        let unk_score = min_score - UNK_PENALTY;
        max_abs = max_abs.max(if unk_score.is_finite() {
            unk_score.abs()
        } else {
            f32::INFINITY
        });
        let in_lattice =
            |p: &UnigramPiece| matches!(p.kind, PieceType::Normal | PieceType::UserDefined);
        // Word by word needs each span's score back from its id, so the unknown id must not
        // also name a piece of the lattice.
        let unk_is_a_piece = pieces.get(unk_id as usize).is_some_and(in_lattice);
        let split = WordSplit::for_pieces(
            pieces
                .iter()
                .filter(|p| in_lattice(p))
                .map(|p| p.piece.as_str()),
        )
        .filter(|_| !unk_is_a_piece);
        let node_scores = pieces
            .iter()
            .map(|p| match p.kind {
                PieceType::UserDefined => user_defined_score(p.piece.len()),
                _ => p.score,
            })
            .collect();
        Self {
            pieces,
            trie,
            unk_id,
            min_score,
            max_score,
            split,
            max_abs,
            cache_tag: CacheTag::new(),
            node_scores,
        }
    }

    /// A model from the pieces of a `.model` file.
    pub fn from_model_pieces(
        pieces: &[crate::formats::sentencepiece_model::Piece],
        unk_id: u32,
    ) -> Self {
        let pieces = pieces
            .iter()
            .map(|p| UnigramPiece {
                piece: p.piece.clone(),
                score: p.score,
                kind: p.kind,
            })
            .collect();
        Self::new(pieces, unk_id)
    }

    /// A model from `(piece, probability)` pairs; a probability of 0 marks the unknown piece.
    pub fn from_probabilities(pieces: &[(&str, f64)], unk_id: u32) -> Self {
        let pieces = pieces
            .iter()
            .enumerate()
            .map(|(id, &(piece, p))| UnigramPiece {
                piece: piece.to_string(),
                score: if id as u32 == unk_id {
                    0.0
                } else {
                    p.ln() as f32
                },
                kind: if id as u32 == unk_id {
                    PieceType::Unknown
                } else {
                    PieceType::Normal
                },
            })
            .collect();
        Self::new(pieces, unk_id)
    }

    /// The best segmentation of `normalized` as `(start, end, id)` byte spans.
    pub fn encode(&self, normalized: &str) -> Vec<(usize, usize, u32)> {
        let mut spans = Vec::new();
        self.encode_into(normalized, &mut spans);
        spans
    }

    /// The best segmentation and its score (the sum of the pieces' scores, with the rebased
    /// parts added back in `f64`).
    pub fn viterbi(&self, normalized: &str) -> (Vec<(usize, usize, u32)>, f32) {
        let mut spans = Vec::new();
        let score = self.encode_into(normalized, &mut spans);
        (spans, score as f32)
    }

    /// Writes the best segmentation of `normalized` into `spans` (cleared first) and returns
    /// its score; reusing `spans` between calls saves its allocation.
    pub fn encode_into(&self, normalized: &str, spans: &mut Vec<Span>) -> f64 {
        spans.clear();
        if normalized.is_empty() {
            return 0.0;
        }
        BEST.with(|cell| match cell.try_borrow_mut() {
            Ok(mut best) => {
                let score = self
                    .viterbi_with::<false>(normalized.as_bytes(), 0.0, &mut best, spans)
                    .0;
                best.release_if_large();
                score
            }
            // Only reachable if `f` of a trie walk re-entered Viterbi on this thread.
            Err(_) => {
                self.viterbi_with::<false>(
                    normalized.as_bytes(),
                    0.0,
                    &mut Tables::default(),
                    spans,
                )
                .0
            }
        })
    }

    /// Writes the best segmentation of `normalized` into `spans` (cleared first): the same
    /// spans as [`Self::encode_into`], found word by word through a per-thread cache when the
    /// model allows it.
    ///
    /// Why a cached word is exact. No node crosses a word boundary ([`WordSplit`]), so every
    /// path goes through each boundary, and in exact arithmetic the best path within a word
    /// does not depend on the score `S` of the best path up to the word. sentencepiece sums in
    /// `f32`, though: in context each candidate is `S + x` rounded step by step, alone it is
    /// `x` rounded step by step, and a near tie can go either way. The bound: with `u = 2^-24`
    /// (an `f32` addition is off by at most `u` times its result), every score in either
    /// computation at most `M = (b + L + 1) * A` in magnitude (`b` bytes before the word, `L`
    /// in it, `A` the largest score magnitude, each piece at least one byte), and no rebasing
    /// (checked: `2 (N + 1) A < 100,000` for the whole text of `N` bytes), the best score at
    /// each position of the word differs from `S` plus its exact value by at most `k u M`
    /// after `k` pieces (one rounding per addition; a max of values each within `e` of their
    /// exact values is within `e` of the exact max). So each candidate of a decision, in
    /// context minus `S`, is within `2 L u M` of the same candidate alone, and a winner that
    /// alone beats every other candidate by more than `4 L u M` wins in context too, tie rule
    /// or not. The cache keeps the smallest such margin over the decisions on the word's
    /// path (only those are read back); a word whose margin is not above the bound (taken
    /// with `u = 2^-23`, to absorb the margin's own rounding) is not used. Off-path decisions
    /// may differ without changing the path.
    ///
    /// A word that cannot use the cache (too long for a slot, or its margin too small) is
    /// segmented in context instead: the score the whole-text Viterbi holds at the word's
    /// start is the `f32` sum, left to right, of the node scores on the best path so far
    /// (each winner is its start's score plus one node score), so it is known exactly here,
    /// and a Viterbi over the word alone that starts from it makes exactly the whole-text
    /// Viterbi's additions and comparisons inside the word.
    pub fn segment_into(&self, normalized: &str, spans: &mut Vec<Span>) {
        if self
            .segment_with(
                normalized,
                &mut SpanSink::new(spans, normalized.as_bytes(), self.unk_id),
            )
            .is_none()
        {
            self.encode_into(normalized, spans);
        }
    }

    /// [`Self::segment_into`] word by word: the number of words segmented in context rather
    /// than taken from their alone result, or `None` (with `spans` in any state) when the
    /// model or the text does not allow word by word.
    #[cfg(test)]
    pub(super) fn segment_words(&self, normalized: &str, spans: &mut Vec<Span>) -> Option<usize> {
        self.segment_with(
            normalized,
            &mut SpanSink::new(spans, normalized.as_bytes(), self.unk_id),
        )
    }

    /// [`Self::segment_into`] word by word, written into `sink`: the number of words segmented
    /// in context rather than taken from their alone result, or `None` (with `sink` in any
    /// state) when the model or the text does not allow word by word.
    pub(crate) fn segment_with<S: WordSink>(
        &self,
        normalized: &str,
        sink: &mut S,
    ) -> Option<usize> {
        let bytes = normalized.as_bytes();
        // A twice-too-large bound still keeps every score clear of the rebasing threshold.
        let clear_of_rebase = (bytes.len() as f32 + 1.0) * self.max_abs * 2.0 < REBASE_AT;
        let split = self
            .split
            .filter(|_| clear_of_rebase && !bytes.is_empty())?;
        BEST.with(|cell| {
            let mut tables = cell.try_borrow_mut().ok()?;
            let found = words::with_cache(self.cache_tag.get(), |cache| {
                let mut word_spans = Vec::new();
                let mut merged = Vec::new();
                let mut in_context = 0;
                // At least every word's bound (it grows with the word's start and length).
                let text_bound = self.margin_bound(0, bytes.len());
                cache.for_each_word(split, bytes, |cache, probe| {
                    let start = probe.start;
                    let word = &bytes[start..probe.end];
                    let bound = || self.margin_bound(start, word.len());
                    let alone_holds = match cache.find(probe) {
                        Some(hit) if hit.margin() > text_bound || hit.margin() > bound() => {
                            sink.push_cached(&hit, start, self);
                            return true;
                        }
                        Some(_) => false,
                        None if word.len() <= MAX_WORD => {
                            let (_, margin) =
                                self.viterbi_with::<true>(word, 0.0, &mut tables, &mut word_spans);
                            if word_spans.iter().any(|s| s.2 == self.unk_id) {
                                merge_runs(&word_spans, self.unk_id, &mut merged);
                                cache.put_probe(probe, &merged, margin);
                            } else {
                                cache.put_probe(probe, &word_spans, margin);
                            }
                            margin > bound()
                        }
                        None => false,
                    };
                    if !alone_holds {
                        let score = sink.score(self);
                        self.viterbi_with::<false>(word, score, &mut tables, &mut word_spans);
                        in_context += 1;
                    }
                    sink.push_spans(&word_spans, start, self);
                    true
                });
                in_context
            });
            tables.release_if_large();
            found
        })
    }

    /// The score of a Viterbi node with this id: the unknown node's, or the piece's as the
    /// trie holds it.
    #[inline]
    pub(crate) fn node_score(&self, id: u32) -> f32 {
        if id == self.unk_id {
            self.min_score - UNK_PENALTY
        } else {
            self.node_scores[id as usize]
        }
    }

    /// The margin a cached word at byte `start`, of `len` bytes, needs (see
    /// [`Self::segment_into`]).
    fn margin_bound(&self, start: usize, len: usize) -> f32 {
        const U: f32 = 1.0 / 8_388_608.0; // 2^-23
        let m = (start + len + 1) as f32 * self.max_abs;
        4.0 * len as f32 * U * m + f32::MIN_POSITIVE
    }

    /// Viterbi over `bytes` from the score `seed` at its start; returns the score and, with
    /// `MARGIN`, the smallest margin by which a decision on the best path beat its best rival
    /// (infinite when none had one).
    ///
    /// Positions are characters, not bytes: the text is turned into character codes once and
    /// the trie is walked one character a step (`char_trie.rs`). Every node of the byte-level
    /// Viterbi that a path can use starts and ends on a character boundary, starts are visited
    /// in the same order, and matches come shortest first, so the additions, comparisons and
    /// ties are the same; only the table is smaller (one entry per character). A run of
    /// characters that no piece holds (most of a Japanese line under an English model) is
    /// stepped by [`unknown_run`], and walked back without reading the table.
    fn viterbi_with<const MARGIN: bool>(
        &self,
        bytes: &[u8],
        seed: f32,
        tables: &mut Tables,
        spans: &mut Vec<Span>,
    ) -> (f64, f32) {
        spans.clear();
        let unk_score = self.min_score - UNK_PENALTY;
        let unk_id = self.unk_id;
        let trie = self.trie.char_trie();
        let Tables {
            best,
            second,
            codes,
            offsets,
        } = tables;
        let size = trie.encode_chars(bytes, codes, offsets);
        let (codes, offsets) = (&codes[..size], &offsets[..=size]);
        // Positions are `u32`; such a text would need tables of over 48 GiB anyway.
        assert!(
            size < NO_START as usize,
            "a text of 2^32 - 1 characters or more is too long for the Viterbi"
        );
        best.clear();
        best.resize(
            size + 1,
            BestPath {
                score: 0.0,
                id: unk_id,
                starts_at: NO_START,
            },
        );
        best[0].score = seed;
        if MARGIN {
            second.clear();
            second.resize(size + 1, f32::NEG_INFINITY);
        }
        let mut rebased = 0.0f64;
        // The furthest end of any node so far: rebasing touches positions up to it.
        let mut furthest = 0;
        let mut start = 0;
        while start < size {
            if codes[start] == NONE {
                start = unknown_run(codes, best, start, (unk_score, unk_id), &mut rebased);
                furthest = furthest.max(start);
                continue;
            }
            let mut here = best[start].score;
            // Two comparisons, as sentencepiece makes them: a NaN score is left alone.
            #[allow(clippy::manual_range_contains)]
            if here < -REBASE_AT || here > REBASE_AT {
                best[start].score = 0.0;
                for at in start + 1..=furthest.max(start) {
                    if best[at].starts_at != NO_START {
                        best[at].score -= here;
                        if MARGIN {
                            second[at] -= here;
                        }
                    }
                }
                rebased += f64::from(here);
                here = 0.0;
            }
            // The nodes that can end a piece starting here, indexed by the piece's length.
            let ahead = &mut best[start..];
            let seconds = if MARGIN {
                &mut second[start..]
            } else {
                &mut [][..]
            };
            let mut relax = |len: usize, id: u32, cand: f32| {
                let node = &mut ahead[len];
                if node.starts_at == NO_START || cand > node.score {
                    if MARGIN {
                        seconds[len] = if node.starts_at == NO_START {
                            f32::NEG_INFINITY
                        } else {
                            node.score
                        };
                    }
                    *node = BestPath {
                        score: cand,
                        id,
                        starts_at: start as u32,
                    };
                } else if MARGIN {
                    seconds[len] = seconds[len].max(cand);
                }
            };
            let mut longest = 0;
            let mut has_single_node = false;
            trie.for_each_prefix(&codes[start..], |len, id, score| {
                relax(len, id, score + here);
                longest = len;
                has_single_node |= len == 1;
            });
            if !has_single_node {
                relax(1, unk_id, unk_score + here);
                longest = longest.max(1);
            }
            furthest = furthest.max(start + longest);
            start += 1;
        }
        let mut end = size;
        let mut margin = f32::INFINITY;
        spans.reserve(size);
        while end > 0 {
            if codes[end - 1] == NONE {
                // Only the unknown node over that character ends here (see
                // [`unknown_run`]): its start is known without reading the table, so the
                // walk back over a run waits for no load. Its margin is infinite.
                spans.push((offsets[end - 1], offsets[end], unk_id));
                end -= 1;
                continue;
            }
            let node = best[end];
            // Every character boundary is reached, so backtracking always finds a start.
            if node.starts_at == NO_START {
                break;
            }
            let from = node.starts_at as usize;
            if MARGIN {
                let gap = f64::from(node.score) - f64::from(second[end]);
                margin = margin.min(gap as f32);
            }
            spans.push((offsets[from], offsets[end], node.id));
            end = from;
        }
        spans.reverse();
        (rebased + f64::from(best[size].score), margin)
    }

    pub fn pieces(&self) -> &[UnigramPiece] {
        &self.pieces
    }

    pub(super) fn trie(&self) -> &PieceTrie {
        &self.trie
    }

    /// Builds now what the first segmentation would otherwise build (the character trie,
    /// milliseconds for a large vocabulary): a loader calls it so that the first encode of a
    /// loaded model is as fast as the next ones, and runs outside the Python lock. A model
    /// that is only trained on (the trainer makes many) never builds it.
    pub fn prepare(&self) {
        self.trie.char_trie();
    }

    /// Whether the character trie is built (for tests).
    #[cfg(test)]
    pub(crate) fn is_prepared(&self) -> bool {
        self.trie.has_char_trie()
    }

    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }

    /// The lowest and highest score of a NORMAL piece.
    pub fn min_score(&self) -> f32 {
        self.min_score
    }

    pub fn max_score(&self) -> f32 {
        self.max_score
    }

    /// Up to `n` best segmentations with their scores, best first, exactly as sentencepiece's
    /// `NBestEncode`: `n` is clamped to 1..=1024, `n = 1` gives the Viterbi path with score 0,
    /// and an empty text gives one empty segmentation.
    pub fn nbest(&self, normalized: &str, n: usize) -> Vec<(Vec<Span>, f32)> {
        let n = n.clamp(1, 1024);
        if normalized.is_empty() {
            return vec![(Vec::new(), 0.0)];
        }
        if n == 1 {
            return vec![(self.encode(normalized), 0.0)];
        }
        let mut lattice = Lattice::new(self, normalized);
        nbest(&mut lattice, n)
            .into_iter()
            .map(|(path, score)| (path.iter().map(|&i| lattice.span(i)).collect(), score))
            .collect()
    }

    /// One segmentation drawn with probability proportional to `exp(inv_theta * score)` among
    /// all of them (sentencepiece's `SampleEncode`).
    pub fn sample(&self, normalized: &str, inv_theta: f32, rng: &mut SplitMix64) -> Vec<Span> {
        if normalized.is_empty() {
            return Vec::new();
        }
        let lattice = Lattice::new(self, normalized);
        sample_path(&lattice, inv_theta, rng)
            .into_iter()
            .map(|i| lattice.span(i))
            .collect()
    }

    /// The entropy of the segmentation distribution at inverse temperature `inv_theta`.
    pub fn entropy(&self, normalized: &str, inv_theta: f32) -> f32 {
        Lattice::new(self, normalized).entropy(inv_theta)
    }
}

/// Steps the Viterbi over the run of characters that no piece contains (code `NONE`) which
/// begins at character `start`, and returns where the run ends.
///
/// No node of the lattice can start or end inside such a character: the trie has no piece
/// with it, and the unknown node is one character long. So every node that ends before the
/// run ends at or before `start` (the caller's furthest end is at most `start`), and each
/// position of the run is reached only from the one before, by the unknown node. The loop
/// makes the general step's additions, one by one and in order, and rebases where it would:
/// its rebasing touches only the position being visited, as no reached position lies beyond
/// it. Margins are untouched: no position in the run has a losing candidate.
#[inline]
fn unknown_run(
    codes: &[u32],
    best: &mut [BestPath],
    start: usize,
    (unk_score, unk_id): (f32, u32),
    rebased: &mut f64,
) -> usize {
    let len = codes[start..].iter().take_while(|&&c| c == NONE).count();
    let run = &mut best[start..=start + len];
    let mut here = run[0].score;
    for at in 0..len {
        #[allow(clippy::manual_range_contains)]
        if here < -REBASE_AT || here > REBASE_AT {
            run[at].score = 0.0;
            *rebased += f64::from(here);
            here = 0.0;
        }
        here += unk_score;
        run[at + 1] = BestPath {
            score: here,
            id: unk_id,
            starts_at: (start + at) as u32,
        };
    }
    start + len
}

/// A piece in a segmentation: `(start, end, id)` in bytes of the normalized text.
pub type Span = (usize, usize, u32);

/// The score of a user-defined piece of `length` units: bytes in Viterbi, characters in the
/// lattice, as sentencepiece 0.2.3 does. Measured on the `sentencepiece` 0.2.3 wheel through
/// its n-best scores: 0.0, 0.1 and 0.2 for 1, 2 and 3 units, whatever the other scores (its
/// 0.2.1 source reads `length * max_score - 0.1` instead); its Viterbi loop computes
/// `(length - 1) * 0.1` in `f64` and rounds that to `f32`, as here.
pub(super) fn user_defined_score(length: usize) -> f32 {
    (length.saturating_sub(1) as f64 * 0.1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise_2() -> Unigram {
        Unigram::from_probabilities(
            &[
                ("<unk>", 0.0),
                ("ab", 0.4),
                ("a", 0.3),
                ("b", 0.2),
                ("c", 0.1),
            ],
            0,
        )
    }

    /// Seed 004, exercise 2: a segmentation's probability is the product of its pieces'
    /// probabilities. [ab, c] = 0.4 * 0.1 = 0.04 beats [a, b, c] = 0.3 * 0.2 * 0.1 = 0.006.
    #[test]
    fn seed_004_exercise_2() {
        let m = exercise_2();
        let (spans, score) = m.viterbi("abc");
        let pieces: Vec<&str> = spans.iter().map(|&(s, e, _)| &"abc"[s..e]).collect();
        assert_eq!(pieces, ["ab", "c"]);
        assert!((f64::from(score).exp() - 0.04).abs() < 1e-6);
        let alt = [0.3f64, 0.2, 0.1]
            .iter()
            .map(|p| p.ln() as f32)
            .sum::<f32>();
        assert!((f64::from(alt).exp() - 0.006).abs() < 1e-6);
        assert!(score > alt);
    }

    #[test]
    fn unknown_characters_get_the_unk_id_one_char_each() {
        let m = exercise_2();
        assert_eq!(m.encode("aéé"), vec![(0, 1, 2), (1, 3, 0), (3, 5, 0)]);
    }

    #[test]
    fn user_defined_pieces_always_win() {
        let mut pieces = exercise_2().pieces().to_vec();
        pieces.push(UnigramPiece {
            piece: "bc".into(),
            score: -100.0,
            kind: PieceType::UserDefined,
        });
        let m = Unigram::new(pieces, 0);
        assert_eq!(m.encode("abc"), vec![(0, 1, 2), (1, 3, 5)]);
    }
}
