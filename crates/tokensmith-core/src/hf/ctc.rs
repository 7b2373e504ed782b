//! The CTC decoder, for the outputs of speech models (wav2vec2 and kin).
//!
//! Runs of the same token collapse into one; the pad token is removed from every token;
//! with `cleanup`, BERT's English detokenization fixes are applied and the word delimiter
//! becomes a space (without `cleanup` the delimiter stays, as in HF). Tokens left empty are
//! dropped.
//!
//! ```
//! use tokensmith_core::hf::ctc::Ctc;
//! let ctc = Ctc { pad_token: "<pad>".into(), word_delimiter_token: "|".into(), cleanup: true };
//! let tokens = ["<pad>", "h", "h", "i", "<pad>", "i", "|", "y", "o"].map(String::from);
//! assert_eq!(ctc.decode_chain(tokens.to_vec()).concat(), "hii yo");
//! ```

use super::decoders::cleanup;

/// The CTC decoder's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctc {
    pub pad_token: String,
    pub word_delimiter_token: String,
    pub cleanup: bool,
}

impl Ctc {
    /// The tokens after this decoder.
    pub fn decode_chain(&self, mut tokens: Vec<String>) -> Vec<String> {
        tokens.dedup();
        tokens
            .into_iter()
            .filter_map(|t| {
                let mut t = t.replace(&self.pad_token, "");
                if self.cleanup {
                    t = cleanup(&t).replace(&self.word_delimiter_token, " ");
                }
                (!t.is_empty()).then_some(t)
            })
            .collect()
    }
}
