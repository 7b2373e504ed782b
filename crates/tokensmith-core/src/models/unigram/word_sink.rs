//! Where the word-by-word Unigram segmentation ([`Unigram::segment_with`]) writes a text's
//! pieces: as spans ([`SpanSink`]), or straight as a processor's ids, which skips the spans
//! when nothing but ids is asked for.
//!
//! A word segmented in context needs the whole-text Viterbi's score at its start: the `f32`
//! sum, left to right from 0, of the node scores of every piece before it. A sink keeps enough
//! to give that sum back ([`WordSink::score`]), brought up to date only when asked.
//!
//! [`Unigram::segment_with`]: super::Unigram::segment_with

use super::model::{Span, Unigram};
use super::unknown_runs::push_chars;
use super::words::{push_cached, Cached, MAX_PIECES};

/// What [`super::Unigram::segment_with`] writes a text's segmentation into, word by word.
pub trait WordSink {
    /// Appends the cached word that starts at byte `start` of the text; each run of unknown
    /// pieces in it is one span over the run (see [`super::unknown_runs`]).
    fn push_cached(&mut self, hit: &Cached<'_>, start: usize, model: &Unigram);
    /// Appends a word's spans, given in bytes into the word, which starts at byte `start`.
    fn push_spans(&mut self, spans: &[Span], start: usize, model: &Unigram);
    /// The `f32` sum, left to right from 0, of the node scores of every piece appended so far.
    fn score(&mut self, model: &Unigram) -> f32;
}

/// Spans of the text, as [`Unigram::encode_into`] gives them.
pub struct SpanSink<'a> {
    spans: &'a mut Vec<Span>,
    /// The text, whose characters give back a cached run of unknown pieces one by one.
    text: &'a [u8],
    unk_id: u32,
    /// The score of the first `summed` spans.
    score: f32,
    summed: usize,
}

impl<'a> SpanSink<'a> {
    /// Writes the spans of `text` into `spans`, cleared first.
    pub fn new(spans: &'a mut Vec<Span>, text: &'a [u8], unk_id: u32) -> Self {
        spans.clear();
        Self {
            spans,
            text,
            unk_id,
            score: 0.0,
            summed: 0,
        }
    }
}

impl SpanSink<'_> {
    /// Turns each unknown span from `at` on (a merged run) back into one span per character.
    #[inline(never)]
    fn split_runs(&mut self, at: usize) {
        // A cached word has at most `MAX_PIECES` spans.
        let mut merged = [(0, 0, 0); MAX_PIECES];
        let n = self.spans.len() - at;
        merged[..n].copy_from_slice(&self.spans[at..]);
        self.spans.truncate(at);
        for &(start, end, id) in &merged[..n] {
            if id == self.unk_id {
                push_chars(self.text, start, end, id, self.spans);
            } else {
                self.spans.push((start, end, id));
            }
        }
    }
}

impl WordSink for SpanSink<'_> {
    #[inline(always)]
    fn push_cached(&mut self, hit: &Cached<'_>, start: usize, _: &Unigram) {
        let at = self.spans.len();
        push_cached(hit, start, self.spans);
        if self.spans[at..].iter().any(|s| s.2 == self.unk_id) {
            self.split_runs(at);
        }
    }

    #[inline]
    fn push_spans(&mut self, spans: &[Span], start: usize, _: &Unigram) {
        self.spans
            .extend(spans.iter().map(|&(s, e, id)| (s + start, e + start, id)));
    }

    fn score(&mut self, model: &Unigram) -> f32 {
        for &(_, _, id) in &self.spans[self.summed..] {
            self.score += model.node_score(id);
        }
        self.summed = self.spans.len();
        self.score
    }
}
