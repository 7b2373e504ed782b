//! The fast path ([`PlainChars::copy_text`]) against the full lookup: each step of
//! sentencepiece's loop taken with `normalize_prefix` (the user-symbol trie, then the
//! charsmap's longest match), on the shipped charsmaps, nfkc_cf and identity; and the edges of
//! its tables and word scan, each checked against the charsmap's own trie walk or a byte
//! predicate.

use super::reference_tests::shipped;
use super::*;
use crate::normalizers::charsmap_builder::{precompiled_charsmap, Rule};
use crate::normalizers::plain_chars::Swar;
use proptest::prelude::*;
use std::sync::OnceLock;

fn normalizer(
    map: Vec<u8>,
    escape: bool,
    extra: bool,
    symbols: &[&str],
) -> SentencePieceNormalizer {
    let spec = NormalizerSpec {
        precompiled_charsmap: map,
        escape_whitespaces: escape,
        remove_extra_whitespaces: extra,
        ..NormalizerSpec::default()
    };
    SentencePieceNormalizer::new(&spec, false, symbols).unwrap()
}

/// The shipped en and ja charsmaps (both nmt_nfkc), nfkc_cf and identity, each with the space
/// mark and extra whitespace removed, and once more with plain spaces kept as they come.
fn normalizers() -> &'static [SentencePieceNormalizer] {
    static ALL: OnceLock<Vec<SentencePieceNormalizer>> = OnceLock::new();
    ALL.get_or_init(|| {
        let maps = [
            shipped("test_model.model"),
            shipped("test_ja_model.model"),
            precompiled_charsmap(Rule::NfkcCf).unwrap().to_vec(),
            Vec::new(),
        ];
        let mut all = Vec::new();
        for map in maps {
            all.push(normalizer(map.clone(), true, true, &[]));
            all.push(normalizer(map, false, false, &[]));
        }
        all
    })
}

/// sentencepiece's steps from the start of `input` until `end` bytes are consumed, each with
/// the full lookup (which sees the whole rest of `input`): the output, whether it ends with a
/// space a next space joins, and the bytes consumed (`end`, unless a step goes past it).
fn full_lookup(
    n: &SentencePieceNormalizer,
    input: &str,
    end: usize,
    prev: bool,
) -> (String, bool, usize) {
    let mark = if n.escape_whitespaces {
        SPACE_SYMBOL
    } else {
        " "
    };
    let (mut out, mut is_prev_space, mut at) = (String::new(), prev, 0);
    while at < end {
        let (normalized, consumed) = n.normalize_prefix(&input[at..]);
        let mut piece = normalized;
        while is_prev_space && piece.starts_with(' ') {
            piece = &piece[1..];
        }
        if !piece.is_empty() {
            out.push_str(&piece.replace(' ', mark));
            is_prev_space = piece.ends_with(' ');
        }
        if !n.remove_extra_whitespaces {
            is_prev_space = false;
        }
        at += consumed;
    }
    (out, is_prev_space, at)
}

/// The length of the longest prefix of `input` made of characters that start no charsmap
/// rule (asked of the trie itself), and of spaces when none starts with a space: the fast
/// path must copy at least that much.
fn certainly_plain(n: &SentencePieceNormalizer, input: &str) -> usize {
    let starts_rule = |c: char| {
        let mut utf8 = [0u8; 4];
        let key = c.encode_utf8(&mut utf8).as_bytes();
        n.charsmap
            .as_ref()
            .is_some_and(|m| m.has_rule_starting_with_all(key))
    };
    input
        .char_indices()
        .find(|&(_, c)| starts_rule(c) || (c == ' ' && !n.plain.space))
        .map_or(input.len(), |(i, _)| i)
}

fn copy(n: &SentencePieceNormalizer, input: &str, prev: bool) -> (String, bool, usize) {
    let mut out = String::from("kept");
    let mut is_prev_space = prev;
    let consumed = n.plain.copy_text(
        input,
        n.charsmap.as_ref(),
        &n.spaces,
        &mut out,
        &mut is_prev_space,
        &mut crate::normalizers::origins::NoOrigins,
    );
    assert!(
        out.starts_with("kept"),
        "the output before the call is kept"
    );
    (out["kept".len()..].to_string(), is_prev_space, consumed)
}

fn check(text: &str, prev: bool) -> std::result::Result<(), TestCaseError> {
    for (k, n) in normalizers().iter().enumerate() {
        let prev = prev && n.remove_extra_whitespaces;
        let (fast, fast_prev, consumed) = copy(n, text, prev);
        prop_assert!(text.is_char_boundary(consumed));
        let (want, want_prev, stepped) = full_lookup(n, text, consumed, prev);
        prop_assert_eq!(
            stepped,
            consumed,
            "normalizer {}: the copy stops inside a step",
            k
        );
        prop_assert_eq!(&fast, &want, "normalizer {}, {:?}", k, text);
        prop_assert_eq!(fast_prev, want_prev, "normalizer {}: is_prev_space", k);
        prop_assert!(
            consumed >= certainly_plain(n, text),
            "normalizer {}: stopped at {} in {:?}",
            k,
            consumed,
            text
        );
    }
    Ok(())
}

/// ASCII, spaces, kana and their voiced marks, full-width and half-width forms, and
/// characters with rules (ligatures, capitals, composing marks, no-break and ideographic
/// spaces), plus a character outside the BMP.
fn mixed() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        ' ',
        ' ',
        ' ',
        'a',
        'e',
        'k',
        'z',
        'A',
        'E',
        'Z',
        '0',
        '.',
        ',',
        '\t',
        '\u{0}',
        '~',
        '\u{7f}',
        'か',
        'き',
        'は',
        'ハ',
        'ゝ',
        'ん',
        '\u{3099}',
        '\u{309a}',
        '゛',
        'ｶ',
        'ﾞ',
        'ﾟ',
        'Ａ',
        '１',
        '！',
        '（',
        '\u{3000}',
        '\u{a0}',
        'ﬁ',
        '\u{301}',
        '\u{308}',
        'é',
        'ß',
        'Ω',
        'Ж',
        'ж',
        '日',
        '本',
        '。',
        '、',
        '…',
        '①',
        '\u{1f600}',
        '𝐀',
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn the_fast_path_equals_the_full_lookup(
        text in prop::collection::vec(mixed(), 0..40).prop_map(|c| c.into_iter().collect::<String>()),
        prev in any::<bool>(),
    ) {
        check(&text, prev)?;
    }

    #[test]
    fn the_fast_path_equals_the_full_lookup_on_any_text(text in any::<String>(), prev in any::<bool>()) {
        check(&text, prev)?;
    }

    #[test]
    fn the_first_stop_byte_of_a_word_is_found(word in any::<[u8; 8]>(), capitals in any::<bool>()) {
        let swar = if capitals { Swar::Capitals } else { Swar::Plain };
        let first = word.iter().position(|&b| stops_at(b, capitals)).unwrap_or(8);
        let found = swar.stops(u64::from_le_bytes(word)).trailing_zeros() / 8;
        prop_assert_eq!(found as usize, first);
    }
}

/// The bytes a word scan stops at, as a plain predicate.
fn stops_at(byte: u8, capitals: bool) -> bool {
    !(0x21..0x7f).contains(&byte) || (capitals && byte.is_ascii_uppercase())
}

#[test]
fn each_byte_value_stops_the_word_scan_at_each_position_as_the_predicate_says() {
    for capitals in [false, true] {
        let swar = if capitals {
            Swar::Capitals
        } else {
            Swar::Plain
        };
        for byte in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = byte;
                let found = (swar.stops(u64::from_le_bytes(word)).trailing_zeros() / 8) as usize;
                let want = if stops_at(byte, capitals) { at } else { 8 };
                assert_eq!(found, want, "byte {byte:#x} at {at}, capitals {capitals}");
            }
        }
    }
}

#[test]
fn the_ascii_table_agrees_with_the_charsmap_walk_for_every_pair() {
    for (k, n) in normalizers().iter().enumerate() {
        for lead in 0..0x80u8 {
            for next in 0..=255u8 {
                let Some(to) = n.plain.ascii_out(lead, Some(next)) else {
                    continue;
                };
                assert!(
                    lead != b' ',
                    "normalizer {k}: a space is never settled by the table"
                );
                let map = n.charsmap.as_ref();
                let goes_on =
                    map.and_then(|m| Some(m.step(m.step(m.root()?, lead)?.0, next).is_some()));
                assert_ne!(
                    goes_on,
                    Some(true),
                    "normalizer {k}: a rule goes on from {lead:#x} with {next:#x}"
                );
                match map.and_then(|m| m.longest_match(&[lead, next])) {
                    None => assert_eq!(to, lead, "normalizer {k}: {lead:#x} has no rule"),
                    Some((replacement, len)) => {
                        assert_eq!(
                            (replacement.as_bytes(), len),
                            (&[to][..], 1),
                            "{k}: {lead:#x} {next:#x}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn models_with_plain_or_case_folded_ascii_take_the_word_scan() {
    let [en, _, _, _, cf, _, identity, _] = normalizers() else {
        panic!("eight normalizers");
    };
    assert_eq!(en.plain.swar(), Some(Swar::Plain));
    assert_eq!(cf.plain.swar(), Some(Swar::Capitals));
    assert_eq!(identity.plain.swar(), Some(Swar::Plain));
    // A symbol that starts with a letter leaves only the byte-at-a-time path.
    let symbols = normalizer(Vec::new(), true, true, &["<sep>", "q"]);
    assert_eq!(symbols.plain.swar(), None);
}

/// Text whose characters all start no rule is copied whole, at every length and alignment
/// around the word scan's eight bytes.
#[test]
fn plain_text_is_copied_whole_at_every_length() {
    let en = &normalizers()[0];
    let text = "the quick  brown fox jumps over the lazy dog, again and again";
    for end in 0..text.len() {
        for start in 0..end.min(9) {
            let part = &text[start..end];
            let (out, _, consumed) = copy(en, part, true);
            assert_eq!(consumed, part.len(), "{part:?}");
            let mut want = part
                .split(' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("▁");
            if part.ends_with(' ') && !want.is_empty() {
                want.push('▁');
            }
            assert_eq!(out, want, "{part:?}");
        }
    }
}

/// An ASCII letter before a composing mark goes back to the lookup, wherever the word scan's
/// eight bytes end.
#[test]
fn a_letter_before_a_composing_mark_is_left_to_the_lookup() {
    let en = &normalizers()[0];
    for pad in 0..12 {
        let text = format!("{}e\u{301}x", "a".repeat(pad));
        let (out, _, consumed) = copy(en, &text, false);
        assert_eq!(
            (out.as_str(), consumed),
            ("a".repeat(pad).as_str(), pad),
            "{text:?}"
        );
    }
}

/// A kana that a voiced mark may follow is kept before other kana, at the end, and before
/// ASCII, and is left to the lookup before the mark.
#[test]
fn a_kana_before_a_voiced_mark_is_left_to_the_lookup() {
    let ja = &normalizers()[2];
    for (text, kept) in [
        ("かきく", "かきく"),
        ("かきく\u{3099}け", "かき"),
        ("か\u{3099}", ""),
        ("かa", "かa"),
        ("きかa", "きかa"),
        ("か", "か"),
        // は and U+309A compose to ぱ.
        ("かは\u{309a}", "か"),
        ("か\u{1f600}", "か\u{1f600}"),
    ] {
        let (out, _, consumed) = copy(ja, text, false);
        assert_eq!(out, kept, "{text:?}");
        assert_eq!(consumed, kept.len(), "{text:?}");
    }
}

#[test]
fn capitals_are_folded_on_the_fast_path() {
    let cf = &normalizers()[4];
    let (out, _, consumed) = copy(cf, "Hello WORLD", true);
    assert_eq!((out.as_str(), consumed), ("hello▁world", 11));
}

#[test]
fn spaces_join_only_when_extra_whitespace_is_removed() {
    let [en, kept, ..] = normalizers() else {
        panic!("eight normalizers");
    };
    assert_eq!(copy(en, "  a   b ", true), ("a▁b▁".to_string(), true, 8));
    assert_eq!(copy(en, " a", false), ("▁a".to_string(), false, 2));
    assert_eq!(
        copy(kept, "  a   b ", false),
        ("  a   b ".to_string(), false, 8)
    );
}

/// Under nmt_nfkc the no-break space and the ideographic space normalize to a space: the copy
/// writes them as spaces (joining with the spaces around them when extra whitespace is
/// removed) instead of stopping for the lookup; identity keeps them as they are.
#[test]
fn no_break_and_ideographic_spaces_are_copied_as_spaces() {
    let text = "a\u{a0}\u{a0}b \u{3000}c\u{a0}";
    let all = normalizers();
    let (en, kept, identity) = (&all[0], &all[1], &all[6]);
    assert_eq!(
        copy(en, text, true),
        ("a▁b▁c▁".to_string(), true, text.len())
    );
    assert_eq!(
        copy(kept, text, false),
        ("a  b  c ".to_string(), false, text.len())
    );
    assert_eq!(
        copy(identity, text, true),
        (
            "a\u{a0}\u{a0}b▁\u{3000}c\u{a0}".to_string(),
            false,
            text.len()
        )
    );
}

#[test]
fn each_byte_value_is_a_space_of_the_word_scan_at_each_position_only_when_it_is_a_space() {
    for byte in 0..=255u8 {
        for at in 0..8 {
            let mut word = *b"  a  b  ";
            word[at] = byte;
            let found = crate::normalizers::plain_copy::spaces_in(u64::from_le_bytes(word));
            let want = word
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b' ')
                .fold(0u64, |bits, (k, _)| bits | 0x80 << (8 * k));
            assert_eq!(found, want, "byte {byte:#x} at {at}");
        }
    }
}
