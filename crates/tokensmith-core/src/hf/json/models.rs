//! Parsers for the Unigram and WordLevel models and the Precompiled normalizer.

use super::{as_id, err, join, Node};
use crate::hf::model::Model;
use crate::hf::precompiled::Precompiled;
use crate::hf::unigram::HfUnigram;
use crate::hf::wordlevel::WordLevel;
use crate::Result;
use base64::Engine;
use serde_json::Value;

/// `{"type": "Unigram", "unk_id", "vocab": [[piece, score], ...], "byte_fallback"}`.
pub(super) fn unigram(node: Node<'_>) -> Result<Model> {
    node.only_keys(&["type", "unk_id", "vocab", "byte_fallback"])?;
    let (v, vocab_path) = node.required("vocab")?;
    let items = v
        .as_array()
        .ok_or_else(|| err(&vocab_path, "expected a list of [piece, score]"))?;
    let mut pieces = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_array().map(Vec::as_slice) {
            Some([Value::String(piece), score]) if score.is_number() => {
                pieces.push((piece.clone(), score.as_f64().unwrap_or(0.0)));
            }
            _ => {
                return Err(err(
                    &format!("{vocab_path}[{i}]"),
                    "expected [piece, score]",
                ))
            }
        }
    }
    let unk_id = match node.get("unk_id")? {
        None => None,
        Some((Value::Null, _)) => None,
        Some((id, id_path)) => {
            let unk_id = as_id(id, &id_path)?;
            if unk_id as usize >= pieces.len() {
                return Err(err(
                    &id_path,
                    format!("{unk_id} is not an index of {vocab_path}"),
                ));
            }
            Some(unk_id)
        }
    };
    let model = HfUnigram::new(pieces, unk_id, node.opt_bool("byte_fallback", false)?)?;
    Ok(Model::Unigram(Box::new(model)))
}

/// `{"type": "WordLevel", "vocab": {token: id}, "unk_token"}`.
pub(super) fn wordlevel(node: Node<'_>) -> Result<Model> {
    node.only_keys(&["type", "vocab", "unk_token"])?;
    let (vocab, _) = super::components::vocab(&node)?;
    let unk = match node.get("unk_token")? {
        None => "<unk>",
        Some((v, path)) => v.as_str().ok_or_else(|| err(&path, "expected a string"))?,
    };
    // Missing from the vocabulary, it fails only the words that need it, as in HF.
    Ok(Model::WordLevel(WordLevel::new(vocab, unk)?))
}

/// `{"type": "Precompiled", "precompiled_charsmap": base64}`.
pub(super) fn precompiled(node: &Node<'_>) -> Result<Precompiled> {
    node.only_keys(&["type", "precompiled_charsmap"])?;
    let path = join(node.path, "precompiled_charsmap");
    let text = node.str("precompiled_charsmap")?;
    let raw = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| err(&path, format!("not valid base64: {e}")))?;
    Precompiled::new(raw).map_err(|e| err(&path, e.to_string()))
}
