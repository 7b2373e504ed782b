//! The Sequence post-processor, folded into one [`PostProcessor`].
//!
//! HF runs the processors in order: ByteLevel trims each sequence's offsets, and a template
//! (TemplateProcessing, BertProcessing, RobertaProcessing, which trims first) joins the
//! sequences with its special tokens. Real files (Llama 3's `[ByteLevel, TemplateProcessing]`)
//! trim at most once and before the template, which is the one shape a [`PostProcessor`]
//! holds; any other order is refused with the path of the step at fault.

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
    };
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let step = post_processor(Node {
            value: item,
            path: &p,
        })?;
        if step.trim_offsets.is_some() {
            if folded.template.is_some() {
                return Err(err(
                    &p,
                    "trimming offsets after a template is not supported (put it first)",
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
        }
    }
    Ok(folded)
}
