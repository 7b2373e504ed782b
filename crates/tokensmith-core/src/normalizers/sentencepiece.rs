//! SentencePiece's normalizer: the charsmap, then whitespace handling.
//!
//! Facts from sentencepiece's `normalizer.cc`, applied in this order:
//! 1. with `remove_extra_whitespaces`, leading characters that normalize to exactly `" "` are
//!    dropped (and text that is only whitespace becomes empty);
//! 2. with `add_dummy_prefix`, a space is put in front (behind, with
//!    `treat_whitespace_as_suffix`, after step 4);
//! 3. each prefix is replaced by its longest charsmap rule (or kept), leading spaces of a
//!    replacement are dropped after a space, and spaces become `▁` with `escape_whitespaces`;
//! 4. with `remove_extra_whitespaces`, trailing spaces are dropped.
//!
//! >>> "  Hello   world " -> "▁Hello▁world" (defaults, identity charsmap)
//!
//! User-defined symbols (longest match first) are copied without normalization.
//!
//! [`SentencePieceNormalizer::normalize_with_offsets`] also maps each normalized byte back to
//! the input, as sentencepiece's `norm_to_orig`.

use super::origins::{NoOrigins, OriginMap};
use super::plain_chars::PlainChars;
use super::plain_copy::Spaces;
use super::precompiled::PrecompiledCharsMap;
use crate::error::Result;
use crate::formats::sentencepiece_model::NormalizerSpec;
use crate::models::unigram::PieceTrie;

/// The whitespace marker sentencepiece writes for a space.
pub const SPACE_SYMBOL: &str = "\u{2581}";
/// The same marker as a `char`, and as its UTF-8 bytes.
const SPACE_MARK: char = '\u{2581}';
const MARK_BYTES: [u8; 3] = [0xe2, 0x96, 0x81];

/// A normalizer built from a `NormalizerSpec`.
#[derive(Debug, Clone)]
pub struct SentencePieceNormalizer {
    charsmap: Option<PrecompiledCharsMap>,
    /// User-defined symbols, which are copied without normalization.
    user_defined: Option<PieceTrie>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
    /// Which characters are copied as they are, without a lookup.
    plain: PlainChars,
    /// How the fast path writes spaces.
    spaces: Spaces,
}

impl SentencePieceNormalizer {
    /// `user_defined` lists the model's user-defined symbols.
    pub fn new(
        spec: &NormalizerSpec,
        treat_whitespace_as_suffix: bool,
        user_defined: &[&str],
    ) -> Result<Self> {
        // An empty charsmap means identity, whatever the spec's name says.
        let charsmap = if spec.precompiled_charsmap.is_empty() {
            None
        } else {
            Some(PrecompiledCharsMap::parse(&spec.precompiled_charsmap)?)
        };
        let user_defined = (!user_defined.is_empty()).then(|| {
            let mut trie = PieceTrie::new();
            for (i, symbol) in user_defined.iter().enumerate() {
                trie.insert(symbol.as_bytes(), i as u32);
            }
            trie
        });
        let plain = PlainChars::new(charsmap.as_ref(), user_defined.as_ref());
        let mark = if spec.escape_whitespaces {
            SPACE_SYMBOL
        } else {
            " "
        };
        Ok(Self {
            plain,
            spaces: Spaces::new(mark, spec.remove_extra_whitespaces),
            charsmap,
            user_defined,
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            escape_whitespaces: spec.escape_whitespaces,
            treat_whitespace_as_suffix,
        })
    }

    /// The normalized form of the longest prefix with a rule, or of the first character.
    fn normalize_prefix<'a>(&'a self, input: &'a str) -> (&'a str, usize) {
        if let Some(len) = self
            .user_defined
            .as_ref()
            .and_then(|t| t.longest_prefix(input.as_bytes()))
        {
            return (&input[..len], len);
        }
        if let Some((replacement, len)) = self
            .charsmap
            .as_ref()
            .and_then(|map| map.longest_match(input.as_bytes()))
            .filter(|&(_, len)| input.is_char_boundary(len))
        {
            return (replacement, len);
        }
        let len = input.chars().next().map_or(0, char::len_utf8);
        (&input[..len], len)
    }

    /// What a space is written as: the mark, or itself when whitespace is not escaped.
    #[inline(always)]
    fn space_char(&self) -> char {
        if self.escape_whitespaces {
            SPACE_MARK
        } else {
            ' '
        }
    }

    /// Whether `text` ends with what a space is written as (compared as bytes: a call to
    /// compare three bytes cost as much as the rest of normalizing a short text).
    #[inline(always)]
    fn ends_with_space(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        if self.escape_whitespaces {
            bytes.last_chunk::<3>() == Some(&MARK_BYTES)
        } else {
            bytes.last() == Some(&b' ')
        }
    }

    /// Normalizes `input` the way `sentencepiece::normalizer::Normalizer::Normalize` does.
    pub fn normalize(&self, input: &str) -> String {
        // The fast copy reserves what it needs itself.
        let mut text = String::with_capacity(input.len() + 3);
        self.normalize_to(input, &mut text);
        text
    }

    /// Writes the normalized form of `input` into `text` (cleared first), so that a caller
    /// encoding many short texts can keep one buffer.
    ///
    /// The same steps as [`Self::normalize_with_offsets`] without the offsets: the fast path
    /// writes straight into `text`, and only a character that takes the charsmap lookup goes
    /// through the general output (a short text otherwise costs more in fixed steps than in
    /// copying).
    ///
    /// Leading whitespace is not trimmed first here (it is, when the mark goes last): with
    /// extra whitespace removed, the loop starts as after a space, so every leading character
    /// that normalizes to spaces writes nothing, and text that is only whitespace is left as
    /// at most the dummy prefix's mark, which the trailing trim takes off.
    pub fn normalize_to(&self, input: &str, text: &mut String) {
        text.clear();
        let mut input = if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            self.trim_start(input)
        } else {
            input
        };
        if input.is_empty() {
            return;
        }
        let mark = self.space_char();
        if !self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            text.push(mark);
        }
        let mut is_prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let copied = self.plain.copy_text(
                input,
                self.charsmap.as_ref(),
                &self.spaces,
                text,
                &mut is_prev_space,
                &mut NoOrigins,
            );
            if copied > 0 {
                input = &input[copied..];
                continue;
            }
            let mut out = Normalized {
                text: std::mem::take(text),
                to_orig: None,
            };
            let consumed = self.lookup_step(input, 0, &mut out, &mut is_prev_space);
            *text = out.text;
            input = &input[consumed..];
        }
        if self.remove_extra_whitespaces {
            while self.ends_with_space(text) {
                text.truncate(text.len() - mark.len_utf8());
            }
        }
        if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            text.push(mark);
        }
    }

    /// The normalized text and, for each of its bytes and one past its end, the byte offset in
    /// `input` it comes from (sentencepiece's `norm_to_orig`: every byte of a replacement maps
    /// to the start of what it replaces; the end maps to where the consumed input stops).
    ///
    /// ```
    /// use tokensmith_core::formats::sentencepiece_model::NormalizerSpec;
    /// use tokensmith_core::normalizers::sentencepiece::SentencePieceNormalizer;
    /// let spec = NormalizerSpec { name: "identity".into(), ..NormalizerSpec::default() };
    /// let n = SentencePieceNormalizer::new(&spec, false, &[]).unwrap();
    /// let (text, to_orig) = n.normalize_with_offsets(" ab  c ");
    /// assert_eq!(text, "▁ab▁c");
    /// assert_eq!(to_orig, [1, 1, 1, 1, 2, 3, 3, 3, 5, 6]);
    /// ```
    pub fn normalize_with_offsets(&self, input: &str) -> (String, Vec<usize>) {
        let mut out = Normalized {
            text: String::with_capacity(input.len() + 3),
            to_orig: Some(Vec::with_capacity(input.len() + 4)),
        };
        self.normalize_into(input, &mut out);
        (out.text, out.to_orig.unwrap_or_default())
    }

    /// The fast copy ([`PlainChars::copy_text`]) of `input`, at byte `at` of the whole input,
    /// into `out` with the offsets map when it has one. Returns the bytes consumed.
    fn copy_traced(
        &self,
        input: &str,
        at: usize,
        out: &mut Normalized,
        is_prev_space: &mut bool,
    ) -> usize {
        let (charsmap, spaces) = (self.charsmap.as_ref(), &self.spaces);
        let Some(map) = &mut out.to_orig else {
            let text = &mut out.text;
            return self.plain.copy_text(
                input,
                charsmap,
                spaces,
                text,
                is_prev_space,
                &mut NoOrigins,
            );
        };
        let base = out.text.len();
        let mut origins = OriginMap { map, base, at };
        let copied = self.plain.copy_text(
            input,
            charsmap,
            spaces,
            &mut out.text,
            is_prev_space,
            &mut origins,
        );
        origins.map.truncate(out.text.len());
        copied
    }

    /// `input` without the leading characters that normalize to exactly `" "`, when extra
    /// whitespace is removed.
    #[inline(always)]
    fn trim_start<'a>(&self, mut input: &'a str) -> &'a str {
        if self.remove_extra_whitespaces {
            if self.plain.space {
                // Spaces no rule starts with normalize to themselves.
                let spaces = input.bytes().take_while(|&b| b == b' ').count();
                input = &input[spaces..];
            }
            // A first character that normalizes to itself is no space: no lookup needed.
            while !input.is_empty()
                && self
                    .plain
                    .char_len(input.as_bytes(), self.charsmap.as_ref())
                    == 0
            {
                let (normalized, consumed) = self.normalize_prefix(input);
                if normalized != " " {
                    break;
                }
                input = &input[consumed..];
            }
        }
        input
    }

    /// Writes the normalized form of the longest charsmap rule (or the character) at the
    /// start of `input` (at byte `at` of the whole input), with sentencepiece's whitespace
    /// handling; returns the bytes consumed. `is_prev_space` follows along.
    fn lookup_step(
        &self,
        input: &str,
        at: usize,
        out: &mut Normalized,
        is_prev_space: &mut bool,
    ) -> usize {
        let (normalized, consumed) = self.normalize_prefix(input);
        let mut piece = normalized;
        while *is_prev_space && piece.starts_with(' ') {
            piece = &piece[1..];
        }
        if !piece.is_empty() && !piece.as_bytes().contains(&b' ') {
            out.push(piece, at);
            *is_prev_space = false;
        } else if !piece.is_empty() {
            for part in piece.split_inclusive(' ') {
                match part.strip_suffix(' ') {
                    Some(text) => {
                        out.push(text, at);
                        out.push_char(self.space_char(), at);
                    }
                    None => out.push(part, at),
                }
            }
            *is_prev_space = piece.ends_with(' ');
        }
        if !self.remove_extra_whitespaces {
            *is_prev_space = false;
        }
        consumed
    }

    /// [`Self::normalize_to`] with the offsets map (`out.to_orig`).
    fn normalize_into(&self, whole: &str, out: &mut Normalized) {
        let mut input = self.trim_start(whole);
        if input.is_empty() {
            return;
        }
        let offset_of = |rest: &str| whole.len() - rest.len();
        let mark = self.space_char();
        if !self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.push_char(mark, offset_of(input));
        }
        let mut is_prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let at = offset_of(input);
            let copied = self.copy_traced(input, at, out, &mut is_prev_space);
            if copied > 0 {
                input = &input[copied..];
                continue;
            }
            let consumed = self.lookup_step(input, at, out, &mut is_prev_space);
            input = &input[consumed..];
        }
        let mut end = whole.len();
        if self.remove_extra_whitespaces {
            while self.ends_with_space(&out.text) {
                let length = out.text.len() - mark.len_utf8();
                if let Some(map) = &mut out.to_orig {
                    end = map[length];
                    map.truncate(length);
                }
                out.text.truncate(length);
            }
        }
        if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.push_char(mark, end);
        }
        if let Some(map) = &mut out.to_orig {
            map.push(end);
        }
    }
}

/// The normalizer's output, with the offsets map when asked for.
struct Normalized {
    text: String,
    to_orig: Option<Vec<usize>>,
}

impl Normalized {
    /// Appends `s`, every byte of it coming from input offset `at`.
    fn push(&mut self, s: &str, at: usize) {
        self.text.push_str(s);
        if let Some(map) = &mut self.to_orig {
            map.extend(std::iter::repeat_n(at, s.len()));
        }
    }

    /// Appends `c`, every byte of it coming from input offset `at`: the space mark, written
    /// without a call to copy it.
    #[inline(always)]
    fn push_char(&mut self, c: char, at: usize) {
        self.text.push(c);
        if let Some(map) = &mut self.to_orig {
            map.extend(std::iter::repeat_n(at, c.len_utf8()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> SentencePieceNormalizer {
        let spec = NormalizerSpec {
            name: "identity".into(),
            ..NormalizerSpec::default()
        };
        SentencePieceNormalizer::new(&spec, false, &[]).unwrap()
    }

    #[test]
    fn whitespace_rules() {
        let n = identity();
        assert_eq!(n.normalize("  Hello   world "), "▁Hello▁world");
        assert_eq!(n.normalize("   "), "");
        assert_eq!(n.normalize(""), "");
        assert_eq!(n.normalize("a\tb"), "▁a\tb");
    }

    #[test]
    fn user_defined_symbols_are_kept_verbatim() {
        let spec = NormalizerSpec::default();
        let n = SentencePieceNormalizer::new(&spec, false, &["a  b"]).unwrap();
        assert_eq!(n.normalize("a  b  c"), "▁a▁▁b▁c");
    }

    #[test]
    fn suffix_mode_puts_the_space_last() {
        let spec = NormalizerSpec::default();
        let n = SentencePieceNormalizer::new(&spec, true, &[]).unwrap();
        assert_eq!(n.normalize(" a b "), "a▁b▁");
    }
}

#[cfg(test)]
#[path = "sentencepiece_reference_tests.rs"]
mod reference_tests;

#[cfg(test)]
#[path = "plain_copy_tests.rs"]
mod plain_copy_tests;
