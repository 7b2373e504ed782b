//! The table-driven normalizer against a plain one: sentencepiece's `Normalizer::Normalize`
//! loop written out, one `normalize_prefix` lookup per step and no fast path, on every
//! charsmap tokensmith builds, the shipped models' charsmaps, user-defined symbols and each
//! whitespace option; on random text full of the characters the tables special-case and on
//! the committed real text.

use super::*;
use crate::formats::sentencepiece_model;
use crate::normalizers::charsmap_builder::{precompiled_charsmap, Rule};
use proptest::prelude::*;
use std::sync::OnceLock;

/// sentencepiece's normalization loop, step by step (facts from its `normalizer.cc`).
fn reference(n: &SentencePieceNormalizer, whole: &str) -> String {
    reference_with_offsets(n, whole).0
}

/// The same loop with its `norm_to_orig`: every byte a step writes maps to where the step's
/// input starts, the dummy prefix to where the input starts after leading whitespace, and
/// the end to where the consumed input stops (before trailing whitespace).
fn reference_with_offsets(n: &SentencePieceNormalizer, whole: &str) -> (String, Vec<usize>) {
    let mut input = whole;
    let mut consumed = 0;
    if n.remove_extra_whitespaces {
        while !input.is_empty() {
            let (normalized, step) = n.normalize_prefix(input);
            if normalized != " " {
                break;
            }
            input = &input[step..];
            consumed += step;
        }
    }
    if input.is_empty() {
        return (String::new(), Vec::new());
    }
    let space = if n.escape_whitespaces {
        SPACE_SYMBOL
    } else {
        " "
    };
    let mut out = String::new();
    let mut to_orig = Vec::new();
    if !n.treat_whitespace_as_suffix && n.add_dummy_prefix {
        out.push_str(space);
        to_orig.extend(std::iter::repeat_n(consumed, space.len()));
    }
    let mut is_prev_space = n.remove_extra_whitespaces;
    while !input.is_empty() {
        let (normalized, step) = n.normalize_prefix(input);
        let mut piece = normalized;
        while is_prev_space && piece.starts_with(' ') {
            piece = &piece[1..];
        }
        if !piece.is_empty() {
            for c in piece.chars() {
                match c {
                    ' ' => out.push_str(space),
                    c => out.push(c),
                }
            }
            is_prev_space = piece.ends_with(' ');
        }
        // Every byte this step wrote comes from where the step starts.
        to_orig.resize(out.len(), consumed);
        input = &input[step..];
        consumed += step;
        if !n.remove_extra_whitespaces {
            is_prev_space = false;
        }
    }
    if n.remove_extra_whitespaces {
        while out.ends_with(space) {
            let length = out.len() - space.len();
            consumed = to_orig[length];
            out.truncate(length);
            to_orig.truncate(length);
        }
    }
    if n.treat_whitespace_as_suffix && n.add_dummy_prefix {
        out.push_str(space);
        to_orig.extend(std::iter::repeat_n(consumed, space.len()));
    }
    to_orig.push(consumed);
    (out, to_orig)
}

/// The charsmap of a `.model` in `tests/data/spm`.
pub(super) fn shipped(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/data/spm/{name}", env!("CARGO_MANIFEST_DIR"));
    sentencepiece_model::read(std::path::Path::new(&path))
        .unwrap()
        .normalizer_spec
        .precompiled_charsmap
}

/// Every charsmap tokensmith builds, the shipped models' charsmaps, and identity.
fn maps() -> Vec<Vec<u8>> {
    let mut maps: Vec<Vec<u8>> = Rule::ALL
        .iter()
        .map(|&rule| precompiled_charsmap(rule).unwrap().to_vec())
        .collect();
    maps.push(shipped("test_model.model"));
    maps.push(shipped("test_ja_model.model"));
    maps.push(Vec::new());
    maps
}

/// The normalizer of `map` with the options `[add_dummy_prefix, remove_extra_whitespaces,
/// escape_whitespaces, treat_whitespace_as_suffix]` and the user-defined `symbols`.
fn normalizer(map: &[u8], options: [bool; 4], symbols: &[&str]) -> SentencePieceNormalizer {
    let [dummy, extra, escape, suffix] = options;
    let spec = NormalizerSpec {
        precompiled_charsmap: map.to_vec(),
        add_dummy_prefix: dummy,
        remove_extra_whitespaces: extra,
        escape_whitespaces: escape,
        ..NormalizerSpec::default()
    };
    SentencePieceNormalizer::new(&spec, suffix, symbols).unwrap()
}

/// Normalizers over every charsmap and option set the comparison covers.
fn normalizers() -> &'static [SentencePieceNormalizer] {
    static ALL: OnceLock<Vec<SentencePieceNormalizer>> = OnceLock::new();
    ALL.get_or_init(|| {
        let maps = maps();
        let mut all = Vec::new();
        for (i, map) in maps.iter().enumerate() {
            // Each map with the defaults, and with the options and symbols varied in turn.
            let variants: [(bool, bool, bool, bool, &[&str]); 4] = [
                (true, true, true, false, &[]),
                (false, false, true, true, &["<sep>", "é", "か"]),
                (true, false, false, false, &["a b", "  "]),
                (i % 2 == 0, true, true, true, &["\u{3099}"]),
            ];
            for (dummy, extra, escape, suffix, symbols) in variants {
                all.push(normalizer(map, [dummy, extra, escape, suffix], symbols));
            }
        }
        all
    })
}

/// Normalizers with no user-defined symbols (which turn the word scan off), over every
/// charsmap and each whitespace option: spaces joined or not, the mark or a plain space, the
/// dummy prefix first, last or not at all.
fn word_scan_normalizers() -> &'static [SentencePieceNormalizer] {
    static ALL: OnceLock<Vec<SentencePieceNormalizer>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = Vec::new();
        for map in maps() {
            let variants = [
                (true, true, true, false),
                (true, false, true, false),
                (false, true, false, false),
                (false, false, false, false),
                (true, true, true, true),
                (true, false, true, true),
            ];
            for (dummy, extra, escape, suffix) in variants {
                all.push(normalizer(&map, [dummy, extra, escape, suffix], &[]));
            }
        }
        all
    })
}

fn check(text: &str) -> std::result::Result<(), TestCaseError> {
    for (i, n) in normalizers().iter().enumerate() {
        prop_assert_eq!(
            n.normalize(text),
            reference(n, text),
            "normalizer {}, {:?}",
            i,
            text
        );
        prop_assert_eq!(
            n.normalize_with_offsets(text),
            reference_with_offsets(n, text),
            "offsets, normalizer {}",
            i
        );
    }
    Ok(())
}

/// Characters the tables treat specially: spaces, letters before combining marks, kana before
/// the voiced marks, Hangul syllables before jamo, full- and half-width forms, ligatures,
/// characters outside the BMP, controls, the space mark itself.
fn tricky() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        ' ',
        ' ',
        'a',
        'A',
        'e',
        'n',
        'z',
        '1',
        '\t',
        '\n',
        '\u{0}',
        '\u{7f}',
        '<',
        's',
        'p',
        '\u{301}',
        '\u{308}',
        '\u{327}',
        '\u{345}',
        'é',
        'É',
        'ß',
        'ñ',
        'İ',
        'ﬁ',
        '\u{a0}',
        'か',
        'き',
        'ハ',
        '\u{3099}',
        '\u{309a}',
        'ゝ',
        '。',
        '\u{3000}',
        'ｶ',
        'ﾞ',
        'Ａ',
        '가',
        '\u{1100}',
        '\u{1161}',
        '\u{11a8}',
        'ㄱ',
        '㈜',
        '①',
        '\u{2581}',
        'Ω',
        'Ω',
        'ά',
        '\u{1f600}',
        '\u{10000}',
        '\u{fffd}',
        'ـ',
        'ع',
        'ि',
        '\u{93c}',
        'क',
    ])
}

/// A piece of a line as the corpus has them: an ASCII word (up to 14 bytes, so that words
/// end anywhere in an eight-byte word and some span two), a row of up to 11 spaces, a control
/// character, or a character the charsmaps rewrite or keep (no-break and ideographic spaces,
/// full-width and half-width forms, a ligature, composing marks, capitals, kana, Cyrillic).
fn corpus_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9.,:;'\"()_=+-]{1,14}",
        3 => (1..12usize).prop_map(|n| " ".repeat(n)),
        1 => prop::sample::select(vec!["\t", "\n", "\r", "\u{0}", "\u{7f}", "\u{1b}"])
            .prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "\u{a0}", "\u{3000}", "Ａ", "ｶﾞ", "ﬁ", "e\u{301}", "İ", "か\u{3099}", "①", "\u{200b}",
            "жук", "日本", "é", "かき", "\u{2581}", "A", "Ω",
        ])
        .prop_map(str::to_string),
    ]
}

/// A line of up to 40 pieces.
fn corpus_line() -> impl Strategy<Value = String> {
    prop::collection::vec(corpus_piece(), 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Lines like the corpus's (words, rows of spaces, controls, rewritten characters), long
    /// enough for the eight-byte word scan: `normalize_to` into a used buffer and the offsets
    /// path both give the plain loop's text, under every charsmap and option set.
    #[test]
    fn the_word_scan_equals_the_plain_loop_on_corpus_like_lines(
        lines in prop::collection::vec(corpus_line(), 1..4)
    ) {
        let all = normalizers().iter().chain(word_scan_normalizers());
        for (i, n) in all.enumerate() {
            let mut buffer = String::from("left over");
            for line in &lines {
                let want = reference(n, line);
                n.normalize_to(line, &mut buffer);
                prop_assert_eq!(&buffer, &want, "normalizer {}, {:?}", i, line);
                prop_assert_eq!(
                    n.normalize_with_offsets(line),
                    reference_with_offsets(n, line),
                    "offsets, normalizer {}",
                    i
                );
            }
        }
    }

    #[test]
    fn tables_equal_the_plain_loop_on_tricky_text(
        text in prop::collection::vec(tricky(), 0..24).prop_map(|c| c.into_iter().collect::<String>())
    ) {
        check(&text)?;
    }

    #[test]
    fn tables_equal_the_plain_loop_on_any_text(text in any::<String>()) {
        check(&text)?;
    }

    /// `normalize_to` into one buffer that keeps whatever the previous text left in it gives
    /// the reference's text every time (the encoder reuses one buffer per thread).
    #[test]
    fn a_reused_buffer_gives_the_plain_loop(
        texts in prop::collection::vec(
            prop::collection::vec(tricky(), 0..24).prop_map(|c| c.into_iter().collect::<String>()),
            1..6,
        )
    ) {
        for (i, n) in normalizers().iter().enumerate() {
            let mut buffer = String::from("left over from before");
            for text in &texts {
                n.normalize_to(text, &mut buffer);
                prop_assert_eq!(&buffer, &reference(n, text), "normalizer {}, {:?}", i, text);
            }
        }
    }
}

#[test]
fn tables_equal_the_plain_loop_on_the_committed_text() {
    let root = format!("{}/../../tests/data", env!("CARGO_MANIFEST_DIR"));
    for name in [
        "multilingual.txt",
        "spm/botchan.txt",
        "spm/wagahaiwa_nekodearu_head.txt",
    ] {
        let text = std::fs::read_to_string(format!("{root}/{name}")).unwrap();
        for line in text.lines() {
            check(line).unwrap();
        }
    }
}
