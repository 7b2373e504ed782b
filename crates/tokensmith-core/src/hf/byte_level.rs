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
use crate::pre_tokenizers::PreTokenizer;
use crate::trainers::bpe::gpt2_char;
use std::sync::OnceLock;

/// GPT-2's pre-tokenizer regex, as HF's ByteLevel writes it.
pub const GPT2_REGEX: &str = crate::pre_tokenizers::GPT2_PATTERN;

/// The ByteLevel settings (pre-tokenizer, post-processor and decoder share them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteLevel {
    pub add_prefix_space: bool,
    pub use_regex: bool,
    pub trim_offsets: bool,
}

/// GPT-2's printable spelling of each byte.
pub(super) fn byte_chars() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = ['\0'; 256];
        for (b, slot) in t.iter_mut().enumerate() {
            *slot = char::from_u32(gpt2_char(b as u8)).unwrap_or('\u{FFFD}');
        }
        t
    })
}

/// The words of `chars` under [`GPT2_REGEX`], as ranges of characters that tile them.
///
/// The hand-written GPT-2 splitter of [`crate::pre_tokenizers`] runs it: r50k's pattern
/// differs from HF's only in spelling (`'(?:[sdmt]|ll|ve|re)` for the seven contractions,
/// possessive runs of one class, and `\s++$|\s+(?!\S)|\s` for `\s+(?!\S)|\s+`, which cut a
/// whitespace run at the same places).
fn gpt2_words(chars: &[char]) -> Vec<(usize, usize)> {
    let text: String = chars.iter().collect();
    let mut words = Vec::new();
    let mut char_pos = 0;
    // The r50k splitter cannot fail (only a user regex can).
    let _ = PreTokenizer::R50k.for_each_piece(&text, |s, e| {
        let n = text[s..e].chars().count();
        words.push((char_pos, char_pos + n));
        char_pos += n;
    });
    words
}

impl ByteLevel {
    /// The words of one piece, spelled in GPT-2's byte alphabet.
    pub fn pre_tokenize(&self, piece: NormalizedString) -> Vec<NormalizedString> {
        let (piece, words) = self.cut(piece);
        words.into_iter().map(|(s, e)| piece.slice(s, e)).collect()
    }

    /// The piece spelled in GPT-2's byte alphabet (after the prefix space), and its words as
    /// ranges of those characters.
    pub fn cut(&self, mut piece: NormalizedString) -> (NormalizedString, Vec<(usize, usize)>) {
        if self.add_prefix_space && piece.chars().first() != Some(&' ') {
            piece.prepend(' ');
        }
        let whole = if piece.is_empty() {
            Vec::new()
        } else {
            vec![(0, piece.len())]
        };
        self.cut_within(piece, whole)
    }

    /// [`Self::cut`] run on each of `ranges` (in order, not overlapping) of `piece` as a piece
    /// of its own, without the prefix space: the piece spelled in GPT-2's byte alphabet, and
    /// the words of the ranges as ranges of those characters. A [`super::pre_tokenizers`]
    /// `Sequence` that ends with ByteLevel uses it instead of one string per word.
    pub fn cut_within(
        &self,
        mut piece: NormalizedString,
        ranges: Vec<(usize, usize)>,
    ) -> (NormalizedString, Vec<(usize, usize)>) {
        let words = if self.use_regex {
            let mut words = Vec::with_capacity(ranges.len());
            for (s, e) in ranges {
                words.extend(
                    gpt2_words(&piece.chars()[s..e])
                        .into_iter()
                        .map(|(a, b)| (a + s, b + s)),
                );
            }
            words
        } else {
            ranges
        };
        // Each character becomes one per UTF-8 byte: move the ranges with them.
        let chars = piece.chars();
        let (mut read, mut spelled) = (0, 0);
        let mut advance = |to: usize| {
            spelled += chars[read..to].iter().map(|c| c.len_utf8()).sum::<usize>();
            read = to;
            spelled
        };
        let words: Vec<(usize, usize)> = words
            .into_iter()
            .map(|(s, e)| (advance(s), advance(e)))
            .collect();
        piece.spell_bytes(byte_chars());
        (piece, words)
    }
}

/// HF's `trim_offsets`: each token's offsets skip its leading and trailing `Ġ`s (one leading
/// space is kept on a sequence's first token when `add_prefix_space` added it).
pub fn trim_offsets<'a>(
    tokens: impl Iterator<Item = &'a str>,
    offsets: &mut [(usize, usize)],
    add_prefix_space: bool,
) {
    let space = byte_chars()[b' ' as usize];
    let is_space = |c: &char| *c == space || c.is_whitespace();
    for (i, (token, off)) in tokens.zip(offsets.iter_mut()).enumerate() {
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
    fn gpt2_words_agree_with_the_regex() {
        use crate::hf::regex_split::Split;
        use crate::hf::split::Behavior;
        let regex = Split::new(GPT2_REGEX, false, Behavior::Isolated, false).unwrap();
        for text in [
            "Hello  world's 42,  they'll\n\n  go!! \t",
            "  x\u{3000}\u{3000}y  ",
            "naïve café 東京 123abc ’s 'S 're'",
            "\n \n",
            "",
            " ",
            "a\u{a0} b\r\n",
        ] {
            let s = NormalizedString::new(text);
            assert_eq!(gpt2_words(s.chars()), regex.split(&s).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn trimming() {
        let tokens = ["Ġa".to_string(), "ĠĠ".to_string(), "bĠ".to_string()];
        let mut offsets = [(0, 2), (2, 4), (4, 6)];
        trim_offsets(tokens.iter().map(String::as_str), &mut offsets, false);
        assert_eq!(offsets, [(1, 2), (4, 4), (4, 5)]);
        let mut offsets = [(0, 2), (2, 4), (4, 6)];
        trim_offsets(tokens.iter().map(String::as_str), &mut offsets, true);
        assert_eq!(offsets[0], (0, 2));
    }
}
