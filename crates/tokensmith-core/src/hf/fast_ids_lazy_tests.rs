//! The byte-level engine of a qualifying `tokenizer.json` is built on first use, once, and
//! shared by clones.

use super::byte_level::byte_chars;
use super::tokenizer::HfTokenizer;
use std::sync::Arc;

/// A byte-level BPE file that qualifies for the engine: GPT-2's pre-tokenizer, the 256
/// byte characters and one merge.
pub(super) fn byte_level_json() -> String {
    let mut vocab = serde_json::Map::new();
    for (id, c) in byte_chars().iter().enumerate() {
        vocab.insert(c.to_string(), id.into());
    }
    vocab.insert("ab".into(), 256.into());
    serde_json::json!({
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false,
                          "trim_offsets": true, "use_regex": true},
        "model": {"type": "BPE", "vocab": vocab, "merges": [["a", "b"]]},
    })
    .to_string()
}

#[test]
fn the_engine_is_built_on_first_use_and_shared_by_clones() {
    let (tok, _) = HfTokenizer::from_json_str_outlined(&byte_level_json()).unwrap();
    assert!(tok.fast.get().is_none(), "loading built the engine");
    let copy = tok.clone();
    assert_eq!(
        copy.encode_ids("abab", None, false).unwrap().unwrap(),
        [256, 256]
    );
    assert!(tok.fast.get().is_some_and(Option::is_some));
    assert!(Arc::ptr_eq(&tok.fast, &copy.fast));
    assert!(tok.has_fast_ids());
}
