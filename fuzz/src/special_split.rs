//! Splitting text at special and added tokens chosen by the input.
//!
//! The input is up to eight token names and then the text, separated by NULs. The names
//! become the special tokens of the small vocabulary's [`Encoding`] and the added tokens of a
//! small byte-level `tokenizer.json`; both then encode the text.

use super::roundtrip;
use super::samples::{small_encoding, small_ranks};
use std::sync::OnceLock;
use tokensmith_core::hf::added_tokens::AddedToken;
use tokensmith_core::hf::tokenizer::HfTokenizer;
use tokensmith_core::pre_tokenizers::CL100K_PATTERN;
use tokensmith_core::{Encoding, SpecialSet, SpecialTokens};

/// A byte-level BPE `tokenizer.json` with a three-byte vocabulary and no merges.
const BYTE_LEVEL_JSON: &str = r#"{
  "version": "1.0",
  "added_tokens": [],
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
  "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
  "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "Ġ": 2}, "merges": []}
}"#;

fn byte_level() -> &'static HfTokenizer {
    static TOK: OnceLock<HfTokenizer> = OnceLock::new();
    TOK.get_or_init(|| HfTokenizer::from_json_str(BYTE_LEVEL_JSON).expect("valid tokenizer.json"))
}

pub fn run(data: &[u8]) {
    let mut parts: Vec<String> = data
        .split(|&b| b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let text = parts.pop().unwrap_or_default();
    parts.truncate(8);

    check_matches(&parts, &text);

    let next = small_ranks().len() as u32;
    let specials = parts.iter().cloned().zip(next..).collect();
    if let Ok(enc) = Encoding::new(small_ranks(), specials, CL100K_PATTERN) {
        roundtrip::check(&enc, &text);
    }
    roundtrip::check(small_encoding(0), &text);

    let mut tok = byte_level().clone();
    let added = parts.iter().enumerate().map(|(i, name)| AddedToken {
        id: 0,
        content: name.clone(),
        special: i % 2 == 0,
        normalized: i % 3 == 0,
        lstrip: i % 4 == 1,
        rstrip: i % 4 == 2,
        single_word: i % 5 == 3,
    });
    tok.add_tokens(added.collect());
    if let Ok(encoding) = tok.encode(&text, None, true) {
        let _ = tok.decode(&encoding.ids, false);
        let _ = tok.decode(&encoding.ids, true);
    }
}

/// Every match of the special-token matcher is one of the names, found where it says.
fn check_matches(names: &[String], text: &str) {
    let Ok(specials) = SpecialTokens::new(names.iter().cloned().zip(0..).collect()) else {
        return;
    };
    let mut from = 0;
    while let Some(m) = specials.find_from(text, from, &SpecialSet::All) {
        assert!(m.start >= from && m.end > m.start && m.end <= text.len());
        assert_eq!(&text[m.start..m.end], specials.names()[m.index]);
        from = m.end;
    }
}
