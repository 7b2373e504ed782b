//! The processor's ids from a model's pieces: unknown pieces merged or split into bytes
//! ([`Unknowns`]), either after the model has written spans or, for a Unigram model that
//! segments word by word, straight from its word cache ([`IdSink`]), with no spans at all.

use crate::models::unigram::unknown_runs::chars_in;
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
    /// it was unknown, and is updated. The one place the processor's unknown rule is written
    /// (the model's word cache merges runs the same way, in
    /// [`crate::models::unigram::unknown_runs`], before the processor sees them).
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
/// A word with no unknown piece is copied as the model's ids. Without byte fallback, a cached
/// word already holds each run of its unknown pieces as one unknown id (see
/// [`crate::models::unigram::unknown_runs`]), and a word segmented here has its runs merged as
/// it is copied; either way the sink joins a word's first run to a run that ends the word
/// before, and notes the text of each unknown id's run, so that [`WordSink::score`] can still
/// count one unknown piece per character when a word segmented in context asks for the score.
/// With byte fallback a word with an unknown piece goes through [`Unknowns::push`], and the
/// score of every piece up to its end is summed first: past it, `out` no longer holds the
/// model's ids.
pub(super) struct IdSink<'a> {
    unknowns: Unknowns<'a>,
    text: &'a [u8],
    out: &'a mut Vec<u32>,
    /// Without byte fallback: the run of unknown pieces each unknown id in `out` stands for,
    /// as a span of the text, in order. With byte fallback: the pieces of a cached word with
    /// an unknown one, for a moment.
    runs: &'a mut Vec<Span>,
    /// The score of the pieces before `out[summed..]`.
    score: f32,
    summed: usize,
    /// How many of `runs` the score counts, and where the last of them ended when counted:
    /// the next word's first unknown pieces may join it later.
    runs_summed: usize,
    summed_run_end: usize,
    is_prev_unk: bool,
}

impl<'a> IdSink<'a> {
    /// Writes the ids of `text` into `out`; `scratch` is a buffer for the sink's own use.
    pub(super) fn new(
        unknowns: Unknowns<'a>,
        text: &'a [u8],
        out: &'a mut Vec<u32>,
        scratch: &'a mut Vec<Span>,
    ) -> Self {
        scratch.clear();
        Self {
            unknowns,
            text,
            out,
            runs: scratch,
            score: 0.0,
            summed: 0,
            runs_summed: 0,
            summed_run_end: 0,
            is_prev_unk: false,
        }
    }

    /// With byte fallback: takes back the model ids from `at` on, which hold an unknown, and
    /// writes the word's `pieces` (spans into the word, which starts at byte `start` of the
    /// text; an unknown span may be a merged run) through the unknown rule instead.
    #[inline(never)]
    fn push_with_unknowns(&mut self, at: usize, model: &Unigram, pieces: &[Span], start: usize) {
        self.out.truncate(at);
        self.score(model);
        let unk = self.unknowns.unk_id;
        for &(s, e, id) in pieces {
            let (s, e) = (s + start, e + start);
            let count = if id == unk {
                chars_in(&self.text[s..e])
            } else {
                1
            };
            add_times(&mut self.score, model.node_score(id), count);
            self.unknowns
                .push(self.text, s, e, id, &mut self.is_prev_unk, self.out);
        }
        self.summed = self.out.len();
    }

    /// Without byte fallback: takes back the ids of the cached word from `at` on (its runs
    /// already merged) and writes them again through [`Self::push_merged_piece`], which joins
    /// its first run to the previous word's last one and notes the runs.
    #[inline(never)]
    fn note_runs(&mut self, hit: &Cached<'_>, at: usize, start: usize) {
        self.out.truncate(at);
        let mut from = start;
        hit.for_each_piece(|end, id| {
            let end = start + end;
            self.push_merged_piece(from, end, id);
            from = end;
        });
    }

    /// Without byte fallback: appends the ids of a word's `spans` (into the word, which
    /// starts at byte `start`), each run of unknown pieces as one id, noting the runs.
    #[inline(never)]
    fn push_merged(&mut self, spans: &[Span], start: usize) {
        for &(s, e, id) in spans {
            self.push_merged_piece(start + s, start + e, id);
        }
    }

    /// Without byte fallback: the processor's rule ([`Unknowns::step`]) for the piece
    /// `text[s..e]` with model id `id`, noting the run of text each unknown id stands for.
    #[inline]
    fn push_merged_piece(&mut self, s: usize, e: usize, id: u32) {
        match self.unknowns.step(id, &mut self.is_prev_unk) {
            Step::Piece => {
                self.out.push(id);
                if id == self.unknowns.unk_id {
                    self.runs.push((s, e, id));
                }
            }
            Step::JoinPrevious => {
                if let Some(last) = self.runs.last_mut() {
                    last.1 = e;
                }
            }
            Step::Bytes(_) => unreachable!("unknown runs are merged only without byte fallback"),
        }
    }
}

impl WordSink for IdSink<'_> {
    #[inline(always)]
    fn push_cached(&mut self, hit: &Cached<'_>, start: usize, model: &Unigram) {
        let at = self.out.len();
        if hit.push_ids(self.out, self.unknowns.unk_id) {
            if self.unknowns.byte_ids.is_none() {
                return self.note_runs(hit, at, start);
            }
            let mut word = std::mem::take(self.runs);
            word.clear();
            push_cached(hit, 0, &mut word);
            self.push_with_unknowns(at, model, &word, start);
            *self.runs = word;
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
            self.out.truncate(at);
            self.push_merged(spans, start);
        } else if has_unk {
            self.push_with_unknowns(at, model, spans, start);
        } else if !spans.is_empty() {
            self.is_prev_unk = false;
        }
    }

    /// Sums the pieces written since the last call, one unknown piece per character of each
    /// unknown id's run (with byte fallback `out[summed..]` holds no unknown id).
    fn score(&mut self, model: &Unigram) -> f32 {
        let unk = self.unknowns.unk_id;
        let unk_score = model.node_score(unk);
        // Characters that joined the last counted run since: they come before `out[summed..]`.
        if let Some(&(_, end, _)) = self.runs_summed.checked_sub(1).map(|i| &self.runs[i]) {
            let joined = chars_in(&self.text[self.summed_run_end..end]);
            add_times(&mut self.score, unk_score, joined);
            self.summed_run_end = end;
        }
        for &id in &self.out[self.summed..] {
            if id != unk {
                self.score += model.node_score(id);
                continue;
            }
            let (s, e, _) = self.runs[self.runs_summed];
            self.runs_summed += 1;
            add_times(&mut self.score, unk_score, chars_in(&self.text[s..e]));
            self.summed_run_end = e;
        }
        self.summed = self.out.len();
        self.score
    }
}

/// Adds `value` to `score` `n` times, one addition at a time: the `f32` sum must be the one
/// the lattice makes, one node per unknown character.
#[inline]
fn add_times(score: &mut f32, value: f32, n: usize) {
    for _ in 0..n {
        *score += value;
    }
}
