//! Unicode simple case folding (`CaseFolding.txt` statuses C and S: one character to one
//! character), which sentencepiece's `*_cf` rules apply with ICU's `u_foldCase`.
//!
//! Derived from Rust's case mappings instead of a table of our own:
//! - a character whose lowercase is one other character folds to it (`A` → `a`, `ǅ` → `ǆ`,
//!   `K` (Kelvin) → `k`);
//! - a lowercase variant folds to the lowercase of its uppercase (`ſ` → `s`, `ς` → `σ`,
//!   `ϐ` → `β`, U+0345 → `ι`), except `ı` (U+0131), which folds only under the Turkic rules
//!   sentencepiece does not use;
//! - Cherokee folds to its uppercase letters (U+13A0-U+13F5), the one script whose folding
//!   goes that way, for stability with Unicode 8, which added the lowercase letters.
//!
//! Characters whose full folding has several characters (`ß`, `İ`, `ŉ`) and no simple folding
//! stay as they are. The parity test compares every code point with sentencepiece.
//!
//! ```
//! use tokensmith_core::normalizers::case_fold::simple_fold;
//! assert_eq!(simple_fold('Q'), 'q');
//! assert_eq!(simple_fold('ς'), 'σ');
//! assert_eq!(simple_fold('ß'), 'ß');
//! assert_eq!(simple_fold('\u{AB70}'), '\u{13A0}');
//! ```

/// The simple case folding of `c`.
pub fn simple_fold(c: char) -> char {
    match c as u32 {
        0x13A0..=0x13F5 => return c,
        0x13F8..=0x13FD => return char::from_u32(c as u32 - 8).unwrap_or(c),
        0xAB70..=0xABBF => return char::from_u32(c as u32 - 0xAB70 + 0x13A0).unwrap_or(c),
        0x0131 => return c,
        _ => {}
    }
    if let Some(lower) = single(c.to_lowercase()) {
        if lower != c {
            return lower;
        }
    }
    if let Some(upper) = single(c.to_uppercase()) {
        if let Some(lower) = single(upper.to_lowercase()) {
            return lower;
        }
    }
    c
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let first = chars.next()?;
    chars.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_is_idempotent_and_keeps_case_classes() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let f = simple_fold(c);
            assert_eq!(
                simple_fold(f),
                f,
                "{c:?} folds to {f:?}, which folds further"
            );
            if f != c {
                // A folded pair is one case class: the uppercase forms agree (Cherokee's
                // uppercase letters fold to themselves, so compare the other way too).
                let same = single(c.to_uppercase()) == single(f.to_uppercase())
                    || single(c.to_lowercase()) == single(f.to_lowercase());
                assert!(same, "{c:?} -> {f:?}");
            }
        }
    }
}
