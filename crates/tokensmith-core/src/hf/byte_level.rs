//! ByteLevel: GPT-2's byte-level pre-tokenizer and post-processor.
//!
//! The pre-tokenizer optionally puts a space before the text (`add_prefix_space`), cuts it
//! with GPT-2's regex (`use_regex`), and spells every character as its UTF-8 bytes in GPT-2's
//! printable alphabet (`' '` is `Ġ`); each of those characters keeps the span of the
//! character it came from. The post-processor's `trim_offsets` moves each token's offsets
//! past its leading and trailing spaces (`Ġ`), keeping a first token's single added space.
//!
//! ```
//! use tokensmith_core::hf::byte_level::ByteLevel;
//! use tokensmith_core::hf::NormalizedString;
//! let b = ByteLevel { add_prefix_space: true, use_regex: true, trim_offsets: true };
//! let words: Vec<String> = b
//!     .pre_tokenize(NormalizedString::new("Hé you"))
//!     .iter()
//!     .map(NormalizedString::text)
//!     .collect();
//! assert_eq!(words, ["ĠHÃ©", "Ġyou"]);
//! ```

use super::normalized::NormalizedString;
use super::regex_split::Split;
use super::split::Behavior;
use crate::trainers::bpe::gpt2_char;
use std::sync::OnceLock;

/// GPT-2's pre-tokenizer regex, as HF's ByteLevel writes it.
pub const GPT2_REGEX: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The ByteLevel settings (pre-tokenizer, post-processor and decoder share them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteLevel {
    pub add_prefix_space: bool,
    pub use_regex: bool,
    pub trim_offsets: bool,
}

fn byte_chars() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = ['\0'; 256];
        for (b, slot) in t.iter_mut().enumerate() {
            *slot = char::from_u32(gpt2_char(b as u8)).unwrap_or('\u{FFFD}');
        }
        t
    })
}

fn gpt2_split() -> &'static Split {
    static SPLIT: OnceLock<Split> = OnceLock::new();
    SPLIT.get_or_init(|| {
        // A constant pattern: it compiles, or the unit tests fail.
        Split::new(GPT2_REGEX, false, Behavior::Isolated, false).expect("GPT-2 regex compiles")
    })
}

impl ByteLevel {
    /// The words of one piece, spelled in GPT-2's byte alphabet.
    pub fn pre_tokenize(&self, mut piece: NormalizedString) -> Vec<NormalizedString> {
        if self.add_prefix_space && piece.chars().first() != Some(&' ') {
            piece.prepend(' ');
        }
        let words: Vec<NormalizedString> = if self.use_regex {
            gpt2_split()
                .split(&piece)
                .into_iter()
                .map(|(s, e)| piece.slice(s, e))
                .collect()
        } else if piece.is_empty() {
            Vec::new()
        } else {
            vec![piece]
        };
        let table = byte_chars();
        words
            .into_iter()
            .map(|mut w| {
                w.map_chars(|c| {
                    let mut buf = [0u8; 4];
                    c.encode_utf8(&mut buf)
                        .bytes()
                        .map(|b| table[b as usize])
                        .collect()
                });
                w
            })
            .collect()
    }
}

/// HF's `trim_offsets`: each token's offsets skip its leading and trailing `Ġ`s (one leading
/// space is kept on a sequence's first token when `add_prefix_space` added it).
pub fn trim_offsets(tokens: &[String], offsets: &mut [(usize, usize)], add_prefix_space: bool) {
    let space = byte_chars()[b' ' as usize];
    let is_space = |c: &char| *c == space || c.is_whitespace();
    for (i, (token, off)) in tokens.iter().zip(offsets.iter_mut()).enumerate() {
        let mut leading = token.chars().take_while(is_space).count();
        let trailing = token.chars().rev().take_while(is_space).count();
        if leading > 0 {
            let is_first = i == 0 || off.0 == 0;
            if is_first && add_prefix_space && leading == 1 {
                leading = 0;
            }
            off.0 = (off.0 + leading).min(off.1);
        }
        if trailing > 0 && off.1 >= trailing {
            off.1 = (off.1 - trailing).max(off.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_the_original_characters() {
        let b = ByteLevel {
            add_prefix_space: false,
            use_regex: false,
            trim_offsets: false,
        };
        let words = b.pre_tokenize(NormalizedString::new("aé"));
        assert_eq!(words[0].text(), "aÃ©");
        assert_eq!(words[0].original_span(1, 2), (1, 2));
        assert_eq!(words[0].original_span(2, 3), (1, 2));
    }

    #[test]
    fn trimming() {
        let tokens = ["Ġa".to_string(), "ĠĠ".to_string(), "bĠ".to_string()];
        let mut offsets = [(0, 2), (2, 4), (4, 6)];
        trim_offsets(&tokens, &mut offsets, false);
        assert_eq!(offsets, [(1, 2), (4, 4), (4, 5)]);
        let mut offsets = [(0, 2), (2, 4), (4, 6)];
        trim_offsets(&tokens, &mut offsets, true);
        assert_eq!(offsets[0], (0, 2));
    }
}
