//! NFC of a whole text for the ids-only path ([`super::fast_ids`]), with the Unicode 9 tables
//! HF's NFC normalizer uses (`unicode-normalization-alignments`), copying the text only when
//! composing changes it.
//!
//! A character of combining class 0 whose NFC quick check answers Yes ("stable") neither
//! combines with what comes before it nor moves past it, so NFC may cut the text before each
//! one and compose the parts apart. Nearly every character of real text is stable: the scan
//! skips, eight at a time, the bytes that cannot start a character at or above U+0300 (all
//! stable), looks each other character up in a bitmap of the Basic Multilingual
//! Plane, and composes only the short runs that start at the last stable character before an
//! unstable one.
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

/// Whether the code point `cp` is stable (see the module's documentation).
#[inline]
fn is_stable(cp: u32, bmp: &[u64]) -> bool {
    if cp < FIRST_MARK {
        return true;
    }
    match bmp.get(cp as usize / 64) {
        Some(word) => word >> (cp % 64) & 1 == 1,
        None => char::from_u32(cp).is_some_and(stable_in_tables),
    }
}

/// The code point that starts at byte `at` of `bytes` (UTF-8, `at` a character boundary)
/// and its length in bytes.
#[inline]
fn decode(bytes: &[u8], at: usize) -> (u32, usize) {
    let lead = u32::from(bytes[at]);
    let tail = |i: usize| bytes.get(at + i).map_or(0, |&b| u32::from(b & 0x3F));
    match lead {
        0..=0x7F => (lead, 1),
        0x80..=0xDF => ((lead & 0x1F) << 6 | tail(1), 2),
        0xE0..=0xEF => ((lead & 0x0F) << 12 | tail(1) << 6 | tail(2), 3),
        _ => (
            (lead & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3),
            4,
        ),
    }
}

/// The first lead byte of a character at or above U+0300 ([`FIRST_MARK`]): every byte below
/// it is ASCII, a continuation byte, or the lead byte of a stable character.
const FIRST_MARK_LEAD: u8 = 0xCC;

/// Bit 7 of each byte of the result is set when that byte of `word` is [`FIRST_MARK_LEAD`]
/// or above (no carry crosses a byte: the low seven bits plus 0x34 stay below 0x100).
#[inline]
fn mark_leads(word: u64) -> u64 {
    const LOW: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ADD: u64 = (0x80 - (FIRST_MARK_LEAD & 0x7F) as u64) * 0x0101_0101_0101_0101;
    word & ((word & LOW) + ADD) & HIGH
}

/// The position of the first character at or after byte `from` (a character boundary) that
/// is not stable, or the text's length.
#[inline]
fn next_unstable(bytes: &[u8], bmp: &[u64], mut from: usize) -> usize {
    // Eight bytes at a time: only a byte of FIRST_MARK_LEAD or above (always a lead byte, so
    // a window may start inside a character) needs a look at its character.
    while let Some(word) = bytes.get(from..from + 8) {
        let mut leads = mark_leads(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        while leads != 0 {
            let at = from + leads.trailing_zeros() as usize / 8;
            if !is_stable(decode(bytes, at).0, bmp) {
                return at;
            }
            leads &= leads - 1;
        }
        from += 8;
    }
    // The last bytes, past a character that may have run over the last window.
    while from < bytes.len() {
        if bytes[from] >= FIRST_MARK_LEAD {
            let (cp, len) = decode(bytes, from);
            if !is_stable(cp, bmp) {
                return from;
            }
            from += len;
        } else {
            from += 1;
        }
    }
    bytes.len()
}

/// The start of the character that ends at byte `at` (a character boundary after `floor`),
/// or `at` itself when `at` is `floor`.
#[inline]
fn previous_start(bytes: &[u8], floor: usize, at: usize) -> usize {
    let mut start = at;
    while start > floor {
        start -= 1;
        if bytes[start] & 0xC0 != 0x80 {
            break;
        }
    }
    start
}

/// `text` in NFC, as HF's `NFC` normalizer gives it; borrowed when it is in NFC already.
pub fn nfc(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let bmp = bmp_bits();
    let mut at = next_unstable(bytes, bmp, 0);
    let mut out: Option<String> = None;
    // Bytes of `text` already in `out`; end of the last run composed (the character
    // after it is stable).
    let (mut copied, mut run_end) = (0, 0);
    while at < bytes.len() {
        // The character before an unstable one (skipped, so stable) starts the run, which
        // ends before the next stable character.
        let start = previous_start(bytes, run_end, at);
        let mut end = at + decode(bytes, at).1;
        while end < bytes.len() {
            let (next, len) = decode(bytes, end);
            if is_stable(next, bmp) {
                break;
            }
            end += len;
        }
        let run = &text[start..end];
        let composed = || run.nfc().map(|(c, _)| c);
        // The quick check settles most runs (a letter and a virama, say) without composing.
        let known = is_nfc_quick(run.chars()) == IsNormalized::Yes;
        if !known && !composed().eq(run.chars()) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..start]);
            out.extend(composed());
            copied = end;
        }
        run_end = end;
        at = next_unstable(bytes, bmp, end);
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

        #[test]
        fn any_text_composes_as_a_whole(
            text in "([a-z ]{0,40}|\\PC|[\u{300}-\u{36f}\u{1100}-\u{11ff}\u{ac00}\u{e9}]){0,40}"
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
            if !is_stable(cp, bmp) {
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
