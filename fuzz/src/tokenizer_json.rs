//! The `tokenizer.json` reader on arbitrary bytes, then the tokenizer it builds: encode a
//! single text and a pair, with and without special tokens, and decode.
//!
//! The input is the JSON, then optionally a NUL and a text to encode as well as the samples.

use super::samples::{split_nul, TEXTS};
use tokensmith_core::hf::tokenizer::HfTokenizer;

pub fn run(data: &[u8]) {
    let (json, extra) = split_nul(data);
    let Ok(json) = std::str::from_utf8(json) else {
        return;
    };
    let Ok(tok) = HfTokenizer::from_json_str(json) else {
        return;
    };
    let extra = String::from_utf8_lossy(extra);
    for text in TEXTS.iter().copied().chain([&*extra]) {
        for add_special in [false, true] {
            let Ok(single) = tok.encode(text, None, add_special) else {
                continue;
            };
            let _ = tok.decode(&single.ids, false);
            let _ = tok.decode(&single.ids, true);
            let _ = tok.encode(text, Some(TEXTS[0]), add_special);
        }
    }
    let n = tok.get_vocab_size(true) as u32;
    let _ = tok.decode(&[0, n.saturating_sub(1), n, u32::MAX], false);
}
