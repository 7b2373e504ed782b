//! A segmentation's pieces with their byte offsets in the input, written into a sink:
//! [`OffsetPiece`]s with each piece's text (sentencepiece's `SentencePieceText`), or only ids
//! and offsets in columns ([`OffsetIds`]) for a caller that needs no piece text (the spans of
//! a long text: no allocation per piece).

use super::ids::{Step, Unknowns};
use super::{byte_piece, OffsetPiece};
use crate::models::unigram::Span;

/// Ids with the byte offsets in the input of what each came from, as
/// [`super::SentencePieceProcessor::encode_with_offsets`] gives them, in three columns.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct OffsetIds {
    pub ids: Vec<u32>,
    pub begins: Vec<usize>,
    pub ends: Vec<usize>,
}

/// Where [`walk`] puts pieces.
pub(super) trait OffsetSink {
    /// A new piece: its id, offsets, whether it has a surface, and its text: the normalized
    /// `text`, or with byte fallback the `byte` it stands for.
    fn piece(
        &mut self,
        id: u32,
        span: (usize, usize),
        has_surface: bool,
        text: &str,
        byte: Option<u8>,
    );
    /// An unknown piece joins the previous one: its normalized `text`, and where it ends.
    fn join(&mut self, text: &str, end: usize);
}

impl OffsetSink for Vec<OffsetPiece> {
    fn piece(
        &mut self,
        id: u32,
        span: (usize, usize),
        has_surface: bool,
        text: &str,
        byte: Option<u8>,
    ) {
        let piece = byte.map_or_else(|| text.to_string(), byte_piece);
        self.push(OffsetPiece {
            piece,
            id,
            begin: span.0,
            end: span.1,
            has_surface,
        });
    }

    fn join(&mut self, text: &str, end: usize) {
        if let Some(prev) = self.last_mut() {
            prev.piece.push_str(text);
            prev.end = end;
        }
    }
}

impl OffsetSink for OffsetIds {
    fn piece(&mut self, id: u32, span: (usize, usize), _: bool, _: &str, _: Option<u8>) {
        self.ids.push(id);
        self.begins.push(span.0);
        self.ends.push(span.1);
    }

    fn join(&mut self, _: &str, end: usize) {
        if let Some(last) = self.ends.last_mut() {
            *last = end;
        }
    }
}

/// Turns model spans into pieces with offsets in the original text (`to_orig` maps each
/// normalized byte back): unknown runs merged, or split into byte pieces of which all but
/// a character's last are empty at its start.
pub(super) fn walk(
    normalized: &str,
    to_orig: &[usize],
    spans: &[Span],
    unknowns: Unknowns<'_>,
    sink: &mut impl OffsetSink,
) {
    let mut is_prev_unk = false;
    for &(start, end, id) in spans {
        let w = &normalized[start..end];
        let (begin, finish) = (to_orig[start], to_orig[end]);
        match unknowns.step(id, &mut is_prev_unk) {
            Step::Bytes(table) => {
                let last = w.len().saturating_sub(1);
                for (i, b) in w.bytes().enumerate() {
                    let end = if i == last { finish } else { begin };
                    sink.piece(table[usize::from(b)], (begin, end), i == last, w, Some(b));
                }
            }
            Step::JoinPrevious => sink.join(w, finish),
            Step::Piece => sink.piece(id, (begin, finish), true, w, None),
        }
    }
}
