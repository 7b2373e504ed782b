//! Post-processors: TemplateProcessing; BertProcessing and RobertaProcessing as the templates
//! they are equivalent to (RoBERTa's with offset trimming); ByteLevel (offset trimming only).
//!
//! A template lists, for a single sequence and for a pair, where the sequences go and which
//! special tokens surround them, each with its type id.
//!
//! ```
//! use tokensmith_core::hf::processors::Template;
//! let t = Template::bert(("[CLS]".into(), 101), ("[SEP]".into(), 102));
//! assert_eq!(t.pair.len(), 5); // [CLS] A [SEP] B [SEP]
//! ```
//!
//! A Sequence post-processor is folded into one [`PostProcessor`] by `json/post_sequence.rs`.

use rustc_hash::FxHashMap;

/// One post-processor of a `tokenizer.json`: offsets trimmed first, then a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostProcessor {
    /// The special tokens around the sequences; none when `None` (ByteLevel).
    pub template: Option<Template>,
    /// `Some(add_prefix_space)` when token offsets skip their spaces
    /// ([`super::byte_level::trim_offsets`]).
    pub trim_offsets: Option<bool>,
    /// A ByteLevel step runs after the template (a Sequence post-processor): HF's ByteLevel
    /// then marks each piece the template made (special tokens included) as a sequence of
    /// its own, by its place in the template, so the sequence ids are those places.
    pub marks_pieces: bool,
}

/// One element of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Sequence A (`second == false`) or B.
    Sequence { second: bool, type_id: u32 },
    /// A special token, by its name in [`Template::special_tokens`].
    Special { name: String, type_id: u32 },
}

/// The ids and tokens one special-token name stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialToken {
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
}

/// A TemplateProcessing post-processor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub single: Vec<Piece>,
    pub pair: Vec<Piece>,
    pub special_tokens: FxHashMap<String, SpecialToken>,
    /// When special tokens are added, the overflowing parts of a sequence take its type id
    /// too (RobertaProcessing); otherwise (TemplateProcessing, BertProcessing) each part keeps
    /// the type id of its sequence, 0 for the first and 1 for the pair, as in HF.
    pub overflowing_takes_type_ids: bool,
    /// When special tokens are added, each sequence (and each overflowing part) is rebuilt as
    /// a new encoding (BertProcessing, RobertaProcessing): its tokens are of its own sequence
    /// alone, none is special and all are attended, whatever the input said (it may have been
    /// post-processed or padded before). TemplateProcessing keeps those lists of the input.
    pub rebuilds_sequences: bool,
}

impl Template {
    /// BertProcessing: `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` with B's part of type 1.
    pub fn bert(cls: (String, u32), sep: (String, u32)) -> Self {
        let special = |name: &str, type_id| Piece::Special {
            name: name.to_string(),
            type_id,
        };
        let seq = |second, type_id| Piece::Sequence { second, type_id };
        let single = vec![special(&cls.0, 0), seq(false, 0), special(&sep.0, 0)];
        let mut pair = single.clone();
        pair.extend([seq(true, 1), special(&sep.0, 1)]);
        let mut special_tokens = FxHashMap::default();
        for (name, id) in [cls, sep] {
            special_tokens.insert(
                name.clone(),
                SpecialToken {
                    ids: vec![id],
                    tokens: vec![name],
                },
            );
        }
        Self {
            single,
            pair,
            special_tokens,
            overflowing_takes_type_ids: false,
            rebuilds_sequences: true,
        }
    }

    /// RobertaProcessing's template: `<s> A </s>` and `<s> A </s> </s> B </s>`, all of
    /// type 0.
    pub fn roberta(cls: (String, u32), sep: (String, u32)) -> Self {
        let mut t = Self::bert(cls, sep.clone());
        t.overflowing_takes_type_ids = true;
        let special = Piece::Special {
            name: sep.0,
            type_id: 0,
        };
        t.pair = t.single.clone();
        t.pair.extend([
            special.clone(),
            Piece::Sequence {
                second: true,
                type_id: 0,
            },
            special,
        ]);
        t
    }

    /// How many special tokens the template adds to one sequence or to a pair.
    pub fn n_special_tokens(&self, is_pair: bool) -> usize {
        self.pieces(is_pair)
            .iter()
            .map(|p| match p {
                Piece::Special { name, .. } => {
                    self.special_tokens.get(name).map_or(0, |s| s.ids.len())
                }
                Piece::Sequence { .. } => 0,
            })
            .sum()
    }

    /// The template for one sequence or for a pair.
    pub fn pieces(&self, is_pair: bool) -> &[Piece] {
        if is_pair {
            &self.pair
        } else {
            &self.single
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bert_template_type_ids() {
        let t = Template::bert(("[CLS]".into(), 1), ("[SEP]".into(), 2));
        let types: Vec<u32> = t
            .pieces(true)
            .iter()
            .map(|p| match p {
                Piece::Sequence { type_id, .. } | Piece::Special { type_id, .. } => *type_id,
            })
            .collect();
        assert_eq!(types, [0, 0, 0, 1, 1]);
        assert_eq!(t.special_tokens["[SEP]"].ids, [2]);
    }
}
