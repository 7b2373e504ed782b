//! One parser per pipeline component of a `tokenizer.json`, each refusing unknown keys.

use super::{as_id, err, join, unsupported, Node};
use crate::hf::decoders::Decoder;
use crate::hf::normalizers::{BertNormalizer, Normalizer};
use crate::hf::pre_tokenizers::PreTokenizer;
use crate::hf::processors::{Piece, SpecialToken, Template};
use crate::hf::truncation::{Direction, Padding, Truncation};
use crate::hf::wordpiece::WordPiece;
use crate::{Error, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

pub(super) fn normalizer(node: Node<'_>) -> Result<Normalizer> {
    const SUPPORTED: [&str; 7] = [
        "BertNormalizer",
        "NFD",
        "NFKD",
        "Lowercase",
        "StripAccents",
        "Strip",
        "Sequence",
    ];
    let kind = node.kind()?;
    let simple = |n: Normalizer| node.only_keys(&["type"]).map(|_| n);
    match kind {
        "BertNormalizer" => {
            node.only_keys(&[
                "type",
                "clean_text",
                "handle_chinese_chars",
                "strip_accents",
                "lowercase",
            ])?;
            let strip_accents = match node.get("strip_accents")? {
                None => None,
                Some((v, path)) => Some(
                    v.as_bool()
                        .ok_or_else(|| err(&path, "expected true, false or null"))?,
                ),
            };
            Ok(Normalizer::Bert(BertNormalizer {
                clean_text: node.opt_bool("clean_text", true)?,
                handle_chinese_chars: node.opt_bool("handle_chinese_chars", true)?,
                strip_accents,
                lowercase: node.opt_bool("lowercase", true)?,
            }))
        }
        "NFD" => simple(Normalizer::Nfd),
        "NFKD" => simple(Normalizer::Nfkd),
        "Lowercase" => simple(Normalizer::Lowercase),
        "StripAccents" => simple(Normalizer::StripAccents),
        "Strip" => {
            node.only_keys(&["type", "strip_left", "strip_right"])?;
            Ok(Normalizer::Strip {
                left: node.opt_bool("strip_left", true)?,
                right: node.opt_bool("strip_right", true)?,
            })
        }
        "Sequence" => {
            node.only_keys(&["type", "normalizers"])?;
            let (v, path) = node.required("normalizers")?;
            let items = v.as_array().ok_or_else(|| err(&path, "expected a list"))?;
            let mut all = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                all.push(normalizer(Node {
                    value: item,
                    path: &p,
                })?);
            }
            Ok(Normalizer::Sequence(all))
        }
        other => Err(unsupported(node.path, other, &SUPPORTED)),
    }
}

pub(super) fn pre_tokenizer(node: Node<'_>) -> Result<PreTokenizer> {
    const SUPPORTED: [&str; 4] = [
        "BertPreTokenizer",
        "Whitespace",
        "WhitespaceSplit",
        "Sequence",
    ];
    let p = match node.kind()? {
        "BertPreTokenizer" => PreTokenizer::Bert,
        "Whitespace" => PreTokenizer::Whitespace,
        "WhitespaceSplit" => PreTokenizer::WhitespaceSplit,
        "Sequence" => {
            node.only_keys(&["type", "pretokenizers"])?;
            let (v, path) = node.required("pretokenizers")?;
            let items = v.as_array().ok_or_else(|| err(&path, "expected a list"))?;
            let mut all = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                all.push(pre_tokenizer(Node {
                    value: item,
                    path: &p,
                })?);
            }
            return Ok(PreTokenizer::Sequence(all));
        }
        other => return Err(unsupported(node.path, other, &SUPPORTED)),
    };
    node.only_keys(&["type"])?;
    Ok(p)
}

pub(super) fn model(node: Node<'_>) -> Result<WordPiece> {
    match node.kind()? {
        "WordPiece" => {}
        other => return Err(unsupported(node.path, other, &["WordPiece"])),
    }
    node.only_keys(&[
        "type",
        "unk_token",
        "continuing_subword_prefix",
        "max_input_chars_per_word",
        "vocab",
    ])?;
    let (v, vocab_path) = node.required("vocab")?;
    let entries = v
        .as_object()
        .ok_or_else(|| err(&vocab_path, "expected an object of token: id"))?;
    let mut vocab = FxHashMap::default();
    let mut seen = FxHashSet::default();
    for (token, id) in entries {
        let path = join(&vocab_path, token);
        let id = as_id(id, &path)?;
        if !seen.insert(id) {
            return Err(err(&path, format!("id {id} is given to two tokens")));
        }
        vocab.insert(token.clone(), id);
    }
    let unk = node.str("unk_token")?;
    if !vocab.contains_key(unk) {
        return Err(err(
            &join(node.path, "unk_token"),
            format!("{unk:?} is not in {vocab_path}"),
        ));
    }
    let prefix = match node.get("continuing_subword_prefix")? {
        None => "##",
        Some((v, path)) => v.as_str().ok_or_else(|| err(&path, "expected a string"))?,
    };
    let max_chars = node.opt_uint("max_input_chars_per_word")?.unwrap_or(100);
    WordPiece::new(vocab, unk, prefix, max_chars as usize)
}

fn template_pieces(v: &Value, path: &str) -> Result<Vec<Piece>> {
    let items = v.as_array().ok_or_else(|| err(path, "expected a list"))?;
    let mut pieces = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let obj = item.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            err(
                &p,
                "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}",
            )
        })?;
        let (key, inner) = obj.iter().next().expect("one entry");
        let ip = join(&p, key);
        let node = Node {
            value: inner,
            path: &ip,
        };
        node.only_keys(&["id", "type_id"])?;
        let type_id = match node.opt_uint("type_id")? {
            Some(t) => u32::try_from(t).map_err(|_| err(&join(&ip, "type_id"), "too large"))?,
            None => 0,
        };
        let id = node.str("id")?;
        pieces.push(match key.as_str() {
            "Sequence" => match id {
                "A" => Piece::Sequence {
                    second: false,
                    type_id,
                },
                "B" => Piece::Sequence {
                    second: true,
                    type_id,
                },
                _ => return Err(err(&join(&ip, "id"), "expected \"A\" or \"B\"")),
            },
            "SpecialToken" => Piece::Special {
                name: id.to_string(),
                type_id,
            },
            _ => return Err(err(&p, "expected \"Sequence\" or \"SpecialToken\"")),
        });
    }
    Ok(pieces)
}

pub(super) fn post_processor(node: Node<'_>) -> Result<Template> {
    match node.kind()? {
        "TemplateProcessing" => {
            node.only_keys(&["type", "single", "pair", "special_tokens"])?;
            let (single, sp) = node.required("single")?;
            let (pair, pp) = node.required("pair")?;
            let mut special_tokens = FxHashMap::default();
            if let Some((v, path)) = node.get("special_tokens")? {
                let map = v
                    .as_object()
                    .ok_or_else(|| err(&path, "expected an object"))?;
                for (name, def) in map {
                    let dp = join(&path, name);
                    let d = Node {
                        value: def,
                        path: &dp,
                    };
                    d.only_keys(&["id", "ids", "tokens"])?;
                    let (ids, ip) = d.required("ids")?;
                    let ids = ids
                        .as_array()
                        .ok_or_else(|| err(&ip, "expected a list of ids"))?
                        .iter()
                        .enumerate()
                        .map(|(i, v)| as_id(v, &format!("{ip}[{i}]")))
                        .collect::<Result<Vec<_>>>()?;
                    let (tokens, tp) = d.required("tokens")?;
                    let tokens = tokens
                        .as_array()
                        .ok_or_else(|| err(&tp, "expected a list of strings"))?
                        .iter()
                        .map(|v| v.as_str().map(String::from))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| err(&tp, "expected a list of strings"))?;
                    if ids.len() != tokens.len() {
                        return Err(err(&dp, "ids and tokens differ in length"));
                    }
                    special_tokens.insert(name.clone(), SpecialToken { ids, tokens });
                }
            }
            let template = Template {
                single: template_pieces(single, &sp)?,
                pair: template_pieces(pair, &pp)?,
                special_tokens,
            };
            for (pieces, path) in [(&template.single, &sp), (&template.pair, &pp)] {
                for (i, piece) in pieces.iter().enumerate() {
                    if let Piece::Special { name, .. } = piece {
                        if !template.special_tokens.contains_key(name) {
                            return Err(err(
                                &format!("{path}[{i}].SpecialToken.id"),
                                format!("{name:?} is not in {}.special_tokens", node.path),
                            ));
                        }
                    }
                }
            }
            Ok(template)
        }
        "BertProcessing" => {
            node.only_keys(&["type", "sep", "cls"])?;
            let pair = |key: &str| -> Result<(String, u32)> {
                let (v, path) = node.required(key)?;
                match v.as_array().map(Vec::as_slice) {
                    Some([Value::String(t), id]) => Ok((t.clone(), as_id(id, &path)?)),
                    _ => Err(err(&path, "expected [token, id]")),
                }
            };
            Ok(Template::bert(pair("cls")?, pair("sep")?))
        }
        other => Err(unsupported(
            node.path,
            other,
            &["TemplateProcessing", "BertProcessing"],
        )),
    }
}

pub(super) fn decoder(node: Node<'_>) -> Result<Decoder> {
    match node.kind()? {
        "WordPiece" => {
            node.only_keys(&["type", "prefix", "cleanup"])?;
            let prefix = match node.get("prefix")? {
                None => "##".to_string(),
                Some((v, path)) => v
                    .as_str()
                    .ok_or_else(|| err(&path, "expected a string"))?
                    .to_string(),
            };
            Ok(Decoder::WordPiece {
                prefix,
                cleanup: node.opt_bool("cleanup", true)?,
            })
        }
        other => Err(unsupported(node.path, other, &["WordPiece"])),
    }
}

fn direction(node: &Node<'_>) -> Result<Direction> {
    match node.get("direction")? {
        None => Ok(Direction::Right),
        Some((v, path)) => match v.as_str() {
            Some("Right") => Ok(Direction::Right),
            Some("Left") => Ok(Direction::Left),
            _ => Err(err(&path, "expected \"Right\" or \"Left\"")),
        },
    }
}

pub(super) fn truncation(node: Node<'_>) -> Result<Truncation> {
    node.only_keys(&["max_length", "strategy", "stride", "direction"])?;
    let strategy = node.str("strategy")?;
    if strategy != "LongestFirst" {
        return Err(unsupported(node.path, strategy, &["LongestFirst"]).renamed("strategy"));
    }
    if node.opt_uint("stride")?.unwrap_or(0) != 0 {
        return Err(err(
            &join(node.path, "stride"),
            "a non-zero stride (overflowing windows) is not supported yet",
        ));
    }
    let max_length = node
        .opt_uint("max_length")?
        .ok_or_else(|| err(&join(node.path, "max_length"), "missing"))?;
    Ok(Truncation {
        max_length: max_length as usize,
        direction: direction(&node)?,
    })
}

pub(super) fn padding(node: Node<'_>) -> Result<Padding> {
    node.only_keys(&[
        "strategy",
        "direction",
        "pad_to_multiple_of",
        "pad_id",
        "pad_type_id",
        "pad_token",
    ])?;
    let (strategy, sp) = node.required("strategy")?;
    let fixed = match strategy {
        Value::String(s) if s == "BatchLongest" => None,
        Value::Object(o) if o.len() == 1 && o.contains_key("Fixed") => Some(
            o["Fixed"]
                .as_u64()
                .ok_or_else(|| err(&join(&sp, "Fixed"), "expected a length"))? as usize,
        ),
        _ => return Err(err(&sp, "expected \"BatchLongest\" or {\"Fixed\": n}")),
    };
    let pad_id = match node.get("pad_id")? {
        Some((v, path)) => as_id(v, &path)?,
        None => 0,
    };
    let pad_type_id = match node.get("pad_type_id")? {
        Some((v, path)) => as_id(v, &path)?,
        None => 0,
    };
    Ok(Padding {
        fixed,
        direction: direction(&node)?,
        pad_to_multiple_of: node.opt_uint("pad_to_multiple_of")?.map(|n| n as usize),
        pad_id,
        pad_type_id,
        pad_token: match node.get("pad_token")? {
            None => "[PAD]".to_string(),
            Some((v, path)) => v
                .as_str()
                .ok_or_else(|| err(&path, "expected a string"))?
                .to_string(),
        },
    })
}

impl Error {
    /// An unsupported-component error about `key` rather than `type`.
    fn renamed(self, key: &str) -> Error {
        match self {
            Error::UnsupportedComponent {
                path,
                kind,
                supported,
            } => Error::UnsupportedComponent {
                path: path.trim_end_matches("type").to_string() + key,
                kind,
                supported,
            },
            other => other,
        }
    }
}
