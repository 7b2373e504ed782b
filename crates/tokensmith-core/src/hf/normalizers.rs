//! Normalizers: BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip,
//! Prepend, Replace (a literal pattern), Precompiled, ByteLevel, Nmt and Sequence.
//!
//! Each rewrites a [`NormalizedString`] in place, so every normalized character keeps the
//! span of original characters it came from.
//!
//! ```
//! use tokensmith_core::hf::normalizers::{BertNormalizer, Normalizer};
//! use tokensmith_core::hf::NormalizedString;
//! let mut s = NormalizedString::new("Héllo\u{4e2d}");
//! Normalizer::Bert(BertNormalizer::default()).normalize(&mut s).unwrap();
//! assert_eq!(s.text(), "hello \u{4e2d} ");
//! ```
//!
//! Decompositions use the Unicode 9.0 tables of `unicode-normalization-alignments`, as HF
//! does, so characters added since (U+32FF, for one) are left alone exactly as HF leaves them.
//!
//! NFC, NFKC and Precompiled align their output with HF's `(char, change)` rule
//! ([`super::transform`]).
//!
//! Replace with a regex runs it as the Split pre-tokenizer does (`fancy-regex`, with
//! Oniguruma's repeat syntax rewritten).

use super::byte_level::byte_chars;
use super::char_props::{is_mark, is_mark_nonspacing, is_other};
use super::precompiled::Precompiled;
use super::regex_split::Split;
use super::transform::{compose, replace_ranges};
use super::NormalizedString;
use crate::error::{Error, Result};
use crate::limits::{self, Limit, NORMALIZED_SLACK};
use unicode_normalization_alignments::char::{canonical_combining_class, decompose_canonical};

/// BERT's cleaning, CJK spacing, accent stripping and lowercasing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BertNormalizer {
    /// Drop NUL, U+FFFD and control/format/unassigned/private-use characters; turn every
    /// whitespace character into `' '`.
    pub clean_text: bool,
    /// Put a space on each side of a CJK ideograph so that it becomes a word of its own.
    pub handle_chinese_chars: bool,
    /// NFD, then drop nonspacing marks. `None` follows `lowercase`, as in HF.
    pub strip_accents: Option<bool>,
    /// Lowercase every character.
    pub lowercase: bool,
}

impl Default for BertNormalizer {
    fn default() -> Self {
        Self {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: None,
            lowercase: true,
        }
    }
}

/// `\t`, `\n`, `\r` and Unicode White_Space.
pub(super) fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Categories Cc, Cf, Cn, Co, except the three whitespace controls.
pub(super) fn is_bert_control(c: char) -> bool {
    if c.is_ascii() {
        // The only ASCII characters of category C are the controls.
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    is_other(c)
}

/// The CJK Unified Ideographs blocks and their extensions and compatibility blocks.
pub fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

impl BertNormalizer {
    /// Whether accents are stripped: `strip_accents`, or `lowercase` when it is `None`.
    pub fn strips_accents(&self) -> bool {
        self.strip_accents.unwrap_or(self.lowercase)
    }

    /// What `clean_text` makes of `c`: nothing, a space, or `c` itself.
    fn cleaned(&self, c: char) -> Option<char> {
        if !self.clean_text {
            Some(c)
        } else if c == '\0' || c == '\u{fffd}' || is_bert_control(c) {
            None
        } else if is_bert_whitespace(c) {
            Some(' ')
        } else {
            Some(c)
        }
    }

    /// Hands `emit` what the normalizer makes of `c` on its own (cleaned, spaced out as a
    /// CJK ideograph, decomposed without its nonspacing marks, lowercased), as
    /// [`Normalizer::normalize`] makes it in a text; or returns `false` when `c` decomposes
    /// to a kept mark of nonzero combining class, which the whole-text step may reorder
    /// across characters (then what was emitted is not the answer).
    pub(super) fn normalize_char(&self, c: char, mut emit: impl FnMut(char)) -> bool {
        let Some(c) = self.cleaned(c) else {
            return true;
        };
        let spaced = self.handle_chinese_chars && is_chinese_char(c);
        if spaced {
            emit(' ');
        }
        let mut kept = true;
        let mut finish = |d: char| {
            if self.lowercase {
                d.to_lowercase().for_each(&mut emit);
            } else {
                emit(d);
            }
        };
        if self.strips_accents() && !c.is_ascii() {
            decompose_canonical(c, |d| {
                if is_mark_nonspacing(d) {
                    return;
                }
                if d >= '\u{300}' && canonical_combining_class(d) != 0 {
                    kept = false;
                }
                finish(d);
            });
        } else {
            finish(c);
        }
        if spaced {
            emit(' ');
        }
        kept
    }

    fn normalize(&self, s: &mut NormalizedString) {
        if self.clean_text {
            s.filter(|c| self.cleaned(c).is_some());
            s.map_each(|c| self.cleaned(c).unwrap_or(c));
        }
        // ASCII text has no CJK ideographs, nothing to decompose and no marks.
        let ascii = s.is_ascii();
        if self.handle_chinese_chars && !ascii && s.chars().iter().any(|&c| is_chinese_char(c)) {
            s.expand(|c, out| {
                if is_chinese_char(c) {
                    out.extend([' ', c, ' ']);
                } else {
                    out.push(c);
                }
            });
        }
        if self.strips_accents() && !ascii {
            strip_accents(s);
        }
        if self.lowercase {
            if ascii {
                s.map_each(|c| c.to_ascii_lowercase());
            } else {
                lowercase(s);
            }
        }
    }
}

fn decompose(s: &mut NormalizedString, compatible: bool) {
    use unicode_normalization::{is_nfd_quick, is_nfkd_quick, IsNormalized};
    use unicode_normalization_alignments::char::decompose_compatible;
    // Text the quick check finds decomposed is left as it is. The check's tables are newer
    // than HF's, but Unicode never takes a decomposition or a combining class back, so a
    // text with nothing to decompose or reorder today had nothing under the older tables.
    let chars = s.chars().iter().copied();
    let done = if compatible {
        is_nfkd_quick(chars)
    } else {
        is_nfd_quick(chars)
    };
    if done == IsNormalized::Yes {
        return;
    }
    s.expand(|c, out| {
        if c.is_ascii() {
            out.push(c);
        } else if compatible {
            decompose_compatible(c, |d| out.push(d));
        } else {
            decompose_canonical(c, |d| out.push(d));
        }
    });
    s.canonical_reorder();
}

fn strip_accents(s: &mut NormalizedString) {
    decompose(s, false);
    s.filter(|c| !is_mark_nonspacing(c));
}

fn lowercase(s: &mut NormalizedString) {
    // Only a few characters (İ) lowercase to more than one: the others change in place.
    if s.chars()
        .iter()
        .all(|&c| c.is_ascii() || c.to_lowercase().len() == 1)
    {
        s.map_each(|c| match c {
            'A'..='Z' => c.to_ascii_lowercase(),
            _ if c.is_ascii() => c,
            _ => c.to_lowercase().next().unwrap_or(c),
        });
    } else {
        s.expand(|c, out| out.extend(c.to_lowercase()));
    }
}

/// One normalizer of a `tokenizer.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Normalizer {
    Bert(BertNormalizer),
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
    Lowercase,
    /// Drops every combining mark (Mn, Mc and Me), without decomposing first. (The
    /// BertNormalizer's `strip_accents` drops only Mn, after NFD: HF differs there too.)
    StripAccents,
    /// Removes leading and/or trailing whitespace.
    Strip {
        left: bool,
        right: bool,
    },
    /// Puts the text before a non-empty string (every character with the span of the first).
    Prepend(String),
    /// Replaces every occurrence of a literal `pattern` (non-overlapping, left to right).
    Replace {
        pattern: String,
        content: String,
    },
    /// Replaces every match of a regex (the `Split` whose kept pieces are the matches).
    ReplaceRegex {
        matches: Box<Split>,
        content: String,
    },
    /// A SentencePiece charsmap.
    Precompiled(Box<Precompiled>),
    /// Every character becomes its UTF-8 bytes in GPT-2's printable alphabet, each with the
    /// character's span.
    ByteLevel,
    /// The cleaning of SentencePiece's `nmt_nfkc` rules without the NFKC: drops the C0
    /// controls other than `\t`, `\n`, `\r` and form feed (and DEL, U+008F, U+009F), and
    /// turns those four and a fixed set of invisible or space-like characters into `' '`.
    Nmt,
    Sequence(Vec<Normalizer>),
}

/// Dropped by [`Normalizer::Nmt`].
fn is_nmt_dropped(c: char) -> bool {
    matches!(c as u32, 0x01..=0x08 | 0x0B | 0x0E..=0x1F | 0x7F | 0x8F | 0x9F)
}

/// Turned into a space by [`Normalizer::Nmt`] (U+2581 too, so that a literal `▁` in the
/// input is read as the space it stands for).
fn is_nmt_space(c: char) -> bool {
    matches!(
        c as u32,
        0x09 | 0x0A | 0x0C | 0x0D | 0x1680 | 0x200B
            ..=0x200F | 0x2028 | 0x2029 | 0x2581 | 0xFEFF | 0xFFFD
    )
}

fn nmt(s: &mut NormalizedString) {
    s.filter(|c| !is_nmt_dropped(c));
    s.map_each(|c| if is_nmt_space(c) { ' ' } else { c });
}

impl Normalizer {
    /// Normalizes `s` in place. The text may grow to [`limits::max_normalized_len`] of its
    /// length; a normalizer that would pass it (say, chained `Replace`s that each multiply
    /// it) fails before allocating.
    pub fn normalize(&self, s: &mut NormalizedString) -> Result<()> {
        let input = s.len();
        self.normalize_within(s, input, limits::max_normalized_len(input))
    }

    fn normalize_within(&self, s: &mut NormalizedString, input: usize, budget: u64) -> Result<()> {
        match self {
            Normalizer::Bert(bert) => bert.normalize(s),
            Normalizer::Nfc => compose(s, false),
            Normalizer::Nfd => decompose(s, false),
            Normalizer::Nfkc => compose(s, true),
            Normalizer::Nfkd => decompose(s, true),
            Normalizer::Lowercase => lowercase(s),
            Normalizer::StripAccents => s.filter(|c| !is_mark(c)),
            Normalizer::Strip { left, right } => s.strip(*left, *right),
            Normalizer::Prepend(text) => text.chars().rev().for_each(|c| s.prepend(c)),
            Normalizer::Replace { pattern, content } => {
                let grown = s.replaced_len(pattern, content.chars().count());
                check_growth(grown as u64, input, budget)?;
                s.replace_literal(pattern, content)
            }
            Normalizer::ReplaceRegex { matches, content } => {
                let found: Vec<(usize, usize)> = matches
                    .split(s)?
                    .into_iter()
                    .filter(|(a, b)| b > a)
                    .collect();
                let removed: usize = found.iter().map(|(a, b)| b - a).sum();
                let added = (found.len() as u64).saturating_mul(content.chars().count() as u64);
                check_growth(
                    ((s.len() - removed) as u64).saturating_add(added),
                    input,
                    budget,
                )?;
                if !found.is_empty() {
                    replace_ranges(s, &found, content);
                }
            }
            Normalizer::Precompiled(p) => p.normalize(s),
            Normalizer::ByteLevel => s.spell_bytes(byte_chars()),
            Normalizer::Nmt => nmt(s),
            Normalizer::Sequence(all) => {
                for n in all {
                    n.normalize_within(s, input, budget)?;
                }
            }
        }
        // The other normalizers grow a text by a bounded factor; checked after each.
        check_growth(s.len() as u64, input, budget)
    }
}

/// `Ok` when a normalized text of `len` characters (from `input` characters) is in `budget`.
fn check_growth(len: u64, input: usize, budget: u64) -> Result<()> {
    if len <= budget {
        return Ok(());
    }
    Err(Error::Limit {
        limit: Limit::MaxNormalizedGrowth.name(),
        what: format!(
            "the normalizer would grow a {input}-character input to {len} characters (up to \
             {}x + {NORMALIZED_SLACK} allowed): its growth factor",
            Limit::MaxNormalizedGrowth.get()
        ),
        value: len / (input.max(1) as u64),
        max: Limit::MaxNormalizedGrowth.get(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: &Normalizer, text: &str) -> NormalizedString {
        let mut s = NormalizedString::new(text);
        n.normalize(&mut s).unwrap();
        s
    }

    #[test]
    fn llama_prepend_and_replace() {
        let n = Normalizer::Sequence(vec![
            Normalizer::Prepend("▁".into()),
            Normalizer::Replace {
                pattern: " ".into(),
                content: "▁".into(),
            },
        ]);
        let s = run(&n, "a b");
        assert_eq!(s.text(), "▁a▁b");
        assert_eq!(s.original_span(0, 2), (0, 1));
        assert_eq!(s.original_span(2, 3), (1, 2));
        assert!(run(&n, "").is_empty());
        // New characters take the span of the last character they replace.
        let r = Normalizer::Replace {
            pattern: "bc".into(),
            content: "XYZ".into(),
        };
        let s = run(&r, "abcd");
        assert_eq!(s.text(), "aXYZd");
        assert_eq!(s.original_span(1, 4), (2, 3));
    }

    #[test]
    fn bert_uncased() {
        let n = Normalizer::Bert(BertNormalizer::default());
        let s = run(&n, "A\u{0}\tÉcole\u{200b}中");
        assert_eq!(s.text(), "a ecole 中 ");
        // "e" of "ecole" comes from "É" at original char 3.
        assert_eq!(s.original_span(2, 3), (3, 4));
        assert_eq!(s.original_span(8, 9), (9, 10));
    }

    #[test]
    fn bert_cased_keeps_accents() {
        let n = Normalizer::Bert(BertNormalizer {
            lowercase: false,
            ..BertNormalizer::default()
        });
        assert_eq!(run(&n, "École\r\n").text(), "École  ");
    }

    #[test]
    fn lowercase_expanding_char_keeps_span() {
        let s = run(&Normalizer::Lowercase, "İx");
        assert_eq!(s.text(), "i\u{307}x");
        assert_eq!(s.original_span(0, 2), (0, 1));
    }

    #[test]
    fn sequence_nfd_strip() {
        let n = Normalizer::Sequence(vec![Normalizer::Nfd, Normalizer::StripAccents]);
        assert_eq!(run(&n, "ñá").text(), "na");
        // U+09BF is a spacing mark (Mc): StripAccents removes it, strip_accents keeps it.
        assert_eq!(run(&Normalizer::StripAccents, "ন\u{9bf}").text(), "ন");
        let bert = Normalizer::Bert(BertNormalizer {
            strip_accents: Some(true),
            ..BertNormalizer::default()
        });
        assert_eq!(run(&bert, "ন\u{9bf}").text(), "ন\u{9bf}");
        assert_eq!(run(&Normalizer::Nfkd, "ﬁ").text(), "fi");
    }

    #[test]
    fn replace_regex() {
        use super::super::split::Behavior;
        let n = Normalizer::ReplaceRegex {
            matches: Box::new(Split::new(" {2,}", false, Behavior::Removed, true).unwrap()),
            content: "▁".into(),
        };
        let s = run(&n, "a  b c   d");
        assert_eq!(s.text(), "a▁b c▁d");
        assert_eq!(s.original_span(1, 2), (2, 3));
        assert_eq!(s.original_span(5, 6), (8, 9));
    }

    #[test]
    fn nmt_drops_controls_and_spaces_invisibles() {
        let s = run(&Normalizer::Nmt, "a\u{1}\tb\u{200b}c\u{0}\u{3000}");
        // NUL and U+3000 are left alone, as in HF.
        assert_eq!(s.text(), "a b c\u{0}\u{3000}");
        assert_eq!(s.original_span(1, 2), (2, 3));
        assert_eq!(s.original_span(3, 4), (4, 5));
    }

    #[test]
    fn byte_level_spells_bytes() {
        let s = run(&Normalizer::ByteLevel, "a é");
        assert_eq!(s.text(), "aĠÃ©");
        assert_eq!(s.original_span(2, 4), (2, 3));
    }
}
