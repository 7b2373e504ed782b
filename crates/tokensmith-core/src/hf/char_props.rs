//! Unicode general-category tests that HF's components use.
//!
//! The BERT tests (punctuation, nonspacing marks, "other") come from the `unicode_categories`
//! crate, the one HF `tokenizers` uses (and StripAccents' marks from its
//! `unicode-normalization-alignments`): its tables are older than the current Unicode (it
//! does not know most unassigned code points as Cn, nor recent punctuation), and matching
//! HF on every code point means using the same tables. The other classes come from
//! `regex-syntax` (the same source as `pre_tokenizers::char_class`), built once on first use.
//!
//! ```
//! use tokensmith_core::hf::char_props::{is_punctuation, is_mark_nonspacing};
//! assert!(is_punctuation('¿'));
//! assert!(is_mark_nonspacing('\u{301}'));
//! ```

use regex_syntax::hir::{Class, HirKind};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use unicode_categories::UnicodeCategories;

fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    // The patterns are constants of this file, so a parse failure is a bug caught by tests.
    let hir = regex_syntax::parse(pattern).expect("constant class pattern parses");
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        unreachable!("constant pattern {pattern} is a Unicode class")
    };
    class
        .ranges()
        .iter()
        .map(|r| (r.start() as u32, r.end() as u32))
        .collect()
}

fn contains(table: &[(u32, u32)], c: char) -> bool {
    let cp = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

macro_rules! class_fn {
    ($(#[$doc:meta])* $name:ident, $pattern:expr) => {
        $(#[$doc])*
        pub fn $name(c: char) -> bool {
            static TABLE: OnceLock<Vec<(u32, u32)>> = OnceLock::new();
            contains(TABLE.get_or_init(|| ranges($pattern)), c)
        }
    };
}

const PUNCTUATION: u8 = 1;
const MARK_NONSPACING: u8 = 2;
const OTHER: u8 = 4;
/// Set in every computed cell, so that 0 means "not computed yet".
const KNOWN: u8 = 8;

/// The BERT classes of each code point of the Basic Multilingual Plane, computed on first
/// use. The crate's tests are binary searches over one table per category (seven for
/// punctuation), and BERT's normalizer and pre-tokenizer ask them of every character.
/// A cell only ever goes from 0 to its one value, so relaxed loads and stores suffice.
static BMP_CLASSES: [AtomicU8; 0x10000] = [const { AtomicU8::new(0) }; 0x10000];

fn compute_classes(c: char) -> u8 {
    let mut classes = KNOWN;
    if c.is_punctuation() {
        classes |= PUNCTUATION;
    }
    if c.is_mark_nonspacing() {
        classes |= MARK_NONSPACING;
    }
    if c.is_other() {
        classes |= OTHER;
    }
    classes
}

#[inline]
fn classes(c: char) -> u8 {
    let Some(cell) = BMP_CLASSES.get(c as usize) else {
        return compute_classes(c);
    };
    match cell.load(Ordering::Relaxed) {
        0 => {
            let classes = compute_classes(c);
            cell.store(classes, Ordering::Relaxed);
            classes
        }
        known => known,
    }
}

/// General category P (Pc, Pd, Pe, Pf, Pi, Po, Ps).
pub fn is_punctuation(c: char) -> bool {
    classes(c) & PUNCTUATION != 0
}

/// General category Mn: the marks that the BertNormalizer's strip_accents removes.
pub fn is_mark_nonspacing(c: char) -> bool {
    classes(c) & MARK_NONSPACING != 0
}

/// General categories Cc, Cf and Co (control, format, private use): the crate's `is_other`,
/// which leaves out unassigned code points (Cn).
pub fn is_other(c: char) -> bool {
    classes(c) & OTHER != 0
}

/// A combining mark (Mn, Mc or Me) as HF's StripAccents normalizer sees it: the tables of
/// `unicode-normalization-alignments`, the crate HF uses there, which predate recent Unicode
/// additions (U+0897, for one, is not a mark to it).
pub fn is_mark(c: char) -> bool {
    unicode_normalization_alignments::char::is_combining_mark(c)
}

class_fn!(
    /// Unicode `\w` as Oniguruma and UTS #18 define it: Alphabetic, M, Nd, Pc and
    /// Join_Control (so `Ⅻ` and ZWJ are word characters, `²` and `½` are not).
    is_onig_word,
    r"\w"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_classes_equal_the_crates_tests() {
        // Twice over: the first pass fills the cells, the second reads them.
        for _ in 0..2 {
            for c in (0..0x11000).filter_map(char::from_u32) {
                assert_eq!(is_punctuation(c), c.is_punctuation(), "{c:?}");
                assert_eq!(is_mark_nonspacing(c), c.is_mark_nonspacing(), "{c:?}");
                assert_eq!(is_other(c), c.is_other(), "{c:?}");
            }
        }
    }

    #[test]
    fn categories() {
        assert!(is_punctuation('.') && is_punctuation('、') && !is_punctuation('$'));
        assert!(is_mark_nonspacing('\u{300}') && !is_mark_nonspacing('a'));
        assert!(is_mark('\u{9bf}') && !is_mark_nonspacing('\u{9bf}'));
        assert!(!is_mark('\u{897}'));
        assert!(is_other('\u{200b}') && is_other('\u{7}') && is_other('\u{e000}'));
        assert!(!is_other('a') && !is_other(' '));
        assert!(is_onig_word('Ⅻ') && is_onig_word('_') && is_onig_word('\u{200d}'));
        assert!(!is_onig_word('²') && !is_onig_word('½') && !is_onig_word('-'));
    }
}
