//! The last steps of an encode: truncation, the post-processor (special tokens, type ids,
//! sequence ranges, offset trimming) and padding, as HF `tokenizers`' `post_process` runs
//! them.
//!
//! Two routes give the same result. The common one, one or two sequences that truncation left
//! whole, writes every token once into one encoding sized in advance. When truncation cut a
//! sequence into overflowing parts, or when the caller hands in finished encodings
//! ([`HfTokenizer::post_process_encodings`], HF's `Tokenizer.post_process`), the steps run as
//! HF runs them: each sequence and each template piece becomes an encoding, and they are
//! joined with [`HfEncoding::merge_with`], which combines the overflowing parts.
//!
//! ```
//! use tokensmith_core::hf::HfTokenizer;
//! let tok = HfTokenizer::from_json_str(r#"{"model": {"type": "WordLevel", "unk_token": "?",
//!   "vocab": {"?": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}},
//!   "pre_tokenizer": {"type": "Whitespace"},
//!   "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}}"#)
//!     .unwrap();
//! let enc = tok.encode("a a", Some("a"), true).unwrap();
//! assert_eq!(enc.sequence_ids(), [None, Some(0), Some(0), None, Some(1), None]);
//! let again = tok.post_process_encodings(
//!     tok.encode("a a", None, false).unwrap(), Some(tok.encode("a", None, false).unwrap()), true,
//! ).unwrap();
//! assert_eq!(again, enc);
//! ```

use super::byte_level::trim_offsets;
use super::encoding::resolve;
use super::processors::{Piece, PostProcessor, Template};
use super::tokenizer::{keep_for_reuse, FIRST, SECOND};
use super::{HfEncoding, HfTokenizer};
use crate::error::Result;

impl HfTokenizer {
    /// Truncates the encoded sequences as configured, then post-processes them.
    pub(super) fn finish(
        &self,
        first: HfEncoding,
        second: Option<HfEncoding>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (mut first, mut second) = self.truncate_pair(first, second, add_special_tokens)?;
        let overflows = !first.overflowing.is_empty()
            || second.as_ref().is_some_and(|s| !s.overflowing.is_empty());
        let marks_pieces = self.post_processor.as_ref().is_some_and(|p| p.marks_pieces);
        if !overflows && !marks_pieces {
            return Ok(self.post_process(first, second, add_special_tokens));
        }
        // The pieces-by-pieces route below (a ByteLevel step after the template is rare, and
        // marks sequences the one-pass route does not). A sequence as the model leaves it:
        // of its own type id, no special token.
        for (type_id, part) in std::iter::once(&mut first)
            .chain(second.as_mut())
            .enumerate()
        {
            let raw = |p: &mut HfEncoding| {
                let n = p.ids.len();
                p.type_ids = vec![type_id as u32; n];
                p.special_tokens_mask = vec![0; n];
                p.attention_mask = vec![1; n];
            };
            raw(part);
            part.overflowing.iter_mut().for_each(raw);
        }
        Ok(self.process_merging(first, second, add_special_tokens))
    }

    /// Runs truncation, the post-processor and padding on finished encodings, as HF's
    /// `Tokenizer.post_process` does: every list of the input is kept as it is (padding,
    /// type ids, overflowing parts), and then truncated, processed and padded as configured.
    ///
    /// Errors only as [`Self::encode`] does when truncation cannot be satisfied.
    pub fn post_process_encodings(
        &self,
        first: HfEncoding,
        second: Option<HfEncoding>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (first, second) = self.truncate_pair(first, second, add_special_tokens)?;
        Ok(self.process_merging(first, second, add_special_tokens))
    }

    /// The two sequences cut to the configured length, leaving room for the special tokens
    /// the post-processor will add. When max_length is below their number, HF's subtraction
    /// wraps around and nothing is truncated; so it is here.
    fn truncate_pair(
        &self,
        mut first: HfEncoding,
        mut second: Option<HfEncoding>,
        add_special_tokens: bool,
    ) -> Result<(HfEncoding, Option<HfEncoding>)> {
        let Some(t) = &self.truncation else {
            return Ok((first, second));
        };
        let added = match (self.template(), add_special_tokens) {
            (Some(template), true) => template.n_special_tokens(second.is_some()),
            _ => 0,
        };
        let Some(max_length) = t.max_length.checked_sub(added) else {
            return Ok((first, second));
        };
        let n2 = second.as_ref().map(|s| s.ids.len());
        let (keep1, keep2) = t.lengths(first.ids.len(), n2, max_length)?;
        t.split(&mut first, keep1)?;
        if let (Some(second), Some(keep2)) = (&mut second, keep2) {
            t.split(second, keep2)?;
        }
        Ok((first, second))
    }

    /// The post-processor's template, if it has one.
    fn template(&self) -> Option<&Template> {
        self.post_processor
            .as_ref()
            .and_then(|p| p.template.as_ref())
    }

    /// Adds the post-processor's special tokens (and type ids and sequence ranges) to the two
    /// sequences, trims offsets, pads, and keeps the sequences' buffers for the next call.
    fn post_process(
        &self,
        mut first: HfEncoding,
        mut second: Option<HfEncoding>,
        add_special_tokens: bool,
    ) -> HfEncoding {
        // Room for every token, the special and padding ones included, so that nothing grows.
        let template = self.template();
        let mut capacity = first.ids.len() + second.as_ref().map_or(0, |s| s.ids.len());
        if let (Some(template), true) = (template, add_special_tokens) {
            capacity += template.n_special_tokens(second.is_some());
        }
        if let Some(p) = &self.padding {
            capacity = capacity.max(p.fixed.unwrap_or(0));
            capacity += p.pad_to_multiple_of.unwrap_or(0);
        }
        let mut out = HfEncoding::with_capacity(self.id_to_token.clone(), capacity);
        if let Some(PostProcessor {
            trim_offsets: Some(add_prefix_space),
            ..
        }) = &self.post_processor
        {
            for part in std::iter::once(&mut first).chain(second.as_mut()) {
                let tokens = resolve(&part.ids, &part.own_tokens, part.table.as_deref());
                trim_offsets(tokens, &mut part.offsets, *add_prefix_space);
            }
        }
        match template {
            Some(template) => {
                let pieces = template.pieces(second.is_some());
                for (i, piece) in pieces.iter().enumerate() {
                    match piece {
                        Piece::Sequence { second: b, type_id } => {
                            let part = if *b {
                                second.as_mut()
                            } else {
                                Some(&mut first)
                            };
                            if let Some(part) = part {
                                // The tokens are moved on the part's last use, not cloned.
                                let used_again = pieces[i + 1..].iter().any(
                                    |p| matches!(p, Piece::Sequence { second, .. } if second == b),
                                );
                                let start = out.ids.len();
                                append(&mut out, part, *type_id, !used_again);
                                out.set_sequence_range(usize::from(*b), start..out.ids.len());
                            }
                        }
                        Piece::Special { name, type_id } if add_special_tokens => {
                            self.push_special(&mut out, template, name, *type_id);
                        }
                        Piece::Special { .. } => {}
                    }
                }
            }
            None => {
                append(&mut out, &mut first, 0, true);
                // HF records the sequences of a pair always, and of one sequence when a
                // post-processor ran.
                let n1 = out.ids.len();
                if second.is_some() || self.post_processor.is_some() {
                    out.set_sequence_range(0, 0..n1);
                }
                if let Some(second) = &mut second {
                    append(&mut out, second, 1, true);
                    out.set_sequence_range(1, n1..out.ids.len());
                }
            }
        }
        out.attention_mask.resize(out.ids.len(), 1);
        if let Some(p) = &self.padding {
            p.pad(&mut out);
        }
        keep_for_reuse(&FIRST, first);
        if let Some(second) = second {
            keep_for_reuse(&SECOND, second);
        }
        out
    }

    /// Appends the tokens special-token `name` of `template` stands for to `out`.
    fn push_special(&self, out: &mut HfEncoding, template: &Template, name: &str, type_id: u32) {
        // The loader checked that every name used has an entry.
        if let Some(sp) = template.special_tokens.get(name) {
            for (id, token) in sp.ids.iter().zip(&sp.tokens) {
                let own = self.id_to_token.own_text(*id, token);
                out.push(*id, own, (0, 0), None);
                out.type_ids.push(type_id);
                out.special_tokens_mask.push(1);
                out.attention_mask.push(1);
            }
        }
    }

    /// Post-processing and padding of complete encodings as HF runs them: the post-processor
    /// marks each sequence (and its overflowing parts) with its sequence id and type id and
    /// trims offsets; the template's pieces are then merged one by one with
    /// [`HfEncoding::merge_with`]. A sequence takes the template's type id, but its
    /// overflowing parts keep theirs, as in HF, unless the template says otherwise
    /// ([`Template::overflowing_takes_type_ids`]). Without a post-processor, one sequence is
    /// left as it is, and a pair is joined with its sequences marked.
    fn process_merging(
        &self,
        mut first: HfEncoding,
        second: Option<HfEncoding>,
        add_special_tokens: bool,
    ) -> HfEncoding {
        let Some(processor) = &self.post_processor else {
            let mut out = match second {
                None => first,
                Some(mut second) => {
                    first.set_sequence_id(0);
                    second.set_sequence_id(1);
                    HfEncoding::merge([first, second], false)
                }
            };
            if let Some(p) = &self.padding {
                p.pad(&mut out);
            }
            return out;
        };
        let is_pair = second.is_some();
        let mut sequences: Vec<HfEncoding> = std::iter::once(first).chain(second).collect();
        for (i, sequence) in sequences.iter_mut().enumerate() {
            sequence.set_sequence_id(i);
            sequence.type_ids = vec![i as u32; sequence.ids.len()];
            for part in &mut sequence.overflowing {
                part.set_sequence_id(i);
            }
            if let Some(add_prefix_space) = processor.trim_offsets {
                let trim = |e: &mut HfEncoding| {
                    let tokens = resolve(&e.ids, &e.own_tokens, e.table.as_deref());
                    trim_offsets(tokens, &mut e.offsets, add_prefix_space);
                };
                trim(sequence);
                sequence.overflowing.iter_mut().for_each(trim);
            }
        }
        let pieces = match &processor.template {
            None => sequences,
            Some(template) => {
                let parts_take_type = add_special_tokens && template.overflowing_takes_type_ids;
                let rebuild = add_special_tokens && template.rebuilds_sequences;
                let mut pieces = Vec::new();
                for piece in template.pieces(is_pair) {
                    match piece {
                        Piece::Sequence { second: b, type_id } => {
                            let i = usize::from(*b);
                            let Some(sequence) = sequences.get_mut(i) else {
                                continue;
                            };
                            sequence.type_ids = vec![*type_id; sequence.ids.len()];
                            sequence.set_sequence_id(i);
                            let mut piece = sequence.clone();
                            for part in &mut piece.overflowing {
                                if parts_take_type {
                                    part.type_ids = vec![*type_id; part.ids.len()];
                                }
                                if rebuild {
                                    rebuilt(part, i);
                                }
                            }
                            if rebuild {
                                rebuilt(&mut piece, i);
                            }
                            pieces.push(piece);
                        }
                        Piece::Special { name, type_id } if add_special_tokens => {
                            let mut special = HfEncoding::with_table(self.id_to_token.clone());
                            self.push_special(&mut special, template, name, *type_id);
                            pieces.push(special);
                        }
                        Piece::Special { .. } => {}
                    }
                }
                pieces
            }
        };
        let mut pieces = pieces;
        if processor.marks_pieces {
            for (i, piece) in pieces.iter_mut().enumerate() {
                piece.set_sequence_id(i);
            }
        }
        let mut out = HfEncoding::merge(pieces, false);
        if let Some(p) = &self.padding {
            p.pad(&mut out);
        }
        out
    }
}

/// `sequence` as BertProcessing rebuilds it: of sequence `id` alone, with no special token
/// and every token attended ([`Template::rebuilds_sequences`]).
fn rebuilt(sequence: &mut HfEncoding, id: usize) {
    let n = sequence.ids.len();
    sequence.sequence_ranges = vec![(id, 0..n)];
    sequence.special_tokens_mask = vec![0; n];
    sequence.attention_mask = vec![1; n];
}

/// Appends `part` to `out`; its tokens are moved out of it when `last_use` is true.
pub(super) fn append(out: &mut HfEncoding, part: &mut HfEncoding, type_id: u32, last_use: bool) {
    out.ids.extend(&part.ids);
    if last_use {
        out.own_tokens.append(&mut part.own_tokens);
    } else {
        out.own_tokens.extend(part.own_tokens.iter().cloned());
    }
    out.offsets.extend(&part.offsets);
    out.word_ids.extend(&part.word_ids);
    out.type_ids
        .extend(std::iter::repeat_n(type_id, part.ids.len()));
    out.special_tokens_mask
        .extend(std::iter::repeat_n(0, part.ids.len()));
}
