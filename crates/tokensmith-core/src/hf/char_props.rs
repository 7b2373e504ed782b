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

/// General category P (Pc, Pd, Pe, Pf, Pi, Po, Ps).
pub fn is_punctuation(c: char) -> bool {
    c.is_punctuation()
}

/// General category Mn: the marks that the BertNormalizer's strip_accents removes.
pub fn is_mark_nonspacing(c: char) -> bool {
    c.is_mark_nonspacing()
}

/// General categories Cc, Cf, Cn and Co (control, format, unassigned, private use).
pub fn is_other(c: char) -> bool {
    c.is_other()
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
