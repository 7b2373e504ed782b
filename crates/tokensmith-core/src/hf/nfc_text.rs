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

/// Words of [`Tables::stable`]: one bit per code point of the Basic Multilingual Plane.
const BMP_WORDS: usize = 0x10000 / 64;

/// Whether `c` is stable (see the module's documentation), from the tables themselves.
fn stable_in_tables(c: char) -> bool {
    canonical_combining_class(c) == 0 && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
}

/// The Unicode 9 properties the scan reads, for the Basic Multilingual Plane.
struct Tables {
    /// One bit per code point, set when it is stable; word `cp / 64` holds the 64 code
    /// points that share their UTF-8 bytes but the last.
    stable: Box<[u64; BMP_WORDS]>,
    /// Bit `lead & 0x0F` is set when every code point of the three-byte lead byte `lead`
    /// (4,096 of them, from `(lead & 0x0F) << 12`) is stable (the CJK ideographs).
    stable_leads: u16,
    /// Per code point: its combining class when that is not 0 and its NFC quick check
    /// answers Yes (a mark that composes with nothing before it, such as a virama), else 0.
    plain_marks: Box<[u8]>,
}

/// The tables, built from `unicode-normalization-alignments` on first use.
fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut stable = Box::new([0u64; BMP_WORDS]);
        let mut plain_marks = vec![0u8; 0x10000].into_boxed_slice();
        for cp in 0..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let class = canonical_combining_class(c);
            let yes = is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes;
            if class == 0 && yes {
                stable[cp as usize / 64] |= 1 << (cp % 64);
            } else if yes {
                plain_marks[cp as usize] = class;
            }
        }
        let mut stable_leads = 0;
        for (lead, words) in stable.chunks(0x1000 / 64).enumerate() {
            if words.iter().all(|&w| w == u64::MAX) {
                stable_leads |= 1 << lead;
            }
        }
        Tables {
            stable,
            stable_leads,
            plain_marks,
        }
    })
}

impl Tables {
    /// Whether the code point `cp` is stable (see the module's documentation).
    #[inline]
    fn is_stable(&self, cp: u32) -> bool {
        if cp < FIRST_MARK {
            return true;
        }
        match self.stable.get(cp as usize / 64) {
            Some(word) => word >> (cp % 64) & 1 == 1,
            None => char::from_u32(cp).is_some_and(stable_in_tables),
        }
    }

    /// Whether the character whose lead byte (at least [`FIRST_MARK_LEAD`]) is at `at` is
    /// stable: read from the lead and the next bytes, without decoding the code point.
    #[inline]
    fn is_stable_at(&self, bytes: &[u8], at: usize) -> bool {
        let lead = bytes[at];
        let low = |i: usize| bytes.get(at + i).map_or(0, |&b| usize::from(b & 0x3F));
        match lead {
            // U+0300..U+07FF: the word is the lead's low bits, the bit the second byte's.
            ..=0xDF => self.stable[usize::from(lead & 0x1F)] >> low(1) & 1 == 1,
            0xE0..=0xEF => {
                let lead = usize::from(lead & 0x0F);
                self.stable_leads >> lead & 1 == 1
                    || self.stable[(lead << 6 | low(1)) % BMP_WORDS] >> low(2) & 1 == 1
            }
            _ => self.is_stable(decode(bytes, at).0),
        }
    }

    /// The combining class of `cp` when it is a plain mark (see [`Tables::plain_marks`]).
    #[inline]
    fn plain_mark(&self, cp: u32) -> Option<u8> {
        self.plain_marks
            .get(cp as usize)
            .copied()
            .filter(|&class| class != 0)
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
fn next_unstable(bytes: &[u8], tables: &Tables, mut from: usize) -> usize {
    // Eight bytes at a time: only a byte of FIRST_MARK_LEAD or above (always a lead byte, so
    // a window may start inside a character) needs a look at its character.
    while let Some(word) = bytes.get(from..from + 8) {
        let mut leads = mark_leads(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        while leads != 0 {
            let at = from + leads.trailing_zeros() as usize / 8;
            if !tables.is_stable_at(bytes, at) {
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
            if !tables.is_stable(cp) {
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
    let tables = tables();
    let mut at = next_unstable(bytes, tables, 0);
    let mut out: Option<String> = None;
    // Bytes of `text` already in `out`; end of the last run composed (the character
    // after it is stable).
    let (mut copied, mut run_end) = (0, 0);
    while at < bytes.len() {
        // The character before an unstable one (skipped, so stable) starts the run, which
        // ends before the next stable character.
        let start = previous_start(bytes, run_end, at);
        // Whether the run is its stable first character and plain marks in order of
        // combining class: the quick check's Yes, read from the tables (a letter and a
        // virama, say).
        let (mut end, mut plain, mut class) = (at, true, 0);
        while end < bytes.len() {
            let (next, len) = decode(bytes, end);
            if end > at && tables.is_stable(next) {
                break;
            }
            match tables.plain_mark(next) {
                Some(c) if c >= class => class = c,
                _ => plain = false,
            }
            end += len;
        }
        let run = &text[start..end];
        let composed = || run.nfc().map(|(c, _)| c);
        // Else the quick check settles most runs without composing.
        let known = plain || is_nfc_quick(run.chars()) == IsNormalized::Yes;
        if !known && !composed().eq(run.chars()) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..start]);
            out.extend(composed());
            copied = end;
        }
        run_end = end;
        at = next_unstable(bytes, tables, end);
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
        // of Unicode 10 (combining class 0 in Unicode 9's tables), marks at the start, marks
        // that compose with nothing (U+030D 230, U+0316 220) in order of combining class and
        // out of it.
        let texts = [
            "\u{915}\u{93c}\u{94d} \u{915}\u{94d}\u{93c}",
            "a\u{316}\u{301} a\u{301}\u{316}",
            "\u{301}a\u{301}\u{327} x",
            "e\u{301}\u{300}o\u{308}\u{304}",
            "\u{1100}\u{1161}\u{11a8} \u{ac00}\u{11a8}",
            "\u{928}\u{93c} \u{915}\u{93c}",
            "a\u{1df9}\u{301}",
            "a\u{30d}\u{316} a\u{316}\u{30d}",
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
        let tables = tables();
        for cp in 0..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            if !tables.is_stable(cp) {
                continue;
            }
            for b in before {
                let text = format!("{b}{c}\u{301}");
                assert_eq!(nfc(&text), whole(&text), "U+{cp:04X} after {b:?}");
            }
        }
    }

    #[test]
    fn the_byte_lookup_agrees_with_the_code_point_lookup() {
        let tables = tables();
        for cp in FIRST_MARK..0x11000 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let text = format!("{c}a");
            let expected = stable_in_tables(c);
            assert_eq!(tables.is_stable(cp), expected, "U+{cp:04X}");
            assert_eq!(
                tables.is_stable_at(text.as_bytes(), 0),
                expected,
                "U+{cp:04X}"
            );
        }
        // The ideographs' lead bytes are known stable as a whole; lead 0xA (U+A000..U+AFFF)
        // is not, for the marks among its characters (U+A66F, say).
        assert_eq!(tables.stable_leads >> 0x4 & 1, 1);
        assert_eq!(tables.stable_leads >> 0xA & 1, 0);
    }

    #[test]
    fn text_in_nfc_is_borrowed() {
        assert!(matches!(nfc("ça,東京, नमस्ते"), Cow::Borrowed(_)));
        assert!(matches!(
            nfc("\u{915}\u{93c}\u{94d}\u{937}"),
            Cow::Borrowed(_)
        ));
        // Plain marks in order of combining class stay; out of order they are reordered.
        assert!(matches!(nfc("a\u{316}\u{30d}"), Cow::Borrowed(_)));
        assert!(matches!(nfc("\u{915}\u{94d}\u{937}"), Cow::Borrowed(_)));
        assert!(matches!(nfc("a\u{30d}\u{316}"), Cow::Owned(_)));
        assert!(matches!(nfc("c\u{327}a"), Cow::Owned(_)));
    }
}
