//! The processor's ids from a model's pieces: unknown pieces merged or split into bytes
//! ([`Unknowns`]), either after the model has written spans or, for a Unigram model that
//! segments word by word, straight from its word cache ([`IdSink`]), with no spans at all.

use crate::models::unigram::word_sink::WordSink;
use crate::models::unigram::words::{push_cached, Cached};
use crate::models::unigram::{Span, Unigram};

/// How the processor turns a model's pieces into ids: a run of unknown pieces becomes one
/// unknown id, or with byte fallback each unknown piece becomes its bytes' ids.
#[derive(Clone, Copy)]
pub(super) struct Unknowns<'a> {
    pub(super) unk_id: u32,
    pub(super) byte_ids: Option<&'a [u32; 256]>,
}

/// What the processor makes of one model piece ([`Unknowns::step`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Step<'a> {
    /// A piece of its own, with its model id.
    Piece,
    /// An unknown piece right after another: it joins the previous piece.
    JoinPrevious,
    /// An unknown piece with byte fallback: one byte piece per byte, with these ids.
    Bytes(&'a [u32; 256]),
}

impl<'a> Unknowns<'a> {
    /// What becomes of a piece with model id `id`; `is_prev_unk` says whether the piece before
    /// it was unknown, and is updated. The one place the processor's unknown rule is written.
    #[inline]
    pub(super) fn step(self, id: u32, is_prev_unk: &mut bool) -> Step<'a> {
        let is_unk = id == self.unk_id;
        let was_unk = std::mem::replace(is_prev_unk, is_unk);
        match self.byte_ids {
            Some(table) if is_unk => Step::Bytes(table),
            _ if is_unk && was_unk => Step::JoinPrevious,
            _ => Step::Piece,
        }
    }

    /// Appends the ids of the piece `text[start..end]` with model id `id` to `out` (see
    /// [`Self::step`]).
    #[inline]
    pub(super) fn push(
        self,
        text: &[u8],
        start: usize,
        end: usize,
        id: u32,
        is_prev_unk: &mut bool,
        out: &mut Vec<u32>,
    ) {
        match self.step(id, is_prev_unk) {
            Step::Bytes(table) => {
                out.extend(text[start..end].iter().map(|&b| table[usize::from(b)]));
            }
            Step::JoinPrevious => {}
            Step::Piece => out.push(id),
        }
    }
}

/// The processor's ids written straight from the Unigram word path, without spans.
///
/// A word with no unknown piece is copied as the model's ids. A word with one has its
/// unknown runs merged in place (or, with byte fallback, goes through [`Unknowns::push`]),
/// and the score of every piece up to its end is summed first: past it, `out` no longer
/// holds the model's ids (see [`WordSink::score`]).
pub(super) struct IdSink<'a> {
    unknowns: Unknowns<'a>,
    text: &'a [u8],
    out: &'a mut Vec<u32>,
    /// The pieces of a cached word with an unknown one, as spans into the word.
    word: &'a mut Vec<Span>,
    /// The score of the pieces before `out[summed..]`; from `summed` on, `out` holds model ids.
    score: f32,
    summed: usize,
    is_prev_unk: bool,
}

impl<'a> IdSink<'a> {
    /// Writes the ids of `text` into `out`; `word` is a buffer for the sink's own use.
    pub(super) fn new(
        unknowns: Unknowns<'a>,
        text: &'a [u8],
        out: &'a mut Vec<u32>,
        word: &'a mut Vec<Span>,
    ) -> Self {
        Self {
            unknowns,
            text,
            out,
            word,
            score: 0.0,
            summed: 0,
            is_prev_unk: false,
        }
    }

    /// Takes back the model ids from `at` on, which hold an unknown, and writes the word's
    /// `pieces` (spans into the word, which starts at byte `start` of the text) through the
    /// unknown rule instead.
    #[inline(never)]
    fn push_with_unknowns(&mut self, at: usize, model: &Unigram, pieces: &[Span], start: usize) {
        self.out.truncate(at);
        self.score(model);
        for &(s, e, id) in pieces {
            self.score += model.node_score(id);
            self.unknowns.push(
                self.text,
                s + start,
                e + start,
                id,
                &mut self.is_prev_unk,
                self.out,
            );
        }
        self.summed = self.out.len();
    }

    /// Without byte fallback: merges the runs of unknown ids among the model ids from `at` on
    /// (the last word's, which holds an unknown one), in place, once their scores are summed.
    #[inline(never)]
    fn merge_unknowns(&mut self, at: usize, model: &Unigram) {
        self.score(model);
        let unk = self.unknowns.unk_id;
        let mut kept = at;
        for read in at..self.out.len() {
            let id = self.out[read];
            let is_unk = id == unk;
            if !(is_unk && self.is_prev_unk) {
                self.out[kept] = id;
                kept += 1;
            }
            self.is_prev_unk = is_unk;
        }
        self.out.truncate(kept);
        self.summed = kept;
    }
}

impl WordSink for IdSink<'_> {
    #[inline(always)]
    fn push_cached(&mut self, hit: &Cached<'_>, start: usize, model: &Unigram) {
        let at = self.out.len();
        if hit.push_ids(self.out, self.unknowns.unk_id) {
            if self.unknowns.byte_ids.is_none() {
                return self.merge_unknowns(at, model);
            }
            let mut word = std::mem::take(self.word);
            word.clear();
            push_cached(hit, 0, &mut word);
            self.push_with_unknowns(at, model, &word, start);
            *self.word = word;
        } else {
            self.is_prev_unk = false;
        }
    }

    fn push_spans(&mut self, spans: &[Span], start: usize, model: &Unigram) {
        let at = self.out.len();
        let unk = self.unknowns.unk_id;
        let mut has_unk = false;
        self.out.extend(spans.iter().map(|&(_, _, id)| {
            has_unk |= id == unk;
            id
        }));
        if has_unk && self.unknowns.byte_ids.is_none() {
            self.merge_unknowns(at, model);
        } else if has_unk {
            self.push_with_unknowns(at, model, spans, start);
        } else if !spans.is_empty() {
            self.is_prev_unk = false;
        }
    }

    fn score(&mut self, model: &Unigram) -> f32 {
        for &id in &self.out[self.summed..] {
            self.score += model.node_score(id);
        }
        self.summed = self.out.len();
        self.score
    }
}
