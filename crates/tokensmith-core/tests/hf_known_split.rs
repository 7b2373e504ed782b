//! The hand-written matchers of the Llama-3, Qwen2 and ` {2,}` patterns must cut where the
//! regex engine does, for every behavior and with `invert`; and the byte splitters the
//! engine uses for the Llama-3 and Qwen2 patterns ([`PreTokenizer`]) must cut where the
//! character matchers do.

use proptest::prelude::*;
use std::sync::OnceLock;
use tokensmith_core::hf::known_split::{LLAMA3_PATTERN, QWEN2_PATTERN, SPACE_RUNS_PATTERN};
use tokensmith_core::hf::regex_split::Split;
use tokensmith_core::hf::split::Behavior;
use tokensmith_core::pre_tokenizers::PreTokenizer;

const PATTERNS: [&str; 3] = [LLAMA3_PATTERN, QWEN2_PATTERN, SPACE_RUNS_PATTERN];
const BEHAVIORS: [Behavior; 5] = [
    Behavior::Isolated,
    Behavior::Removed,
    Behavior::Contiguous,
    Behavior::MergedWithPrevious,
    Behavior::MergedWithNext,
];

/// (pattern, behavior, invert, fast split, regex split) for every combination, compiled once.
type Case = (&'static str, Behavior, bool, Split, Split);

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut cases = Vec::new();
        for pattern in PATTERNS {
            for behavior in BEHAVIORS {
                for invert in [false, true] {
                    let fast = Split::new(pattern, false, behavior, invert).unwrap();
                    let slow = Split::regex_only(pattern, false, behavior, invert).unwrap();
                    cases.push((pattern, behavior, invert, fast, slow));
                }
            }
        }
        cases
    })
}

/// Asserts that the engine's byte splitter for each words pattern cuts `text` where the
/// character matcher does (byte offsets against character offsets).
fn assert_bytes_same(text: &str) {
    let chars: Vec<char> = text.chars().collect();
    let mut byte_at = vec![0usize];
    for c in &chars {
        byte_at.push(byte_at.last().unwrap() + c.len_utf8());
    }
    for pattern in [LLAMA3_PATTERN, QWEN2_PATTERN] {
        let split = Split::new(pattern, false, Behavior::Isolated, false).unwrap();
        let want: Vec<(usize, usize)> = split
            .split_chars(&chars)
            .unwrap()
            .into_iter()
            .map(|(s, e)| (byte_at[s], byte_at[e]))
            .collect();
        let mut got = Vec::new();
        let pre = PreTokenizer::new(pattern).unwrap();
        assert!(!matches!(pre, PreTokenizer::Regex(_)), "{pattern:?}");
        pre.for_each_piece(text, |s, e| got.push((s, e))).unwrap();
        assert_eq!(got, want, "{pattern:?} on {text:?}");
    }
}

/// Asserts that the fast and the regex `Split` cut `text` the same way under `behaviors`.
fn assert_same(text: &str, behaviors: &[Behavior]) {
    let chars: Vec<char> = text.chars().collect();
    for (pattern, behavior, invert, fast, slow) in cases() {
        if behaviors.contains(behavior) {
            assert_eq!(
                fast.split_chars(&chars).unwrap(),
                slow.split_chars(&chars).unwrap(),
                "{pattern:?} {behavior:?} invert={invert} on {text:?}"
            );
        }
    }
}

/// Characters of every class the pattern tells apart: letters of each case and script,
/// marks, numbers of each kind, the line breaks and other whitespace, apostrophes and the
/// contraction letters with their case-folding cousins (`ſ` folds to `s`, `K` is the Kelvin
/// sign), punctuation, symbols, emoji and controls.
const ALPHABET: &[char] = &[
    'a', 'Z', 's', 'S', 'ſ', 't', 'T', 'r', 'R', 'e', 'E', 'v', 'V', 'm', 'M', 'l', 'L', 'd', 'D',
    'k', 'K', '\'', '’', '`', ' ', ' ', ' ', ' ', '\t', '\n', '\n', '\r', '\u{b}', '\u{c}',
    '\u{85}', '\u{a0}', '\u{2029}', '\u{3000}', '1', '9', '٣', '²', '½', 'Ⅻ', '中', 'ひ', 'ʰ', 'ǅ',
    'ü', 'ß', '\u{300}', '\u{94d}', '\u{200c}', '.', '?', '-', '/', '#', '€', '😀', '\u{fe0f}',
    '\u{1}', 'Ж', 'ф', 'ก', 'ع', 'क',
];

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..48)
        .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn isolated_on_the_class_alphabet(text in text_strategy()) {
        assert_same(&text, &[Behavior::Isolated]);
        assert_bytes_same(&text);
    }

    #[test]
    fn isolated_on_any_text(text in "\\PC{0,32}") {
        assert_same(&text, &[Behavior::Isolated]);
        assert_bytes_same(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_behavior(text in text_strategy()) {
        assert_same(&text, &BEHAVIORS);
    }
}

#[test]
fn committed_text_line_by_line_and_whole() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
    for file in ["multilingual.txt", "code.txt"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        for line in text.split_inclusive('\n') {
            assert_same(line, &[Behavior::Isolated]);
        }
        let head: String = text.chars().take(50_000).collect();
        assert_same(&head, &[Behavior::Isolated]);
        assert_bytes_same(&text);
    }
}

#[test]
fn long_runs() {
    for unit in [
        "b", " ", "\n", " \n", "\r\n ", "7", "!", " !", "'s", "\u{301}", "x\t",
    ] {
        assert_same(&unit.repeat(300), &[Behavior::Isolated]);
        assert_same(&format!("{}y", unit.repeat(300)), &[Behavior::Isolated]);
        assert_bytes_same(&unit.repeat(300));
        assert_bytes_same(&format!("{}y", unit.repeat(300)));
    }
}
