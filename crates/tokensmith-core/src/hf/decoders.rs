//! Decoders: WordPiece.
//!
//! ```
//! use tokensmith_core::hf::decoders::Decoder;
//! let d = Decoder::WordPiece { prefix: "##".into(), cleanup: true };
//! let tokens = ["un", "##aff", "##able", "!"].map(String::from);
//! assert_eq!(d.decode(&tokens), "unaffable!");
//! ```
//!
//! Not handled yet: ByteLevel, Metaspace, BPEDecoder, ByteFallback, Fuse, Strip, Replace, CTC
//! and Sequence.

/// One decoder of a `tokenizer.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoder {
    /// Glues `prefix`-continued pieces to the previous one and puts a space before others;
    /// `cleanup` removes the spaces BERT's tokenization put before punctuation and clitics.
    WordPiece { prefix: String, cleanup: bool },
}

/// The English detokenization fixes HF applies, to each token separately.
fn cleanup(token: &str) -> String {
    token
        .replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" do not", " don't")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
}

impl Decoder {
    /// The text of `tokens`.
    pub fn decode(&self, tokens: &[String]) -> String {
        let Decoder::WordPiece {
            prefix,
            cleanup: clean,
        } = self;
        let mut out = String::new();
        for (i, token) in tokens.iter().enumerate() {
            let piece = if i == 0 {
                token.clone()
            } else if let Some(rest) = token.strip_prefix(prefix.as_str()) {
                rest.to_string()
            } else {
                format!(" {token}")
            };
            if *clean {
                out.push_str(&cleanup(&piece));
            } else {
                out.push_str(&piece);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordpiece_without_cleanup() {
        let d = Decoder::WordPiece {
            prefix: "##".into(),
            cleanup: false,
        };
        let tokens = ["##a", "b", "##c", ","].map(String::from);
        assert_eq!(d.decode(&tokens), "##a bc ,");
    }

    #[test]
    fn cleanup_is_per_token() {
        let d = Decoder::WordPiece {
            prefix: "##".into(),
            cleanup: true,
        };
        // " 's" is fixed only when the quote and the s are one token.
        let tokens = ["it", "'", "s", "isn", "'s"].map(String::from);
        assert_eq!(d.decode(&tokens), "it ' s isn's");
    }
}
