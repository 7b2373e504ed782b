//! HF's `encode_batch_fast` for one input: the same ids as [`HfTokenizer::encode`], without
//! what the tokens of the input would tell (their text, offsets, words and type ids).
//!
//! Each token of the input sequences comes out as HF's `encode_fast` leaves it: an empty
//! token, offsets `(0, 0)`, no word, type id 0. Truncation, the post-processor and padding
//! then run as usual ([`HfTokenizer::post_process_encodings`]), so special and padding tokens
//! are spelled, and the post-processor sets its type ids (without one, a pair's second
//! sequence keeps type id 0, as in HF).
//!
//! ```
//! use tokensmith_core::hf::HfTokenizer;
//! let tok = HfTokenizer::from_json_str(r#"{"model": {"type": "WordLevel", "unk_token": "?",
//!   "vocab": {"?": 0, "a": 1}}, "pre_tokenizer": {"type": "Whitespace"}}"#).unwrap();
//! let enc = tok.encode_fast("a b", Some("a"), true).unwrap();
//! assert_eq!(enc.ids, [1, 0, 1]);
//! assert_eq!(enc.tokens(), ["", "", ""]);
//! assert_eq!(enc.type_ids, [0, 0, 0]);
//! assert_eq!(enc.sequence_ids(), [Some(0), Some(0), Some(1)]);
//! ```

use super::{HfEncoding, HfTokenizer};
use crate::error::Result;

impl HfTokenizer {
    /// Encodes `text` (and `pair`) as HF's `encode_batch_fast` encodes one input.
    pub fn encode_fast(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (first, second) = self.text_sequences(text, pair)?;
        self.post_process_encodings(blank(first), second.map(blank), add_special_tokens)
    }

    /// Encodes words (HF's `is_pretokenized`) as HF's `encode_batch_fast` does.
    pub fn encode_pretokenized_fast(
        &self,
        words: &[&str],
        pair: Option<&[&str]>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (first, second) = self.word_sequences(words, pair)?;
        self.post_process_encodings(blank(first), second.map(blank), add_special_tokens)
    }
}

/// A sequence's tokens as HF's `encode_fast` leaves them: ids only.
fn blank(mut e: HfEncoding) -> HfEncoding {
    let n = e.ids.len();
    // An empty boxed str holds no allocation.
    e.own_tokens.clear();
    e.own_tokens.resize(n, Some(Box::default()));
    for (values, zero) in [
        (&mut e.type_ids, 0),
        (&mut e.special_tokens_mask, 0),
        (&mut e.attention_mask, 1),
    ] {
        values.clear();
        values.resize(n, zero);
    }
    e.offsets.clear();
    e.offsets.resize(n, (0, 0));
    e.word_ids.clear();
    e.word_ids.resize(n, None);
    e
}
