//! A character-level double array of the pieces, for the Viterbi over long text.
//!
//! The byte trie ([`super::PieceTrie`]) takes one dependent memory read per byte, so a walk
//! over Japanese or Chinese text (three bytes a character, no spaces to cut it into cached
//! words) reads about six units per character start, and the reads, not the instructions, set
//! its speed. Here every character of the vocabulary has a dense code (the most frequent
//! characters first, so the root's children sit together), the text is turned into codes once,
//! and a walk reads one unit per character.
//!
//! Only keys that are valid UTF-8 are kept. On valid UTF-8 text this finds exactly the matches
//! of the byte trie that end on a character boundary, and those are the only matches a Viterbi
//! over characters can use: a key that is not valid UTF-8 either never matches such text or ends
//! inside a character.

use super::char_layout::{layout, Keys};
use super::trie::{walk, Unit};

/// The code of a character that is in no key, and the value of a unit with no key.
pub(super) const NONE: u32 = u32::MAX;
/// Code points per page of the code table.
const PAGE: usize = 128;
/// Pages of the code table: every code point up to `char::MAX`.
const PAGES: usize = char::MAX as usize / PAGE + 1;
/// The compiled character trie; state 0 is the root.
#[derive(Debug, Clone)]
pub(super) struct CharTrie {
    /// The page of each block of [`PAGE`] code points, into `codes` (page 0 has no codes).
    pages: Box<[u16; PAGES]>,
    /// The code of each code point, page by page, or `NONE`.
    codes: Vec<u32>,
    /// Whether some key has a character with this first byte: a character whose lead byte no
    /// key uses has no code, which the encoder then knows without decoding it.
    leads: [bool; 256],
    units: Vec<Unit>,
}

impl CharTrie {
    /// Builds the trie of `keys` (`(key, id, score)`; of equal keys the first is kept); keys
    /// that are not valid UTF-8, and the empty key, are left out.
    pub(super) fn build<'a>(keys: impl IntoIterator<Item = (&'a [u8], u32, f32)>) -> Self {
        let keys: Vec<(&str, u32, f32)> = keys
            .into_iter()
            .filter_map(|(k, id, score)| Some((std::str::from_utf8(k).ok()?, id, score)))
            .filter(|(k, _, _)| !k.is_empty())
            .collect();
        let (pages, codes) = code_table(&keys);
        let mut leads = [false; 256];
        for (key, _, _) in &keys {
            for (at, _) in key.char_indices() {
                leads[usize::from(key.as_bytes()[at])] = true;
            }
        }
        let mut trie = Self {
            pages,
            codes,
            leads,
            units: Vec::new(),
        };
        let keys = Keys::new(keys.iter().map(|&(key, id, score)| {
            // Every character of a key has a code.
            (key.chars().map(|c| trie.code(c as u32)), (id, score))
        }));
        trie.units = layout(&keys);
        trie
    }

    /// The code of the cut at `text[at]`, whose lead byte `lead` is not ASCII: three-byte
    /// characters (CJK, kana) are decoded here in one step, others by [`decode`].
    #[inline]
    fn code_at(&self, text: &[u8], at: usize, lead: u8) -> u32 {
        if lead & 0xF0 != 0xE0 {
            return decode(&text[at..]).0.map_or(NONE, |cp| self.code(cp));
        }
        match text.get(at + 1..at + 3) {
            Some(&[b1, b2]) if (b1 & 0xC0 == 0x80) & (b2 & 0xC0 == 0x80) => {
                let cp =
                    u32::from(lead & 0x0F) << 12 | u32::from(b1 & 0x3F) << 6 | u32::from(b2 & 0x3F);
                // Below 2^16, so the page index is below the table's 8704 pages.
                let page = self.pages[cp as usize / PAGE];
                self.codes[usize::from(page) * PAGE + cp as usize % PAGE]
            }
            _ => NONE,
        }
    }

    /// The code of the character with code point `cp`, or `NONE`.
    #[inline]
    fn code(&self, cp: u32) -> u32 {
        match self.pages.get(cp as usize / PAGE) {
            Some(&page) => self.codes[usize::from(page) * PAGE + cp as usize % PAGE],
            None => NONE,
        }
    }

    /// Writes the code of each character of `text` to the front of `codes`, and each
    /// character's byte offset, then the text's length, to the front of `offsets`; returns the
    /// number of characters `n`, so that `codes[..n]` and `offsets[..=n]` hold the answer. The
    /// vectors are scratch space: this call only grows them (to one slot per byte, and one more
    /// for the offsets; the caller frees large ones, see `crate::scratch`), so a caller that keeps them writes each slot once per call and never
    /// fills or checks a capacity per character. Characters are cut as sentencepiece cuts
    /// them (by the lead byte's length); a cut that is not a valid character gets `NONE`.
    pub(super) fn encode_chars(
        &self,
        text: &[u8],
        codes: &mut Vec<u32>,
        offsets: &mut Vec<usize>,
    ) -> usize {
        if codes.len() < text.len() {
            codes.resize(text.len(), NONE);
        }
        if offsets.len() <= text.len() {
            offsets.resize(text.len() + 1, 0);
        }
        let ascii = &self.codes[usize::from(self.pages[0]) * PAGE..][..PAGE];
        let n = text.len();
        let (code_slots, at_slots) = (&mut codes[..n], &mut offsets[..n]);
        let mut at = 0;
        let mut found = 0;
        while let Some(&lead) = text.get(at) {
            // Not past `at`, so inside the slots.
            let (code_slot, at_slot) = (&mut code_slots[found], &mut at_slots[found]);
            *at_slot = at;
            found += 1;
            if lead < 0x80 {
                // The common case first, with nothing else to compute: one byte, one table read.
                *code_slot = ascii[usize::from(lead)];
                at += 1;
                continue;
            }
            *code_slot = if !self.leads[usize::from(lead)] {
                // A script the model lacks: the cut's length is all that is needed.
                NONE
            } else {
                self.code_at(text, at, lead)
            };
            at += cut_len(lead).min(n - at);
        }
        offsets[found] = text.len();
        found
    }

    /// Calls `f(chars, id, score)` for every key that is a prefix of the characters with
    /// `codes`, shortest first.
    #[inline]
    pub(super) fn for_each_prefix(&self, codes: &[u32], f: impl FnMut(usize, u32, f32)) {
        // A `NONE` code lands past the end (bases and codes are below 2^32 - 1).
        let labels = codes.iter().map(|&c| c as usize);
        walk(&self.units, self.units[0].base as usize, labels, f);
    }
}

/// The code point of the character that starts `rest` (cut by its lead byte, as
/// sentencepiece's `OneCharLen`), and the cut's length; no code point when the cut is cut short
/// by the end or a byte after the lead is not a continuation byte. (The Viterbi reads `&str`
/// text, so no other kind of invalid sequence reaches it.)
#[inline]
fn decode(rest: &[u8]) -> (Option<u32>, usize) {
    let cont = |i: usize| {
        rest.get(i)
            .filter(|&&b| b & 0xC0 == 0x80)
            .map(|&b| u32::from(b & 0x3F))
    };
    let lead = rest[0];
    let (cp, len) = match lead {
        0..=0x7F => (Some(u32::from(lead)), 1),
        0x80..=0xBF => (None, 1),
        0xC0..=0xDF => (cont(1).map(|b1| u32::from(lead & 0x1F) << 6 | b1), 2),
        0xE0..=0xEF => (
            cont(1)
                .zip(cont(2))
                .map(|(b1, b2)| u32::from(lead & 0x0F) << 12 | b1 << 6 | b2),
            3,
        ),
        _ => (
            cont(1)
                .zip(cont(2))
                .zip(cont(3))
                .map(|((b1, b2), b3)| u32::from(lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3),
            4,
        ),
    };
    (cp, len.min(rest.len()))
}

/// The length of the cut that starts with byte `lead`, as [`decode`] cuts it before it meets
/// the text's end. Branches, not arithmetic: on real text they are predicted, so the walk from
/// one character to the next waits only for the lead byte's load.
#[inline]
fn cut_len(lead: u8) -> usize {
    match lead {
        0..=0xBF => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The two-level code table: codes are given by how often a character occurs in the keys,
/// most often first, ties by code point.
fn code_table(keys: &[(&str, u32, f32)]) -> (Box<[u16; PAGES]>, Vec<u32>) {
    // Counted in a table of the same two-level shape (pages in order of first use), which
    // costs a fraction of a hash map's time per character.
    let mut count_pages = Box::new([0u16; PAGES]);
    let mut counts = vec![0u32; PAGE];
    for (key, _, _) in keys {
        for c in key.chars() {
            let cp = c as usize;
            if count_pages[cp / PAGE] == 0 {
                count_pages[cp / PAGE] = (counts.len() / PAGE) as u16;
                counts.resize(counts.len() + PAGE, 0);
            }
            counts[usize::from(count_pages[cp / PAGE]) * PAGE + cp % PAGE] += 1;
        }
    }
    let mut chars: Vec<(u32, u32)> = Vec::new();
    for (page, &at) in count_pages.iter().enumerate().filter(|&(_, &at)| at != 0) {
        let page_counts = &counts[usize::from(at) * PAGE..][..PAGE];
        for (i, &n) in page_counts.iter().enumerate().filter(|&(_, &n)| n != 0) {
            chars.push((n, (page * PAGE + i) as u32));
        }
    }
    chars.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut pages = Box::new([0u16; PAGES]);
    let mut codes = vec![NONE; PAGE];
    for (code, &(_, cp)) in chars.iter().enumerate() {
        let cp = cp as usize;
        if pages[cp / PAGE] == 0 {
            // At most 0x110000 / 128 = 8704 pages, so a page number fits in u16.
            pages[cp / PAGE] = (codes.len() / PAGE) as u16;
            codes.resize(codes.len() + PAGE, NONE);
        }
        codes[usize::from(pages[cp / PAGE]) * PAGE + cp % PAGE] = code as u32;
    }
    (pages, codes)
}

#[cfg(test)]
mod tests {
    use super::super::sample::SplitMix64;
    use super::*;

    /// Characters of every UTF-8 length, several sharing a lead byte or a page.
    const ALPHABET: [&str; 12] = [
        "a",
        "b",
        "▁",
        "é",
        "ß",
        "の",
        "猫",
        "吾",
        "輩",
        "😀",
        "😁",
        "\u{10FFFF}",
    ];

    /// The codes and offsets of `text`, cut to the characters found.
    fn encoded(trie: &CharTrie, text: &[u8]) -> (Vec<u32>, Vec<usize>) {
        let (mut codes, mut offsets) = (Vec::new(), Vec::new());
        let n = trie.encode_chars(text, &mut codes, &mut offsets);
        codes.truncate(n);
        offsets.truncate(n + 1);
        (codes, offsets)
    }

    /// The codes and offsets of `text` cut and decoded one character at a time by
    /// [`decode`], the plain way.
    fn decoded(trie: &CharTrie, text: &[u8]) -> (Vec<u32>, Vec<usize>) {
        let (mut codes, mut offsets, mut at) = (Vec::new(), Vec::new(), 0);
        while at < text.len() {
            let (cp, len) = decode(&text[at..]);
            codes.push(cp.map_or(NONE, |cp| trie.code(cp)));
            offsets.push(at);
            at += len;
        }
        offsets.push(text.len());
        (codes, offsets)
    }

    fn matches(trie: &CharTrie, text: &str) -> Vec<(usize, u32, f32)> {
        let (codes, offsets) = encoded(trie, text.as_bytes());
        let mut found = Vec::new();
        trie.for_each_prefix(&codes, |chars, id, score| {
            found.push((offsets[chars], id, score));
        });
        found
    }

    #[test]
    fn finds_prefixes_by_characters() {
        let keys: [(&[u8], u32, f32); 5] = [
            ("吾".as_bytes(), 0, -1.0),
            ("吾輩".as_bytes(), 1, -2.0),
            ("吾輩は猫".as_bytes(), 2, -3.0),
            ("é".as_bytes(), 3, -4.0),
            // Not valid UTF-8 (the first byte of "é"): left out.
            (&[0xC3], 4, -5.0),
        ];
        let trie = CharTrie::build(keys);
        assert_eq!(
            matches(&trie, "吾輩は猫である"),
            vec![(3, 0, -1.0), (6, 1, -2.0), (12, 2, -3.0)]
        );
        assert_eq!(matches(&trie, "吾輩が"), vec![(3, 0, -1.0), (6, 1, -2.0)]);
        assert_eq!(matches(&trie, "éa"), vec![(2, 3, -4.0)]);
        // A character in no key, and one in a key but never first.
        assert_eq!(matches(&trie, "x吾"), vec![]);
        assert_eq!(matches(&trie, "輩"), vec![]);
        let (codes, offsets) = encoded(&trie, "a輩😀".as_bytes());
        assert_eq!(offsets, vec![0, 1, 4, 8]);
        assert_eq!(codes[0], NONE);
        assert_ne!(codes[1], NONE);
        assert_eq!(codes[2], NONE);
    }

    /// On random keys over characters of 1 to 4 bytes, the character trie reports exactly the
    /// keys that a scan finds as prefixes, with their ids and scores.
    #[test]
    fn matches_a_scan_on_mixed_lengths() {
        let mut rng = SplitMix64::new(11);
        let mut pick = |n: u64| (rng.next_u64() % n) as usize;
        let mut keys: Vec<(String, u32, f32)> = Vec::new();
        for id in 0..2000u32 {
            let len = 1 + pick(5);
            let key: String = (0..len).map(|_| ALPHABET[pick(12)]).collect();
            if !keys.iter().any(|(k, _, _)| *k == key) {
                keys.push((key, id, -(id as f32) / 7.0));
            }
        }
        let trie = CharTrie::build(keys.iter().map(|(k, id, s)| (k.as_bytes(), *id, *s)));
        for _ in 0..2000 {
            // Sometimes a character that is in no key ('z').
            let text: String = (0..7)
                .map(|_| {
                    if pick(20) == 0 {
                        "z"
                    } else {
                        ALPHABET[pick(12)]
                    }
                })
                .collect();
            let mut want: Vec<(usize, u32, f32)> = keys
                .iter()
                .filter(|(k, _, _)| text.starts_with(k.as_str()))
                .map(|(k, id, s)| (k.len(), *id, *s))
                .collect();
            want.sort_unstable_by_key(|w| w.0);
            assert_eq!(matches(&trie, &text), want, "text {text:?}");
        }
    }

    /// The scratch vectors keep their length between calls: a short text after a long one
    /// reads back exactly its own codes and offsets, and the count is the characters found.
    #[test]
    fn reused_scratch_gives_the_short_text_alone() {
        let trie = CharTrie::build([("吾".as_bytes(), 0, 0.0), ("a".as_bytes(), 1, 0.0)]);
        let (mut codes, mut offsets) = (Vec::new(), Vec::new());
        let long = "吾輩は猫である。名前はまだ無い。".repeat(4);
        let n = trie.encode_chars(long.as_bytes(), &mut codes, &mut offsets);
        assert_eq!(n, long.chars().count());
        assert!(codes.len() >= long.len() && offsets.len() > long.len());
        for short in ["a吾", "", "😀"] {
            let n = trie.encode_chars(short.as_bytes(), &mut codes, &mut offsets);
            let (want_codes, want_offsets) = encoded(&trie, short.as_bytes());
            assert_eq!(n, short.chars().count());
            assert_eq!(codes[..n], want_codes);
            assert_eq!(offsets[..=n], want_offsets);
            let mut starts: Vec<usize> = short.char_indices().map(|(i, _)| i).collect();
            starts.push(short.len());
            assert_eq!(want_offsets, starts);
        }
    }

    /// Three-byte characters whose lead byte keys use take their own decoding path: on
    /// every cut after such a lead (valid, a bad continuation byte in either place, cut short
    /// by the end), the codes and offsets are those [`decode`] gives.
    #[test]
    fn three_byte_leads_cut_and_code_as_decode() {
        let trie = CharTrie::build([
            ("吾".as_bytes(), 0, 0.0),
            ("輩".as_bytes(), 1, 0.0),
            ("の".as_bytes(), 2, 0.0),
            ("\u{FFFD}".as_bytes(), 3, 0.0),
        ]);
        let (lead, b1, b2) = (0xE5u8, 0x90u8, 0xBEu8); // 吾
        let cases: [&[u8]; 9] = [
            &[lead, b1, b2],
            &[lead, b'a', b2, b'b'],
            &[lead, b1, b'a', b'b'],
            &[lead, 0xC3, 0xA9],
            &[lead, b1],
            &[lead],
            &[0xE3, 0x81, 0xAE, lead, b1, b2],
            &[0xEF, 0xBF, 0xBD, 0xE0, 0x80],
            &[0xE8, 0xBC, 0xA9, 0xE3, 0x81],
        ];
        for text in cases {
            assert_eq!(encoded(&trie, text), decoded(&trie, text), "{text:x?}");
        }
        // The valid characters have codes.
        let (codes, _) = encoded(&trie, "吾の輩\u{FFFD}".as_bytes());
        assert!(codes.iter().all(|&c| c != NONE));
    }

    /// On random bytes made of ASCII runs, characters of every length (with and without a
    /// code), stray continuation bytes and lead bytes cut short, the codes and offsets are
    /// those the plain one-character-at-a-time [`decode`] gives, after a longer text has left
    /// its codes in the scratch vectors.
    #[test]
    fn random_bytes_cut_and_code_as_decode() {
        let trie = CharTrie::build(
            ALPHABET
                .iter()
                .enumerate()
                .map(|(id, k)| (k.as_bytes(), id as u32, 0.0)),
        );
        let parts: [&[u8]; 12] = [
            b"a",
            b"b",
            b"xyz",
            b" ",
            "é".as_bytes(),
            "吾".as_bytes(),
            "ぬ".as_bytes(),
            "😀".as_bytes(),
            "\u{10FFFF}".as_bytes(),
            &[0x80],
            &[0xE5, 0x90],
            &[0xF0],
        ];
        let mut rng = SplitMix64::new(23);
        let (mut codes, mut offsets) = (Vec::new(), Vec::new());
        trie.encode_chars("吾輩".repeat(40).as_bytes(), &mut codes, &mut offsets);
        for _ in 0..3000 {
            let count = (rng.next_u64() % 12) as usize;
            let text: Vec<u8> = (0..count)
                .flat_map(|_| {
                    parts[(rng.next_u64() % parts.len() as u64) as usize]
                        .iter()
                        .copied()
                })
                .collect();
            let n = trie.encode_chars(&text, &mut codes, &mut offsets);
            let (want_codes, want_offsets) = decoded(&trie, &text);
            assert_eq!(codes[..n], want_codes, "{text:x?}");
            assert_eq!(offsets[..=n], want_offsets, "{text:x?}");
        }
    }

    #[test]
    fn invalid_cuts_have_no_code() {
        let trie = CharTrie::build([("é".as_bytes(), 0, 0.0)]);
        // A stray continuation byte, a lead byte cut off by the end.
        let (codes, offsets) = encoded(&trie, &[0xA9, b'a', 0xC3]);
        assert_eq!(codes, vec![NONE, NONE, NONE]);
        assert_eq!(offsets, vec![0, 1, 2, 3]);
    }

    #[test]
    fn unused_lead_bytes_cut_as_decode_cuts() {
        // Keys use no lead byte of the text's non-ASCII characters: each gets no code and the
        // cut `decode` gives, also when the end cuts a character short.
        let trie = CharTrie::build([("a".as_bytes(), 0, 0.0), ("é".as_bytes(), 1, 0.0)]);
        let mut text = "a吾輩😀bß".as_bytes().to_vec();
        text.extend([0xA9, 0xE3, 0x81]);
        let (codes, offsets) = encoded(&trie, &text);
        assert_eq!((codes.clone(), offsets.clone()), decoded(&trie, &text));
        assert_eq!(codes[0], trie.code(u32::from(b'a')));
        assert!(codes[1..4].iter().all(|&c| c == NONE));
        assert_eq!(
            offsets[offsets.len() - 3..],
            [text.len() - 3, text.len() - 2, text.len()]
        );
    }
}
