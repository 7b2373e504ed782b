//! The whole-block splitter (`pre_tokenizers::block_starts`) must cut where the scalar
//! splitter and the reference regex do: on seeded random text that is mostly ASCII (where the
//! block path answers) with some non-ASCII (where it hands over), and with every tricky
//! sequence placed across the edges of the 64-byte blocks.

use tokensmith_core::hf::known_split::{LLAMA3_PATTERN, QWEN2_PATTERN};
use tokensmith_core::pre_tokenizers::{PreTokenizer, CL100K_PATTERN, O200K_PATTERN};

mod common;
use common::Rng;

const PATTERNS: [&str; 4] = [CL100K_PATTERN, O200K_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN];

/// (the splitter, the same pattern as a plain regex) for each pattern: `check` compares the
/// splitter's block path with its scalar path and with the regex.
fn splitters() -> Vec<(PreTokenizer, PreTokenizer)> {
    PATTERNS
        .iter()
        .map(|p| {
            (
                PreTokenizer::new(p).unwrap(),
                PreTokenizer::regex(p).unwrap(),
            )
        })
        .collect()
}

fn check(all: &[(PreTokenizer, PreTokenizer)], text: &str) {
    for (fast, regex) in all {
        let pieces = fast.pieces(text).unwrap();
        assert_eq!(
            pieces,
            fast.scalar_pieces(text).unwrap(),
            "{fast:?} against its scalar path on {text:?}"
        );
        assert_eq!(
            pieces,
            regex.pieces(text).unwrap(),
            "{fast:?} against the regex on {text:?}"
        );
    }
}

/// Units that exercise each rule: letters of both cases, contraction letters, every ASCII
/// whitespace, `\r\n` runs, digits, punctuation with `'` and `/`, and non-ASCII letters,
/// spaces and `ſ` (which folds to `s` in contractions). Spaces and line breaks are listed more
/// than once so that they are drawn more often.
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
    " ",
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\n",
    "\r\n",
    "\r",
    " \n",
    "\n ",
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
    "-",
    "(",
    "\"",
    "\u{0}",
    "\u{7f}",
    "é",
    "中",
    "ſ",
    "\u{a0}",
    "\u{85}",
    "\u{3000}",
    "\u{301}",
    "’",
];

/// Random text of `units` units drawn from `pool`.
fn random_text(rng: &mut Rng, pool: &[&str], units: usize) -> String {
    (0..units).map(|_| pool[rng.below(pool.len())]).collect()
}

#[test]
fn random_ascii_text_is_cut_like_the_scalar_splitter_and_the_regex() {
    let all = splitters();
    let ascii: Vec<&str> = UNITS.iter().copied().filter(|u| u.is_ascii()).collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..3000 {
        let pool = if round % 4 == 0 { UNITS } else { &ascii[..] };
        let units = rng.below(160);
        check(&all, &random_text(&mut rng, pool, units));
    }
}

#[test]
fn random_bytes_of_ascii_are_cut_like_the_regex() {
    let all = splitters();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..1500 {
        let len = rng.below(300);
        let text: String = (0..len).map(|_| (rng.below(128) as u8) as char).collect();
        check(&all, &text);
    }
}

#[test]
fn every_unit_pair_across_every_block_edge() {
    // A lead-in of each class pushes the pair onto and around the block path's limits
    // (bytes 58 to 66 of a block, and the end of the text).
    let all = splitters();
    for lead in ["a", " ", "1", ".", "\n"] {
        for pad in 56..=68 {
            let head = lead.repeat(pad);
            for first in UNITS {
                for second in ["s", " ", "\n", "x", "1", "'", "/", "é", "A"] {
                    check(&all, &format!("{head}{first}{second}"));
                    check(&all, &format!("{head}{first}{second} tail"));
                }
            }
        }
    }
}

#[test]
fn whitespace_runs_with_line_breaks_inside_and_across_blocks() {
    let all = splitters();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let pool = [
        " ", "\t", "\n", "\r", "\r\n", "  \n", "\n  ", "x", ".", "/", "'s",
    ];
    for _ in 0..2000 {
        let units = rng.below(120);
        check(&all, &random_text(&mut rng, &pool, units));
    }
}
