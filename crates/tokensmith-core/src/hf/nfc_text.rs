//! NFC of a whole text for the ids-only path ([`super::fast_ids`]), with the Unicode 9 tables
//! HF's NFC normalizer uses (`unicode-normalization-alignments`), copying the text only when
//! composing changes it.
//!
//! A character of combining class 0 whose NFC quick check answers Yes ("stable") neither
//! combines with what comes before it nor moves past it, so NFC may cut the text before each
//! one and compose the parts apart. Nearly every character of real text is stable: the scan
//! looks each one up in a bitmap of the Basic Multilingual Plane, and composes only the short
//! runs that start at the last stable character before an unstable one.
//!
//! ```
//! use tokensmith_core::hf::nfc_text::nfc;
//! assert_eq!(nfc("cafe\u{301} 東京"), "café 東京");
//! assert!(matches!(nfc("café 東京"), std::borrow::Cow::Borrowed(_)));
//! ```
//!
//! What it does not do: track where each character came from (the character pipeline's
//! NFC in [`super::transform`] does).

use std::borrow::Cow;
use std::sync::OnceLock;
use unicode_normalization_alignments::char::canonical_combining_class;
use unicode_normalization_alignments::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Every character below U+0300 is stable (the combining marks start there).
const FIRST_MARK: u32 = 0x300;

/// Whether `c` is stable (see the module's documentation), from the tables themselves.
fn stable_in_tables(c: char) -> bool {
    canonical_combining_class(c) == 0 && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
}

/// One bit per code point of the Basic Multilingual Plane: set when it is stable.
fn bmp_bits() -> &'static [u64] {
    static BITS: OnceLock<Vec<u64>> = OnceLock::new();
    BITS.get_or_init(|| {
        let mut bits = vec![0u64; 0x10000 / 64];
        for cp in 0..0x10000u32 {
            if char::from_u32(cp).is_some_and(stable_in_tables) {
                bits[cp as usize / 64] |= 1 << (cp % 64);
            }
        }
        bits
    })
}

/// Whether `c` is stable (see the module's documentation).
#[inline]
fn is_stable(c: char, bmp: &[u64]) -> bool {
    let cp = c as u32;
    if cp < FIRST_MARK {
        return true;
    }
    match bmp.get(cp as usize / 64) {
        Some(word) => word >> (cp % 64) & 1 == 1,
        None => stable_in_tables(c),
    }
}

/// The character that starts at byte `at` of `text` (a character boundary).
#[inline]
fn char_at(text: &str, at: usize) -> char {
    text[at..].chars().next().unwrap_or_default()
}

/// `text` in NFC, as HF's `NFC` normalizer gives it; borrowed when it is in NFC already.
pub fn nfc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let bmp = bmp_bits();
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Bytes of `text` already in `out`; start of the last stable character seen.
    let (mut copied, mut stable_at) = (0, 0);
    let mut at = 0;
    while at < bytes.len() {
        // Eight ASCII bytes at a time: each is a stable character.
        if let Some(word) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            if word & 0x8080_8080_8080_8080 == 0 {
                stable_at = at + 7;
                at += 8;
                continue;
            }
        }
        let c = char_at(text, at);
        if is_stable(c, bmp) {
            stable_at = at;
            at += c.len_utf8();
            continue;
        }
        // The run to compose ends before the next stable character.
        let mut end = at + c.len_utf8();
        while end < bytes.len() {
            let next = char_at(text, end);
            if is_stable(next, bmp) {
                break;
            }
            end += next.len_utf8();
        }
        let run = &text[stable_at..end];
        let composed = || run.nfc().map(|(c, _)| c);
        if !composed().eq(run.chars()) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..stable_at]);
            out.extend(composed());
            copied = end;
        }
        at = end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_mix_of_starters_and_marks_composes_as_a_whole(
            text in "[ae\u{1100}\u{1161}\u{11a8}\u{ac00}\u{928}\u{93c}\u{301}\u{300}\u{327}\u{308}\u{1df9}\u{3099}\u{304b}\u{f900}\u{e9}\u{1e0b}\u{323}\u{1d15e}\u{1d165} ]{0,16}"
        ) {
            prop_assert_eq!(nfc(&text), whole(&text));
        }
    }

    fn whole(text: &str) -> String {
        text.nfc().map(|(c, _)| c).collect()
    }

    #[test]
    fn equals_composing_the_whole_text() {
        // Marks out of order, Hangul jamo, a composition excluded, Devanagari nukta, a mark
        // of Unicode 10 (combining class 0 in Unicode 9's tables), marks at the start.
        let texts = [
            "\u{301}a\u{301}\u{327} x",
            "e\u{301}\u{300}o\u{308}\u{304}",
            "\u{1100}\u{1161}\u{11a8} \u{ac00}\u{11a8}",
            "\u{928}\u{93c} \u{915}\u{93c}",
            "a\u{1df9}\u{301}",
            "\u{f900}\u{2126}",
            "東京\u{3099}か\u{3099}",
            "plain ascii",
            "",
        ];
        for text in texts {
            assert_eq!(nfc(text), whole(text), "{text:?}");
        }
    }

    #[test]
    fn no_stable_character_composes_with_what_comes_before() {
        // A stable character followed by one that may combine backwards; each preceded by
        // starters that begin compositions.
        let before = ["a", "\u{1100}", "\u{ac00}", "\u{928}", "\u{3046}", "\u{cc}"];
        let bmp = bmp_bits();
        for cp in 0..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            if !is_stable(c, bmp) {
                continue;
            }
            for b in before {
                let text = format!("{b}{c}\u{301}");
                assert_eq!(nfc(&text), whole(&text), "U+{cp:04X} after {b:?}");
            }
        }
    }

    #[test]
    fn text_in_nfc_is_borrowed() {
        assert!(matches!(nfc("ça,東京, नमस्ते"), Cow::Borrowed(_)));
        assert!(matches!(nfc("c\u{327}a"), Cow::Owned(_)));
    }
}
