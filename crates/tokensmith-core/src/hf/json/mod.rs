//! Reads a `tokenizer.json` into an [`HfTokenizer`], validating as it goes.
//!
//! Every error names the JSON path at fault (`normalizer.type`, `model.vocab`, ...). A
//! component type this slice does not run is refused by name, with the supported list, and an
//! unknown key inside a known component is refused too, so nothing is silently ignored.
//!
//! ```
//! use tokensmith_core::hf::HfTokenizer;
//! let json = r#"{"normalizer": {"type": "Teleport"},
//!   "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}"#;
//! let err = HfTokenizer::from_json_str(json).unwrap_err();
//! assert!(err.to_string().contains("normalizer.type"));
//! ```

mod components;
mod models;
mod post_sequence;

use super::added_tokens::{AddedMatcher, AddedVocabulary};
use super::tokenizer::{AddedToken, HfTokenizer};
use crate::limits::{self, Limit};
use crate::{Error, Result};
use components::{decoder, model, normalizer, padding, post_processor, pre_tokenizer, truncation};
use rustc_hash::FxHashSet;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A JSON value and the path that reached it.
#[derive(Clone, Copy)]
struct Node<'a> {
    value: &'a Value,
    path: &'a str,
}

fn err(path: &str, message: impl Into<String>) -> Error {
    Error::TokenizerJson {
        path: path.to_string(),
        message: message.into(),
    }
}

fn join(path: &str, key: &str) -> String {
    let simple = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match (path.is_empty(), simple) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key:?}]"),
    }
}

impl<'a> Node<'a> {
    fn object(&self) -> Result<&'a Map<String, Value>> {
        self.value
            .as_object()
            .ok_or_else(|| err(self.path, "expected an object"))
    }

    /// Refuses keys other than `allowed`.
    fn only_keys(&self, allowed: &[&str]) -> Result<()> {
        for key in self.object()?.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(err(
                    &join(self.path, key),
                    format!("unknown key (expected one of: {})", allowed.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// The value at `key` and its path; `None` when absent or null.
    fn get(&self, key: &str) -> Result<Option<(&'a Value, String)>> {
        Ok(self
            .object()?
            .get(key)
            .filter(|v| !v.is_null())
            .map(|v| (v, join(self.path, key))))
    }

    fn required(&self, key: &str) -> Result<(&'a Value, String)> {
        self.get(key)?
            .ok_or_else(|| err(&join(self.path, key), "missing"))
    }

    fn str(&self, key: &str) -> Result<&'a str> {
        let (v, path) = self.required(key)?;
        v.as_str().ok_or_else(|| err(&path, "expected a string"))
    }

    fn opt_bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key)? {
            None => Ok(default),
            Some((v, path)) => v
                .as_bool()
                .ok_or_else(|| err(&path, "expected true or false")),
        }
    }

    fn opt_uint(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key)? {
            None => Ok(None),
            Some((v, path)) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| err(&path, "expected a non-negative integer")),
        }
    }

    fn kind(&self) -> Result<&'a str> {
        self.str("type")
    }
}

/// A token id; ids above [`Limit::MaxTokenId`] are refused before any table is sized by them.
fn as_id(v: &Value, path: &str) -> Result<u32> {
    let id = v
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            err(
                path,
                "expected a token id (an integer from 0 to 4294967295)",
            )
        })?;
    limits::check(Limit::MaxTokenId, id.into(), &format!("the id at {path}"))?;
    Ok(id)
}

fn unsupported(path: &str, kind: &str, supported: &[&str]) -> Error {
    Error::UnsupportedComponent {
        path: join(path, "type"),
        kind: kind.to_string(),
        supported: supported.join(", "),
    }
}

fn added_tokens(v: &Value, path: &str) -> Result<Vec<AddedToken>> {
    let items = v.as_array().ok_or_else(|| err(path, "expected a list"))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let node = Node {
            value: item,
            path: &p,
        };
        node.only_keys(&[
            "id",
            "content",
            "single_word",
            "lstrip",
            "rstrip",
            "normalized",
            "special",
        ])?;
        let (id, ip) = node.required("id")?;
        let special = node.opt_bool("special", false)?;
        let content = node.str("content")?;
        let what = format!("the length in bytes of {p}.content");
        limits::check(Limit::MaxTokenBytes, content.len() as u64, &what)?;
        out.push(AddedToken {
            id: as_id(id, &ip)?,
            content: content.to_string(),
            special,
            normalized: node.opt_bool("normalized", !special)?,
            lstrip: node.opt_bool("lstrip", false)?,
            rstrip: node.opt_bool("rstrip", false)?,
            single_word: node.opt_bool("single_word", false)?,
        });
    }
    Ok(out)
}

fn section<'a, T>(
    root: Node<'a>,
    key: &str,
    parse: impl Fn(Node<'_>) -> Result<T>,
) -> Result<Option<T>> {
    match root.get(key)? {
        None => Ok(None),
        Some((v, path)) => parse(Node {
            value: v,
            path: &path,
        })
        .map(Some),
    }
}

/// Parses one pre-tokenizer given as JSON (the value of a file's `pre_tokenizer`), as the
/// trainers use it to cut their corpus exactly as the trained file will.
pub fn pre_tokenizer_from_json(json: &str) -> Result<crate::hf::pre_tokenizers::PreTokenizer> {
    component_from_json(json, "pre_tokenizer", pre_tokenizer)
}

/// Parses one normalizer given as JSON (the value of a file's `normalizer`), as the trainers
/// use it to normalize their corpus exactly as the trained file will.
pub fn normalizer_from_json(json: &str) -> Result<crate::hf::normalizers::Normalizer> {
    component_from_json(json, "normalizer", normalizer)
}

/// Parses one component given as JSON, errors naming it by `path`.
fn component_from_json<T>(
    json: &str,
    path: &str,
    parse: impl Fn(Node<'_>) -> Result<T>,
) -> Result<T> {
    let value: Value =
        serde_json::from_str(json).map_err(|e| err(path, format!("not valid JSON: {e}")))?;
    parse(Node {
        value: &value,
        path,
    })
}

fn parse_json(json: &str) -> Result<Value> {
    serde_json::from_str(json).map_err(|e| err("$", format!("the file is not valid JSON: {e}")))
}

/// The file without `model.vocab` and `model.merges`, as JSON text.
fn outline(value: &Value) -> String {
    let mut out = Map::new();
    if let Some(root) = value.as_object() {
        for (key, v) in root {
            let kept = match (key.as_str(), v.as_object()) {
                ("model", Some(model)) => Value::Object(
                    model
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "vocab" | "merges"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                ),
                _ => v.clone(),
            };
            out.insert(key.clone(), kept);
        }
    }
    Value::Object(out).to_string()
}

impl HfTokenizer {
    /// Parses and validates the text of a `tokenizer.json`.
    pub fn from_json_str(json: &str) -> Result<Self> {
        Self::from_json_value(&parse_json(json)?)
    }

    /// Parses and validates the text of a `tokenizer.json` once, and gives its outline
    /// too: the same JSON without `model.vocab` and `model.merges` (the small part a caller
    /// may read without parsing the whole file again).
    pub fn from_json_str_outlined(json: &str) -> Result<(Self, String)> {
        let value = parse_json(json)?;
        let tok = Self::from_json_value(&value)?;
        Ok((tok, outline(&value)))
    }

    /// Builds and validates a tokenizer from a parsed `tokenizer.json`.
    fn from_json_value(value: &Value) -> Result<Self> {
        let root = Node { value, path: "" };
        root.only_keys(&[
            "version",
            "truncation",
            "padding",
            "added_tokens",
            "normalizer",
            "pre_tokenizer",
            "model",
            "post_processor",
            "decoder",
        ])?;
        let model = section(root, "model", model)?.ok_or_else(|| err("model", "missing"))?;
        let added = match root.get("added_tokens")? {
            Some((v, path)) => added_tokens(v, &path)?,
            None => Vec::new(),
        };
        let mut tok = HfTokenizer {
            normalizer: section(root, "normalizer", normalizer)?,
            raw_matcher: AddedMatcher::new([], |s| s.to_string(), false),
            normalized_matcher: AddedMatcher::new([], |s| s.to_string(), true),
            pre_tokenizer: section(root, "pre_tokenizer", pre_tokenizer)?,
            model,
            post_processor: section(root, "post_processor", post_processor)?,
            decoder: section(root, "decoder", decoder)?,
            truncation: section(root, "truncation", truncation)?,
            padding: section(root, "padding", padding)?,
            added: AddedVocabulary::default(),
            id_to_token: Default::default(),
            special_ids: FxHashSet::default(),
            fast: Arc::default(),
        };
        // As HF loads a file: its added tokens are added in order, their ids recomputed (an
        // added token the model's vocabulary holds takes the model's id).
        tok.add_tokens(added);
        let template = tok
            .post_processor
            .as_ref()
            .and_then(|p| p.template.as_ref());
        if let Some(template) = template {
            for (name, sp) in &template.special_tokens {
                for (i, (id, token)) in sp.ids.iter().zip(&sp.tokens).enumerate() {
                    let known = tok.id_to_token.get(*id) == Some(token.as_str())
                        || tok.token_to_id(token) == Some(*id);
                    if !known {
                        return Err(err(
                            &format!("{}.ids[{i}]", join("post_processor.special_tokens", name)),
                            format!("id {id} is not the token {token:?} in the vocabulary"),
                        ));
                    }
                }
            }
        }
        Ok(tok)
    }

    /// Reads and parses a `tokenizer.json` file.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(json: &str) -> String {
        HfTokenizer::from_json_str(json).unwrap_err().to_string()
    }

    const MODEL: &str = r#""model": {"type": "WordPiece", "unk_token": "[UNK]",
        "vocab": {"[UNK]": 0, "[CLS]": 1}}"#;

    #[test]
    fn errors_name_the_path() {
        assert!(error_of("{").contains("not valid JSON"));
        let e = error_of(&format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Teleport"}}}}"#
        ));
        assert!(
            e.contains("normalizer.type") && e.contains("Teleport"),
            "{e}"
        );
        let e = error_of(&format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Sequence", "normalizers": [{{"type": "NFC"}},
                {{"type": "Teleport"}}]}}}}"#
        ));
        assert!(e.contains("normalizer.normalizers[1].type"), "{e}");
        let e = error_of(&format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Precompiled"}}}}"#
        ));
        assert!(
            e.contains("normalizer.precompiled_charsmap: missing"),
            "{e}"
        );
        let e = error_of(&format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Precompiled", "precompiled_charsmap": "!!"}}}}"#
        ));
        assert!(
            e.contains("normalizer.precompiled_charsmap") && e.contains("base64"),
            "{e}"
        );
        let e = error_of(&format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Precompiled", "precompiled_charsmap": "AAAA"}}}}"#
        ));
        assert!(e.contains("normalizer.precompiled_charsmap"), "{e}");
        // A missing unk_token loads, as in HF; the first word that needs it fails.
        for model in [
            r#"{"model": {"type": "WordPiece", "unk_token": "[U]", "vocab": {"a": 0}}}"#,
            r#"{"model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {"a": 0}}}"#,
        ] {
            let tok = HfTokenizer::from_json_str(model).unwrap();
            assert_eq!(tok.encode("a", None, true).unwrap().ids, [0]);
            let e = tok.encode("b", None, true).unwrap_err().to_string();
            assert!(e.contains("model.unk_token"), "{e}");
        }
        let e =
            error_of(r#"{"model": {"type": "WordPiece", "unk_token": "a", "vocab": {"a": -1}}}"#);
        assert!(e.contains("model.vocab.a"), "{e}");
        let e = error_of(&format!(
            r#"{{{MODEL}, "decoder": {{"type": "WordPiece", "x": 1}}}}"#
        ));
        assert!(e.contains("decoder.x"), "{e}");
        assert!(error_of("{}").contains("model"));
    }

    #[test]
    fn bpe_family_errors_name_the_path() {
        const BPE: &str = r#""model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
            "merges": [["a", "b"]]}"#;
        let cases = [
            (
                r#""pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a"},
                    "behavior": "Sideways"}"#,
                "pre_tokenizer.behavior",
            ),
            (
                r#""pre_tokenizer": {"type": "Metaspace", "replacement": "_",
                    "prepend_scheme": "sometimes"}"#,
                "pre_tokenizer.prepend_scheme",
            ),
            (
                r#""pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                    {"type": "Digits"}, {"type": "Split", "pattern": {"Glob": "*"}}]}"#,
                "pre_tokenizer.pretokenizers[1].pattern",
            ),
            (
                r#""decoder": {"type": "Strip", "content": "ab", "start": 1}"#,
                "decoder.content",
            ),
            (
                r#""decoder": {"type": "Sequence", "decoders": [{"type": "CTC"},
                    {"type": "Teleport"}]}"#,
                "decoder.decoders[1].type",
            ),
            (
                r#""decoder": {"type": "CTC", "pad_token": 3}"#,
                "decoder.pad_token",
            ),
            (
                r#""pre_tokenizer": {"type": "FixedLength", "length": 0}"#,
                "pre_tokenizer.length",
            ),
            (
                r#""pre_tokenizer": {"type": "UnicodeScripts", "x": 1}"#,
                "pre_tokenizer.x",
            ),
            (
                r#""post_processor": {"type": "Sequence", "processors": [
                    {"type": "ByteLevel", "trim_offsets": true},
                    {"type": "ByteLevel", "trim_offsets": true}]}"#,
                "post_processor.processors[1]",
            ),
            (
                r#""post_processor": {"type": "Sequence", "processors": [
                    {"type": "Teleport"}]}"#,
                "post_processor.processors[0].type",
            ),
            (
                r#""post_processor": {"type": "RobertaProcessing", "sep": ["</s>"],
                    "cls": ["<s>", 0]}"#,
                "post_processor.sep",
            ),
        ];
        for (part, path) in cases {
            let e = error_of(&format!("{{{BPE}, {part}}}"));
            assert!(e.contains(path), "{path}: {e}");
        }
        let e = error_of(r#"{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}}"#);
        assert!(e.contains("model.merges[0]"), "{e}");
        let e = error_of(
            r#"{"model": {"type": "BPE", "dropout": 1.5, "vocab": {"a": 0}, "merges": []}}"#,
        );
        assert!(e.contains("model.dropout"), "{e}");
        // A missing unk_token loads, as in HF; a word that needs it fails.
        let tok = HfTokenizer::from_json_str(
            r#"{"model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"a": 0}, "merges": []}}"#,
        )
        .unwrap();
        assert_eq!(tok.encode("aa", None, false).unwrap().ids, [0, 0]);
        let e = tok.encode("ab", None, false).unwrap_err().to_string();
        assert!(e.contains("model.unk_token"), "{e}");
    }

    #[test]
    fn unigram_and_wordlevel_errors_name_the_path() {
        let cases = [
            (
                r#"{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", "x"]]}}"#,
                "model.vocab[0]",
            ),
            (
                r#"{"model": {"type": "Unigram", "unk_id": 1, "vocab": [["a", -1.0]]}}"#,
                "model.unk_id",
            ),
            (
                r#"{"model": {"type": "Unigram", "unk_id": "0", "vocab": [["a", -1.0]]}}"#,
                "model.unk_id",
            ),
            (
                r#"{"model": {"type": "Unigram", "vocab": {"a": 0}}}"#,
                "model.vocab",
            ),
            (
                r#"{"model": {"type": "WordLevel", "unk_token": "a", "vocab": {"a": "0"}}}"#,
                "model.vocab.a",
            ),
            (r#"{"model": {"type": "Wordlevel"}}"#, "model.type"),
        ];
        for (json, path) in cases {
            let e = error_of(json);
            assert!(e.contains(path), "{path}: {e}");
        }
    }

    #[test]
    fn post_processor_tokens_are_checked() {
        let e = error_of(&format!(
            r#"{{{MODEL}, "post_processor": {{"type": "BertProcessing", "cls": ["[CLS]", 1], "sep": ["[SEP]", 2]}}}}"#
        ));
        assert!(
            e.contains("post_processor.special_tokens[\"[SEP]\"].ids[0]"),
            "{e}"
        );
        let e = error_of(&format!(
            r#"{{{MODEL}, "post_processor": {{"type": "TemplateProcessing",
              "single": [{{"SpecialToken": {{"id": "[X]", "type_id": 0}}}}], "pair": [],
              "special_tokens": {{}}}}}}"#
        ));
        assert!(
            e.contains("post_processor.single[0].SpecialToken.id"),
            "{e}"
        );
    }

    #[test]
    fn unknown_truncation_strategy() {
        let e = error_of(&format!(
            r#"{{{MODEL}, "truncation": {{"max_length": 8, "strategy": "Longest", "stride": 2}}}}"#
        ));
        assert!(e.contains("truncation.strategy"), "{e}");
        assert!(e.contains("OnlySecond"), "{e}");
    }
}
