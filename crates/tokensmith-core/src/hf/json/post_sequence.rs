//! The Sequence post-processor, folded into one [`PostProcessor`].
//!
//! HF runs the processors in order: ByteLevel trims each sequence's offsets, and a template
//! (TemplateProcessing, BertProcessing, RobertaProcessing, which trims first) joins the
//! sequences with its special tokens. Real files (Llama 3's `[ByteLevel, TemplateProcessing]`)
//! trim at most once and before the template, which is the one shape a [`PostProcessor`]
//! holds.
//!
//! Trimming after a TemplateProcessing folds into that shape too: HF's TemplateProcessing
//! hands the next processor its pieces unjoined (each sequence, with its overflowing parts,
//! and each special token on its own), so ByteLevel trims every sequence exactly as it would
//! have before the template, and leaves the special tokens' `(0, 0)` offsets as they are. It
//! also marks each piece as the sequence of its place in the template
//! ([`PostProcessor::marks_pieces`]).
//! BertProcessing and RobertaProcessing instead hand on each sequence already wrapped in its
//! special tokens, so trimming after them sees a different first token; that order, offsets
//! trimmed twice, and a second template are refused with the path of the step at fault.

use super::components::post_processor;
use super::{err, Node};
use crate::hf::processors::PostProcessor;
use crate::Result;

/// Parses `{"type": "Sequence", "processors": [...]}`.
pub(super) fn sequence(node: &Node<'_>) -> Result<PostProcessor> {
    node.only_keys(&["type", "processors"])?;
    let (v, path) = node.required("processors")?;
    let items = v.as_array().ok_or_else(|| err(&path, "expected a list"))?;
    let mut folded = PostProcessor {
        template: None,
        trim_offsets: None,
        marks_pieces: false,
    };
    // The type of the template folded so far, if any.
    let mut template_kind = None;
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let step = post_processor(Node {
            value: item,
            path: &p,
        })?;
        if template_kind.is_some() && item.get("type").and_then(|t| t.as_str()) == Some("ByteLevel")
        {
            folded.marks_pieces = true;
        }
        if step.trim_offsets.is_some() {
            if let Some(kind) = template_kind.filter(|&k| k != "TemplateProcessing") {
                return Err(err(
                    &p,
                    format!(
                        "trimming offsets after {kind} (which joins each sequence with its \
                         special tokens first) is not supported; put it first"
                    ),
                ));
            }
            if folded.trim_offsets.is_some() {
                return Err(err(&p, "offsets are trimmed twice; this is not supported"));
            }
            folded.trim_offsets = step.trim_offsets;
        }
        if step.template.is_some() {
            if folded.template.is_some() {
                return Err(err(&p, "a second template is not supported"));
            }
            folded.template = step.template;
            template_kind = item.get("type").and_then(|t| t.as_str());
        }
    }
    Ok(folded)
}

#[cfg(test)]
mod tests {
    use crate::hf::HfTokenizer;

    /// A WordLevel tokenizer.json whose post-processor is a Sequence of `steps`.
    fn with_steps(steps: &str) -> crate::Result<HfTokenizer> {
        HfTokenizer::from_json_str(&format!(
            r#"{{"model": {{"type": "WordLevel", "unk_token": "?", "vocab": {{"?": 0, "<s>": 1}}}},
                "post_processor": {{"type": "Sequence", "processors": [{steps}]}}}}"#
        ))
    }

    const TRIM: &str = r#"{"type": "ByteLevel", "trim_offsets": true, "add_prefix_space": false}"#;
    const TEMPLATE: &str = r#"{"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}"#;
    const ROBERTA: &str = r#"{"type": "RobertaProcessing", "sep": ["<s>", 1], "cls": ["<s>", 1]}"#;

    #[test]
    fn trimming_after_a_template_is_trimming_before_it() {
        let after = with_steps(&format!("{TEMPLATE}, {TRIM}")).unwrap();
        let before = with_steps(&format!("{TRIM}, {TEMPLATE}")).unwrap();
        let (after, before) = (
            after.post_processor.unwrap(),
            before.post_processor.unwrap(),
        );
        // Only the sequence ids differ: ByteLevel after the template marks its pieces.
        assert!(after.marks_pieces && !before.marks_pieces);
        assert_eq!(after.template, before.template);
        assert_eq!(after.trim_offsets, before.trim_offsets);
        assert_eq!(after.trim_offsets, Some(false));
    }

    #[test]
    fn other_orders_are_refused_with_the_step() {
        for (steps, at) in [
            (format!("{ROBERTA}, {TRIM}"), "post_processor.processors[1]"),
            (
                format!("{TRIM}, {TEMPLATE}, {TRIM}"),
                "post_processor.processors[2]",
            ),
            (
                format!("{TEMPLATE}, {TEMPLATE}"),
                "post_processor.processors[1]",
            ),
        ] {
            let message = with_steps(&steps).unwrap_err().to_string();
            assert!(message.contains(at), "{message}");
        }
    }
}
