//! One parser per pipeline component of a `tokenizer.json`, each refusing unknown keys.

use super::models::{precompiled, unigram, wordlevel};
use super::post_sequence::sequence;
use super::{as_id, err, join, unsupported, Node};
use crate::hf::bpe::Bpe;
use crate::hf::byte_level::ByteLevel;
use crate::hf::ctc::Ctc;
use crate::hf::decoders::Decoder;
use crate::hf::metaspace::{Metaspace, Prepend};
use crate::hf::model::Model;
use crate::hf::normalizers::{BertNormalizer, Normalizer};
use crate::hf::padding::padding_length;
use crate::hf::pre_tokenizers::PreTokenizer;
use crate::hf::processors::{Piece, PostProcessor, SpecialToken, Template};
use crate::hf::regex_split::Split;
use crate::hf::split::Behavior;
use crate::hf::truncation::{Direction, Padding, Strategy, Truncation};
use crate::hf::wordpiece::WordPiece;
use crate::limits::{self, Limit};
use crate::{Error, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

pub(super) fn normalizer(node: Node<'_>) -> Result<Normalizer> {
    const SUPPORTED: [&str; 14] = [
        "BertNormalizer",
        "NFC",
        "NFD",
        "NFKC",
        "NFKD",
        "Lowercase",
        "StripAccents",
        "Strip",
        "Prepend",
        "Replace",
        "Precompiled",
        "ByteLevel",
        "Nmt",
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
        "NFC" => simple(Normalizer::Nfc),
        "NFD" => simple(Normalizer::Nfd),
        "NFKC" => simple(Normalizer::Nfkc),
        "NFKD" => simple(Normalizer::Nfkd),
        "ByteLevel" => simple(Normalizer::ByteLevel),
        "Nmt" => simple(Normalizer::Nmt),
        "Precompiled" => Ok(Normalizer::Precompiled(Box::new(precompiled(&node)?))),
        "Lowercase" => simple(Normalizer::Lowercase),
        "StripAccents" => simple(Normalizer::StripAccents),
        "Strip" => {
            node.only_keys(&["type", "strip_left", "strip_right"])?;
            Ok(Normalizer::Strip {
                left: node.opt_bool("strip_left", true)?,
                right: node.opt_bool("strip_right", true)?,
            })
        }
        "Prepend" => {
            node.only_keys(&["type", "prepend"])?;
            Ok(Normalizer::Prepend(node.str("prepend")?.to_string()))
        }
        "Replace" => Ok(match replace_parts(&node)? {
            (Err(pattern), content) => Normalizer::Replace { pattern, content },
            (Ok(matches), content) => Normalizer::ReplaceRegex { matches, content },
        }),
        "Sequence" => {
            node.only_keys(&["type", "normalizers"])?;
            Ok(Normalizer::Sequence(list(
                &node,
                "normalizers",
                normalizer,
            )?))
        }
        other => Err(unsupported(node.path, other, &SUPPORTED)),
    }
}

/// A list of components at `key`, each parsed by `parse`.
fn list<T>(node: &Node<'_>, key: &str, parse: fn(Node<'_>) -> Result<T>) -> Result<Vec<T>> {
    let (v, path) = node.required(key)?;
    let items = v.as_array().ok_or_else(|| err(&path, "expected a list"))?;
    let mut all = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        all.push(parse(Node {
            value: item,
            path: &p,
        })?);
    }
    Ok(all)
}

fn one_char(node: &Node<'_>, key: &str) -> Result<char> {
    let (v, path) = node.required(key)?;
    let mut chars = v.as_str().map(str::chars).into_iter().flatten();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(err(&path, "expected a string of one character")),
    }
}

fn behavior(node: &Node<'_>) -> Result<Behavior> {
    let (v, path) = node.required("behavior")?;
    v.as_str().and_then(Behavior::from_name).ok_or_else(|| {
        err(
            &path,
            "expected one of: Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous",
        )
    })
}

/// `{"String": s}` or `{"Regex": r}`: the text and whether it is literal.
fn pattern<'a>(node: &Node<'a>) -> Result<(&'a str, bool, String)> {
    let (v, path) = node.required("pattern")?;
    let obj = v.as_object().filter(|o| o.len() == 1);
    match obj.and_then(|o| o.iter().next()) {
        Some((k, Value::String(p))) if k == "String" => Ok((p, true, path)),
        Some((k, Value::String(p))) if k == "Regex" => Ok((p, false, path)),
        _ => Err(err(&path, "expected {\"String\": ...} or {\"Regex\": ...}")),
    }
}

/// A Replace component's pattern and content: `Err(literal)` for a string pattern, or the
/// Split whose kept pieces are a regex's matches.
type ReplacePattern = std::result::Result<Box<Split>, String>;

fn replace_parts(node: &Node<'_>) -> Result<(ReplacePattern, String)> {
    node.only_keys(&["type", "pattern", "content"])?;
    let (text, literal, path) = pattern(node)?;
    let content = node.str("content")?.to_string();
    if literal {
        return Ok((Err(text.to_string()), content));
    }
    let matches =
        Split::new(text, false, Behavior::Removed, true).map_err(|e| err(&path, e.to_string()))?;
    Ok((Ok(Box::new(matches)), content))
}

fn metaspace(node: &Node<'_>) -> Result<Metaspace> {
    node.only_keys(&[
        "type",
        "replacement",
        "prepend_scheme",
        "split",
        "add_prefix_space",
        "str_rep",
    ])?;
    let mut prepend = match node.get("prepend_scheme")? {
        None => Prepend::Always,
        Some((v, path)) => v
            .as_str()
            .and_then(Prepend::from_name)
            .ok_or_else(|| err(&path, "expected \"always\", \"first\" or \"never\""))?,
    };
    if !node.opt_bool("add_prefix_space", true)? {
        if prepend != Prepend::Never && node.get("prepend_scheme")?.is_some() {
            return Err(err(
                &join(node.path, "add_prefix_space"),
                "false contradicts prepend_scheme",
            ));
        }
        prepend = Prepend::Never;
    }
    Ok(Metaspace {
        replacement: one_char(node, "replacement")?,
        prepend,
        split: node.opt_bool("split", true)?,
    })
}

pub(super) fn pre_tokenizer(node: Node<'_>) -> Result<PreTokenizer> {
    const SUPPORTED: [&str; 12] = [
        "BertPreTokenizer",
        "ByteLevel",
        "Whitespace",
        "WhitespaceSplit",
        "Punctuation",
        "Digits",
        "CharDelimiterSplit",
        "Metaspace",
        "Split",
        "UnicodeScripts",
        "FixedLength",
        "Sequence",
    ];
    let p = match node.kind()? {
        "BertPreTokenizer" => PreTokenizer::Bert,
        "UnicodeScripts" => PreTokenizer::UnicodeScripts,
        "FixedLength" => {
            node.only_keys(&["type", "length"])?;
            let n = node.opt_uint("length")?.unwrap_or(5);
            if n == 0 {
                return Err(err(&join(node.path, "length"), "expected a length above 0"));
            }
            return Ok(PreTokenizer::FixedLength(n as usize));
        }
        "Whitespace" => PreTokenizer::Whitespace,
        "WhitespaceSplit" => PreTokenizer::WhitespaceSplit,
        "Punctuation" => {
            node.only_keys(&["type", "behavior"])?;
            let b = match node.get("behavior")? {
                None => Behavior::Isolated,
                Some(_) => behavior(&node)?,
            };
            return Ok(PreTokenizer::Punctuation(b));
        }
        "Digits" => {
            node.only_keys(&["type", "individual_digits"])?;
            return Ok(PreTokenizer::Digits {
                individual: node.opt_bool("individual_digits", false)?,
            });
        }
        "CharDelimiterSplit" => {
            node.only_keys(&["type", "delimiter"])?;
            return Ok(PreTokenizer::CharDelimiterSplit(one_char(
                &node,
                "delimiter",
            )?));
        }
        "Metaspace" => return Ok(PreTokenizer::Metaspace(metaspace(&node)?)),
        "ByteLevel" => return Ok(PreTokenizer::ByteLevel(byte_level(&node)?)),
        "Split" => {
            node.only_keys(&["type", "pattern", "behavior", "invert"])?;
            let (text, literal, path) = pattern(&node)?;
            let split = Split::new(
                text,
                literal,
                behavior(&node)?,
                node.opt_bool("invert", false)?,
            )
            .map_err(|e| err(&path, e.to_string()))?;
            return Ok(PreTokenizer::Split(Box::new(split)));
        }
        "Sequence" => {
            node.only_keys(&["type", "pretokenizers"])?;
            return Ok(PreTokenizer::Sequence(list(
                &node,
                "pretokenizers",
                pre_tokenizer,
            )?));
        }
        other => return Err(unsupported(node.path, other, &SUPPORTED)),
    };
    node.only_keys(&["type"])?;
    Ok(p)
}

pub(super) fn vocab(node: &Node<'_>) -> Result<(FxHashMap<String, u32>, String)> {
    let (v, vocab_path) = node.required("vocab")?;
    let entries = v
        .as_object()
        .ok_or_else(|| err(&vocab_path, "expected an object of token: id"))?;
    let mut vocab = FxHashMap::default();
    let mut seen = FxHashSet::default();
    for (token, id) in entries {
        let path = join(&vocab_path, token);
        let what = format!("the length in bytes of a token of {vocab_path}");
        limits::check(Limit::MaxTokenBytes, token.len() as u64, &what)?;
        let id = as_id(id, &path)?;
        if !seen.insert(id) {
            return Err(err(&path, format!("id {id} is given to two tokens")));
        }
        vocab.insert(token.clone(), id);
    }
    Ok((vocab, vocab_path))
}

fn opt_string(node: &Node<'_>, key: &str) -> Result<Option<String>> {
    match node.get(key)? {
        None => Ok(None),
        Some((v, path)) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| err(&path, "expected a string or null")),
    }
}

fn bpe(node: Node<'_>) -> Result<Model> {
    node.only_keys(&[
        "type",
        "dropout",
        "unk_token",
        "continuing_subword_prefix",
        "end_of_word_suffix",
        "fuse_unk",
        "byte_fallback",
        "ignore_merges",
        "vocab",
        "merges",
    ])?;
    let dropout = match node.get("dropout")? {
        None | Some((Value::Null, _)) => None,
        Some((v, path)) => match v.as_f64() {
            Some(p) if (0.0..=1.0).contains(&p) => Some(p as f32),
            _ => return Err(err(&path, "expected a probability from 0 to 1, or null")),
        },
    };
    let (vocab, _) = vocab(&node)?;
    let (m, mp) = node.required("merges")?;
    let items = m.as_array().ok_or_else(|| err(&mp, "expected a list"))?;
    let mut merges = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pair = match item {
            Value::String(s) => s
                .split_once(' ')
                .filter(|(_, b)| !b.contains(' '))
                .map(|(a, b)| (a.to_string(), b.to_string())),
            Value::Array(v) => match v.as_slice() {
                [Value::String(a), Value::String(b)] => Some((a.clone(), b.clone())),
                _ => None,
            },
            _ => None,
        };
        merges.push(pair.ok_or_else(|| {
            err(
                &format!("{mp}[{i}]"),
                "expected [\"left\", \"right\"] or \"left right\"",
            )
        })?);
    }
    let model = Bpe::builder(vocab)
        .unk_token(opt_string(&node, "unk_token")?)
        .continuing_subword_prefix(opt_string(&node, "continuing_subword_prefix")?)
        .end_of_word_suffix(opt_string(&node, "end_of_word_suffix")?)
        .fuse_unk(node.opt_bool("fuse_unk", false)?)
        .byte_fallback(node.opt_bool("byte_fallback", false)?)
        .ignore_merges(node.opt_bool("ignore_merges", false)?)
        .dropout(dropout)
        .build(merges)?;
    Ok(Model::Bpe(Box::new(model)))
}

pub(super) fn model(node: Node<'_>) -> Result<Model> {
    match node.kind()? {
        "WordPiece" => wordpiece(node).map(Model::WordPiece),
        "BPE" => bpe(node),
        "Unigram" => unigram(node),
        "WordLevel" => wordlevel(node),
        other => Err(unsupported(
            node.path,
            other,
            &["WordPiece", "BPE", "Unigram", "WordLevel"],
        )),
    }
}

fn wordpiece(node: Node<'_>) -> Result<WordPiece> {
    node.only_keys(&[
        "type",
        "unk_token",
        "continuing_subword_prefix",
        "max_input_chars_per_word",
        "vocab",
    ])?;
    let (vocab, _) = vocab(&node)?;
    // An unk_token missing from the vocabulary fails only the words that need it, as in HF.
    let unk = node.str("unk_token")?;
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

fn byte_level(node: &Node<'_>) -> Result<ByteLevel> {
    node.only_keys(&["type", "add_prefix_space", "trim_offsets", "use_regex"])?;
    Ok(ByteLevel {
        add_prefix_space: node.opt_bool("add_prefix_space", true)?,
        trim_offsets: node.opt_bool("trim_offsets", true)?,
        use_regex: node.opt_bool("use_regex", true)?,
    })
}

pub(super) fn post_processor(node: Node<'_>) -> Result<PostProcessor> {
    match node.kind()? {
        "ByteLevel" => {
            let b = byte_level(&node)?;
            Ok(PostProcessor {
                template: None,
                trim_offsets: b.trim_offsets.then_some(b.add_prefix_space),
                marks_pieces: false,
            })
        }
        "RobertaProcessing" => {
            node.only_keys(&["type", "sep", "cls", "trim_offsets", "add_prefix_space"])?;
            let trim = node.opt_bool("trim_offsets", true)?;
            let add_prefix_space = node.opt_bool("add_prefix_space", true)?;
            Ok(PostProcessor {
                template: Some(Template::roberta(
                    token_and_id(&node, "cls")?,
                    token_and_id(&node, "sep")?,
                )),
                trim_offsets: trim.then_some(add_prefix_space),
                marks_pieces: false,
            })
        }
        "Sequence" => sequence(&node),
        _ => Ok(PostProcessor {
            template: Some(template(node)?),
            trim_offsets: None,
            marks_pieces: false,
        }),
    }
}

/// `[token, id]` at `key`.
fn token_and_id(node: &Node<'_>, key: &str) -> Result<(String, u32)> {
    let (v, path) = node.required(key)?;
    match v.as_array().map(Vec::as_slice) {
        Some([Value::String(t), id]) => Ok((t.clone(), as_id(id, &path)?)),
        _ => Err(err(&path, "expected [token, id]")),
    }
}

fn template(node: Node<'_>) -> Result<Template> {
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
                overflowing_takes_type_ids: false,
                rebuilds_sequences: false,
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
            Ok(Template::bert(
                token_and_id(&node, "cls")?,
                token_and_id(&node, "sep")?,
            ))
        }
        other => Err(unsupported(
            node.path,
            other,
            &[
                "TemplateProcessing",
                "BertProcessing",
                "RobertaProcessing",
                "ByteLevel",
                "Sequence",
            ],
        )),
    }
}

pub(super) fn decoder(node: Node<'_>) -> Result<Decoder> {
    const SUPPORTED: [&str; 10] = [
        "WordPiece",
        "Metaspace",
        "BPEDecoder",
        "ByteFallback",
        "Fuse",
        "Strip",
        "Replace",
        "ByteLevel",
        "CTC",
        "Sequence",
    ];
    match node.kind()? {
        "CTC" => {
            node.only_keys(&["type", "pad_token", "word_delimiter_token", "cleanup"])?;
            Ok(Decoder::Ctc(Ctc {
                pad_token: opt_string(&node, "pad_token")?.unwrap_or_else(|| "<pad>".into()),
                word_delimiter_token: opt_string(&node, "word_delimiter_token")?
                    .unwrap_or_else(|| "|".into()),
                cleanup: node.opt_bool("cleanup", true)?,
            }))
        }
        "WordPiece" => {
            node.only_keys(&["type", "prefix", "cleanup"])?;
            Ok(Decoder::WordPiece {
                prefix: opt_string(&node, "prefix")?.unwrap_or_else(|| "##".into()),
                cleanup: node.opt_bool("cleanup", true)?,
            })
        }
        "Metaspace" => Ok(Decoder::Metaspace(metaspace(&node)?)),
        "BPEDecoder" => {
            node.only_keys(&["type", "suffix"])?;
            Ok(Decoder::Bpe {
                suffix: opt_string(&node, "suffix")?.unwrap_or_else(|| "</w>".into()),
            })
        }
        "ByteFallback" => node.only_keys(&["type"]).map(|_| Decoder::ByteFallback),
        "Fuse" => node.only_keys(&["type"]).map(|_| Decoder::Fuse),
        "Strip" => {
            node.only_keys(&["type", "content", "start", "stop"])?;
            Ok(Decoder::Strip {
                content: one_char(&node, "content")?,
                start: node.opt_uint("start")?.unwrap_or(0) as usize,
                stop: node.opt_uint("stop")?.unwrap_or(0) as usize,
            })
        }
        "Replace" => Ok(match replace_parts(&node)? {
            (Err(pattern), content) => Decoder::Replace { pattern, content },
            (Ok(matches), content) => Decoder::ReplaceRegex { matches, content },
        }),
        "ByteLevel" => byte_level(&node).map(|_| Decoder::ByteLevel),
        "Sequence" => {
            node.only_keys(&["type", "decoders"])?;
            Ok(Decoder::Sequence(list(&node, "decoders", decoder)?))
        }
        other => Err(unsupported(node.path, other, &SUPPORTED)),
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
    let strategy = match node.str("strategy")? {
        "LongestFirst" => Strategy::LongestFirst,
        "OnlyFirst" => Strategy::OnlyFirst,
        "OnlySecond" => Strategy::OnlySecond,
        other => {
            let known = ["LongestFirst", "OnlyFirst", "OnlySecond"];
            return Err(unsupported(node.path, other, &known).renamed("strategy"));
        }
    };
    let max_length = node
        .opt_uint("max_length")?
        .ok_or_else(|| err(&join(node.path, "max_length"), "missing"))?;
    Ok(Truncation {
        max_length: max_length as usize,
        stride: node.opt_uint("stride")?.unwrap_or(0) as usize,
        strategy,
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
        Value::Object(o) if o.len() == 1 && o.contains_key("Fixed") => Some(padding_length(
            "strategy.Fixed",
            o["Fixed"]
                .as_u64()
                .ok_or_else(|| err(&join(&sp, "Fixed"), "expected a length"))?,
        )?),
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
        pad_to_multiple_of: node
            .opt_uint("pad_to_multiple_of")?
            .map(|n| padding_length("pad_to_multiple_of", n))
            .transpose()?,
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
