//! The hand-written splitters must cut text exactly where the reference regex does.
//!
//! The reference is the published pattern run on fancy-regex, the engine tiktoken uses.

use proptest::prelude::*;
use std::sync::OnceLock;
use tokensmith_core::hf::known_split::{LLAMA3_PATTERN, QWEN2_PATTERN};
use tokensmith_core::pre_tokenizers::{PreTokenizer, CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN};

const PATTERNS: [&str; 3] = [R50K_PATTERN, CL100K_PATTERN, O200K_PATTERN];

/// (hand-written, regex) pre-tokenizers for each pattern, compiled once.
fn pair(pattern: &str) -> &'static (PreTokenizer, PreTokenizer) {
    static PAIRS: OnceLock<Vec<(PreTokenizer, PreTokenizer)>> = OnceLock::new();
    let pairs = PAIRS.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| {
                let fast = PreTokenizer::new(p).unwrap();
                assert!(
                    !matches!(fast, PreTokenizer::Regex(_)),
                    "known pattern got the regex engine"
                );
                (fast, PreTokenizer::regex(p).unwrap())
            })
            .collect()
    });
    &pairs[PATTERNS.iter().position(|p| *p == pattern).unwrap()]
}

fn assert_same(pattern: &str, text: &str) {
    let (fast, slow) = pair(pattern);
    assert_eq!(
        fast.pieces(text).unwrap(),
        slow.pieces(text).unwrap(),
        "pattern {pattern:?} on {text:?}"
    );
}

/// Characters chosen to hit every branch: each letter class (Lu Ll Lt Lm Lo), marks (Mn Mc),
/// numbers (Nd Nl No), many kinds of whitespace, the contraction letters in both cases and
/// their case-folding cousins (ſ folds to s, K is the Kelvin sign), punctuation and emoji.
const ALPHABET: &[char] = &[
    'a', 'b', 'A', 'B', 's', 'S', 'ſ', 't', 'T', 'd', 'D', 'm', 'M', 'l', 'L', 'v', 'V', 'e', 'E',
    'r', 'R', 'K', 'k', '\'', '’', ' ', ' ', ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{85}',
    '\u{a0}', '\u{2028}', '\u{3000}', '0', '7', '½', '²', 'Ⅻ', '٣', '中', '文', 'ア', 'ʰ', 'ǅ',
    'é', 'É', 'ß', '\u{301}', '\u{903}', '\u{200d}', '.', ',', '/', '!', '-', '_', '$', '😀', '👍',
    '\u{fe0f}', '\u{0}', 'Я', 'ж', 'ก', '\u{e33}', 'ا', 'ह', '\u{93f}',
];

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..40)
        .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn same_pieces_on_tricky_alphabet(text in text_strategy()) {
        for p in PATTERNS {
            assert_same(p, &text);
        }
    }

    #[test]
    fn same_pieces_on_any_unicode(text in "\\PC{0,30}") {
        for p in PATTERNS {
            assert_same(p, &text);
        }
    }
}

#[test]
fn same_pieces_on_committed_test_text() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
    for file in ["multilingual.txt", "code.txt"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        for p in PATTERNS {
            // Line by line gives many starts and ends; the whole file checks long-range state.
            for line in text.split_inclusive('\n') {
                assert_same(p, line);
            }
            assert_same(p, &text[..text.len().min(200_000)]);
        }
    }
}

#[test]
fn long_runs_are_split_like_the_regex() {
    for p in PATTERNS {
        for unit in ["a", " ", "\n", "中", "A", "1", "!", " a", "\u{301}", "Aa中"] {
            assert_same(p, &unit.repeat(500));
            assert_same(p, &format!("{}x", unit.repeat(500)));
        }
    }
}

/// Every hand-written splitter, for comparing its block fast path with its scalar path.
fn all_splitters() -> Vec<PreTokenizer> {
    [
        R50K_PATTERN,
        CL100K_PATTERN,
        O200K_PATTERN,
        LLAMA3_PATTERN,
        QWEN2_PATTERN,
    ]
    .iter()
    .map(|p| PreTokenizer::new(p).unwrap())
    .collect()
}

fn assert_block_path_is_scalar(text: &str) {
    for pre in all_splitters() {
        assert_eq!(
            pre.pieces(text).unwrap(),
            pre.scalar_pieces(text).unwrap(),
            "{pre:?} on {text:?}"
        );
    }
}

/// Mostly ASCII, with every ASCII class, the pattern quirks (contractions in both cases,
/// `\r\n` runs, whitespace before words and punctuation, digit runs) and a few non-ASCII chars
/// that must send the decision to the scalar splitter (letters, marks, `ſ`, no-break and
/// other Unicode spaces).
const ASCII_HEAVY: &[&str] = &[
    "a", "b", "Z", "Hello", "WORLD", "x", "'s", "'S", "'ll", "'LL", "'ve", "'Re", "'d", "'t", "'m",
    "'", "'x", " ", "  ", "    ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\u{b}", "\u{c}", "0",
    "12", "12345", ".", ",", "/", "//", "!?", "-", "(", "_", "\u{0}", "\u{7f}", "ſ", "é", "中",
    "\u{301}", "\u{a0}", "\u{85}", "\u{3000}", "’", "😀",
];

fn ascii_heavy_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ASCII_HEAVY), 0..200).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn block_path_equals_scalar_on_ascii_heavy_text(text in ascii_heavy_text()) {
        assert_block_path_is_scalar(&text);
    }

    #[test]
    fn block_path_equals_scalar_on_random_ascii(text in "[\\x00-\\x7f]{0,300}") {
        assert_block_path_is_scalar(&text);
    }
}

#[test]
fn block_path_equals_scalar_on_committed_text_and_long_runs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
    for file in ["multilingual.txt", "code.txt"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        assert_block_path_is_scalar(&text);
        for line in text.split_inclusive('\n').take(2000) {
            assert_block_path_is_scalar(line);
        }
    }
    for unit in [
        "a", "A", "aA", " ", "\n", "\r\n", " \n", "1", "!", " a", "'s", "é",
    ] {
        for n in [63, 64, 65, 127, 128, 129, 500] {
            let run = unit.repeat(n);
            assert_block_path_is_scalar(&run);
            assert_block_path_is_scalar(&format!("{run}x"));
            assert_block_path_is_scalar(&format!("x{run} y"));
        }
    }
}
