//! Decoders: WordPiece, Metaspace, BPEDecoder, ByteFallback, Fuse, Strip, Replace,
//! ByteLevel, CTC and Sequence.
//!
//! As in HF, each decoder maps the list of token strings to a new list (`decode_chain`), a
//! Sequence chains them, and the text is the final list joined.
//!
//! ```
//! use tokensmith_core::hf::decoders::Decoder;
//! let d = Decoder::WordPiece { prefix: "##".into(), cleanup: true };
//! let tokens = ["un", "##aff", "##able", "!"].map(String::from);
//! assert_eq!(d.decode(&tokens), "unaffable!");
//! let d = Decoder::Sequence(vec![Decoder::ByteFallback, Decoder::Fuse]);
//! let tokens = ["a", "<0xC3>", "<0xA9>", "b", "<0xFF>"].map(String::from);
//! assert_eq!(d.decode(&tokens), "aéb\u{FFFD}");
//! ```

use super::ctc::Ctc;
use super::metaspace::Metaspace;
use super::regex_split::Split;
use super::NormalizedString;
use crate::trainers::bpe::gpt2_byte;

/// One decoder of a `tokenizer.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoder {
    /// Glues `prefix`-continued pieces to the previous one and puts a space before others;
    /// `cleanup` removes the spaces BERT's tokenization put before punctuation and clitics.
    WordPiece { prefix: String, cleanup: bool },
    /// `▁` back to spaces.
    Metaspace(Metaspace),
    /// The end-of-word `suffix` becomes a space (nothing after the last token).
    Bpe { suffix: String },
    /// Runs of `<0xNN>` tokens become the text of their bytes (one U+FFFD per byte when the
    /// bytes are not valid UTF-8).
    ByteFallback,
    /// All tokens become one.
    Fuse,
    /// Removes up to `start` leading and `stop` trailing `content` characters of each token.
    Strip {
        content: char,
        start: usize,
        stop: usize,
    },
    /// Replaces `pattern` (a literal) by `content` in each token.
    Replace { pattern: String, content: String },
    /// Replaces every match of a regex (the `Split` whose kept pieces are the matches) by
    /// `content` in each token.
    ReplaceRegex {
        matches: Box<Split>,
        content: String,
    },
    /// GPT-2's byte-to-character mapping undone over all tokens.
    ByteLevel,
    /// Each decoder takes the tokens of the one before.
    Sequence(Vec<Decoder>),
    /// Speech models' CTC output: repeats collapsed, pads removed.
    Ctc(Ctc),
}

/// The English detokenization fixes HF applies, to each token separately.
pub(super) fn cleanup(token: &str) -> String {
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
        self.decode_chain(tokens.to_vec()).concat()
    }

    /// The tokens after this decoder.
    pub fn decode_chain(&self, tokens: Vec<String>) -> Vec<String> {
        match self {
            Decoder::WordPiece { prefix, cleanup } => wordpiece(tokens, prefix, *cleanup),
            Decoder::Metaspace(m) => m.decode_chain(&tokens),
            Decoder::Bpe { suffix } => {
                let last = tokens.len().saturating_sub(1);
                tokens
                    .iter()
                    .enumerate()
                    .map(|(i, t)| t.replace(suffix.as_str(), if i == last { "" } else { " " }))
                    .collect()
            }
            Decoder::ByteFallback => byte_fallback(tokens),
            Decoder::Fuse => vec![tokens.concat()],
            Decoder::Strip {
                content,
                start,
                stop,
            } => tokens
                .iter()
                .map(|t| strip(t, *content, *start, *stop))
                .collect(),
            Decoder::Replace { pattern, content } => tokens
                .iter()
                .map(|t| t.replace(pattern.as_str(), content))
                .collect(),
            Decoder::ReplaceRegex { matches, content } => tokens
                .iter()
                .map(|t| replace_matches(t, matches, content))
                .collect(),
            Decoder::ByteLevel => vec![byte_level(&tokens)],
            Decoder::Sequence(all) => all.iter().fold(tokens, |t, d| d.decode_chain(t)),
            Decoder::Ctc(c) => c.decode_chain(tokens),
        }
    }
}

fn wordpiece(tokens: Vec<String>, prefix: &str, clean: bool) -> Vec<String> {
    tokens
        .into_iter()
        .enumerate()
        .map(|(i, token)| {
            let piece = if i == 0 {
                token
            } else if let Some(rest) = token.strip_prefix(prefix) {
                rest.to_string()
            } else {
                format!(" {token}")
            };
            if clean {
                cleanup(&piece)
            } else {
                piece
            }
        })
        .collect()
}

fn byte_fallback(tokens: Vec<String>) -> Vec<String> {
    fn flush(bytes: &mut Vec<u8>, out: &mut Vec<String>) {
        if bytes.is_empty() {
            return;
        }
        match String::from_utf8(std::mem::take(bytes)) {
            Ok(s) => out.push(s),
            Err(e) => out.extend(std::iter::repeat_n(
                "\u{FFFD}".to_string(),
                e.as_bytes().len(),
            )),
        }
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut bytes = Vec::new();
    for t in tokens {
        let byte = (t.len() == 6 && t.starts_with("<0x") && t.ends_with('>'))
            .then(|| u8::from_str_radix(&t[3..5], 16).ok())
            .flatten();
        match byte {
            Some(b) => bytes.push(b),
            None => {
                flush(&mut bytes, &mut out);
                out.push(t);
            }
        }
    }
    flush(&mut bytes, &mut out);
    out
}

fn replace_matches(token: &str, matches: &Split, content: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    let mut out = String::with_capacity(token.len());
    let mut last = 0;
    // A pattern that gives up on a token (the backtracking limit) leaves it as it is.
    let found = matches
        .split(&NormalizedString::new(token))
        .unwrap_or_default();
    for (s, e) in found {
        if e > s {
            out.extend(&chars[last..s]);
            out.push_str(content);
            last = e;
        }
    }
    out.extend(&chars[last..]);
    out
}

fn strip(token: &str, content: char, start: usize, stop: usize) -> String {
    let chars: Vec<char> = token.chars().collect();
    let from = chars
        .iter()
        .take(start)
        .take_while(|&&c| c == content)
        .count();
    let to = chars.len()
        - chars
            .iter()
            .rev()
            .take(stop)
            .take_while(|&&c| c == content)
            .count();
    chars[from..to.max(from)].iter().collect()
}

/// GPT-2's characters back to bytes; a token holding any other character keeps its UTF-8.
fn byte_level(tokens: &[String]) -> String {
    let mut bytes = Vec::new();
    for t in tokens {
        match t.chars().map(gpt2_byte).collect::<Option<Vec<u8>>>() {
            Some(b) => bytes.extend(b),
            None => bytes.extend_from_slice(t.as_bytes()),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
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
    fn bpe_strip_replace_byte_level() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let d = Decoder::Bpe {
            suffix: "</w>".into(),
        };
        assert_eq!(d.decode(&t(&["lo", "w</w>", "er</w>"])), "low er");
        let d = Decoder::Strip {
            content: ' ',
            start: 1,
            stop: 0,
        };
        assert_eq!(d.decode(&t(&["  a", " b "])), " ab ");
        let d = Decoder::Replace {
            pattern: "▁".into(),
            content: " ".into(),
        };
        assert_eq!(d.decode(&t(&["▁a▁", "b"])), " a b");
        let d = Decoder::ReplaceRegex {
            matches: Box::new(
                Split::new("▁+", false, super::super::split::Behavior::Removed, true).unwrap(),
            ),
            content: " ".into(),
        };
        assert_eq!(d.decode(&t(&["▁▁a▁", "b▁"])), " a b ");
        assert_eq!(Decoder::ByteLevel.decode(&t(&["Ġh", "Ã©", "中"])), " hé中");
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
