//! The hand-written splitters must cut text exactly where the reference regex does, and their
//! block path (`pre_tokenizers::block_starts`) exactly where their scalar path does.
//!
//! The reference is the published pattern run on fancy-regex, the engine tiktoken uses. Every
//! check runs all six known patterns (two spellings of GPT-2's) and compares four splits of
//! the same text: the splitter as used (block path with scalar fallback, in the build this
//! CPU runs), the baseline build of the same code (`pre_tokenizers::tiled`), its scalar path
//! alone, and the regex.

use proptest::prelude::*;
use std::sync::OnceLock;
use tokensmith_core::hf::known_split::{LLAMA3_PATTERN, QWEN2_PATTERN};
use tokensmith_core::pre_tokenizers::{
    PreTokenizer, CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, R50K_PATTERN,
};

mod common;
use common::Rng;

const PATTERNS: [&str; 6] = [
    R50K_PATTERN,
    GPT2_PATTERN,
    CL100K_PATTERN,
    O200K_PATTERN,
    LLAMA3_PATTERN,
    QWEN2_PATTERN,
];

/// (hand-written, regex) pre-tokenizers for each pattern, compiled once.
fn pairs() -> &'static [(PreTokenizer, PreTokenizer)] {
    static PAIRS: OnceLock<Vec<(PreTokenizer, PreTokenizer)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
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
    })
}

/// The block path, the scalar path and the regex cut `text` alike, for every pattern.
fn check(text: &str) {
    for (fast, regex) in pairs() {
        let pieces = fast.pieces(text).unwrap();
        assert_eq!(
            pieces,
            fast.scalar_pieces(text).unwrap(),
            "{fast:?} against its scalar path on {text:?}"
        );
        assert_eq!(
            pieces,
            fast.baseline_pieces(text).unwrap(),
            "{fast:?} against its baseline build on {text:?}"
        );
        assert_eq!(
            pieces,
            regex.pieces(text).unwrap(),
            "{fast:?} against the regex on {text:?}"
        );
    }
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

/// Units that exercise each rule: letters of both cases, contraction letters, every ASCII
/// whitespace, `\r\n` runs, digits, punctuation with `'` and `/`, and non-ASCII letters,
/// marks, spaces and `ſ` (which folds to `s` in contractions). Spaces and line breaks are
/// listed more than once so that they are drawn more often.
const UNITS: &[&str] = &[
    "a",
    "e",
    "s",
    "t",
    "l",
    "v",
    "r",
    "d",
    "m",
    "Z",
    "S",
    "L",
    "E",
    "R",
    "D",
    "M",
    "Hello",
    "wORLD",
    "camelCase",
    "HTTPServer",
    "'",
    "'s",
    "'S",
    "'ll",
    "'lL",
    "'Ve",
    "'re",
    "'d",
    "'t",
    "'m",
    "'x",
    "'ss",
    " ",
    " ",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "\n",
    "\r\n",
    "\r",
    " \n",
    "\n ",
    "\n\n",
    "\u{b}",
    "\u{c}",
    "0",
    "7",
    "12",
    "1234",
    "1234567",
    ".",
    ",",
    "/",
    "//",
    "!",
    "!?",
    "-",
    "(",
    "_",
    "\"",
    "\u{0}",
    "\u{7f}",
    "é",
    "É",
    "中",
    "ſ",
    "\u{a0}",
    "\u{85}",
    "\u{3000}",
    "\u{301}",
    "’",
    "😀",
    "Я",
    "ж",
    "٣",
    "ʰ",
    "ǅ",
];

/// Random text of `units` units drawn from `pool`.
fn random_text(rng: &mut Rng, pool: &[&str], units: usize) -> String {
    (0..units).map(|_| pool[rng.below(pool.len())]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn same_pieces_on_tricky_alphabet(text in text_strategy()) {
        check(&text);
    }

    #[test]
    fn same_pieces_on_any_unicode(text in "\\PC{0,30}") {
        check(&text);
    }

    #[test]
    fn same_pieces_on_random_ascii(text in "[\\x00-\\x7f]{0,300}") {
        check(&text);
    }
}

#[test]
fn same_pieces_on_random_unit_text() {
    // Mostly ASCII (where the block path answers alone), a quarter with non-ASCII units.
    let ascii: Vec<&str> = UNITS.iter().copied().filter(|u| u.is_ascii()).collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..3000 {
        let pool = if round % 4 == 0 { UNITS } else { &ascii[..] };
        let units = rng.below(160);
        check(&random_text(&mut rng, pool, units));
    }
}

#[test]
fn every_unit_pair_across_every_block_edge() {
    // A lead-in of each class pushes the pair onto and around the block path's limits
    // (bytes 58 to 66 of a block, and the end of the text).
    for lead in ["a", " ", "1", ".", "\n", "é", "中"] {
        for pad in 56..=68 {
            let head = lead.repeat(pad);
            for first in UNITS {
                for second in ["s", " ", "\n", "x", "1", "'", "/", "é", "A", "\u{301}"] {
                    check(&format!("{head}{first}{second}"));
                    check(&format!("{head}{first}{second} tail"));
                }
            }
        }
    }
}

#[test]
fn whitespace_runs_with_line_breaks_inside_and_across_blocks() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let pool = [
        " ", "\t", "\n", "\r", "\r\n", "  \n", "\n  ", "x", ".", "/", "'s", "\u{a0}", "é",
    ];
    for _ in 0..2000 {
        let units = rng.below(120);
        check(&random_text(&mut rng, &pool, units));
    }
}

#[test]
fn same_pieces_on_committed_test_text() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
    for file in ["multilingual.txt", "code.txt"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        // Line by line gives many starts and ends; the whole file checks long-range state.
        for line in text.split_inclusive('\n') {
            check(line);
        }
        check(&text[..text.len().min(200_000)]);
    }
}

#[test]
fn long_runs_are_split_like_the_regex() {
    for unit in [
        "a", "A", "aA", " ", "\n", "\r\n", " \n", "中", "1", "!", " a", "'s", "é", "\u{301}",
        "Aa中",
    ] {
        for n in [63, 64, 65, 127, 128, 129, 500] {
            let run = unit.repeat(n);
            check(&run);
            check(&format!("{run}x"));
            check(&format!("x{run} y"));
        }
    }
}

#[test]
fn long_ascii_runs_end_where_the_regex_does() {
    // Runs that the scalar splitter skips 64 bytes at a time (punctuation such as table rules,
    // digits, letters), ending at every offset around a block's end and in every way: at the
    // end of the text, at line breaks (which `P` runs take), at non-ASCII chars of the same
    // class or another, at whitespace and at other ASCII classes.
    for unit in ["-", "|-", "+--", "=", "-—", "─", "9", "x", "xY", "a1"] {
        for n in (60..=70).chain([127, 128, 129, 200]) {
            let run = unit.repeat(n);
            for tail in [
                "", "\n", "\r\n|", "é", " x", "—-", "a", "1", "中", "\u{301}",
            ] {
                check(&format!("{run}{tail}"));
                check(&format!(" {run}{tail} end"));
            }
        }
    }
}

/// Units of o200k's case classes: only the first class (Lu, Lt), only the second (Ll), both
/// (Lm, Lo, Mn, Mc), and what ends or prefixes a letter run (punctuation before a mark may
/// take the mark into its run), with contractions in either case.
const CASE_UNITS: &[&str] = &[
    "A",
    "É",
    "Я",
    "ǅ",
    "Ω",
    "a",
    "é",
    "ж",
    "ß",
    "ſ",
    "中",
    "ア",
    "ก",
    "ʰ",
    "ー",
    "\u{301}",
    "\u{93f}",
    "\u{903}",
    "ह",
    " ",
    " ",
    "\n",
    ".",
    "..",
    "'",
    "'s",
    "'S",
    "'ll",
    "'D",
    "1",
    "\u{a0}",
    "!\u{301}",
    " .\u{301}",
    "中A",
    "中Ab",
    "a中A",
    "aBC中",
];

#[test]
fn case_classes_mixed_inside_and_across_blocks() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..6000 {
        let units = rng.below(90);
        check(&random_text(&mut rng, CASE_UNITS, units));
    }
    // Long letter runs of each case mix, cut at every offset around the block end.
    for unit in ["中A", "A中", "a中A", "中a", "ʰA", "\u{301}A", "Яж中"] {
        for pad in 0..70 {
            let run = format!("{}{}", "x".repeat(pad), unit.repeat(40));
            check(&run);
            check(&format!("{run} y"));
            check(&format!("{run}'s."));
        }
    }
}
