//! A hand-written splitter equal to o200k_base's pattern, the alternation of:
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! \p{N}{1,3}
//!  ?[^\s\p{L}\p{N}]+[\r\n/]*
//! \s*[\r\n]+
//! \s+(?!\S)
//! \s+
//! ```
//!
//! The first alternative backtracks: when the "upper" run is not followed by a "lower" char,
//! the engine gives back chars of the upper run until one of them is also "lower" (Lm, Lo
//! and M are in both classes). [`lower_last`] computes that result directly from one forward
//! and one backward scan, so the whole splitter stays linear.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, O200K_PATTERN};
//! let pre = PreTokenizer::new(O200K_PATTERN).unwrap();
//! assert_eq!(pre.pieces("HELLOworld it's").unwrap(), ["HELLOworld", " it's"]);
//! ```

use super::char_class::{LOWERISH, NUMBER, UPPERISH};
use super::scan::{is_letter_prefix, is_other, Scanner, SpaceRules};

const SPACES: SpaceRules = SpaceRules {
    newline: true,
    newline_first: true,
};

#[inline(always)]
fn upper(f: u8) -> bool {
    f & UPPERISH != 0
}

#[inline(always)]
fn lower(f: u8) -> bool {
    f & LOWERISH != 0
}

/// `U* L+ C?` from `s`, where U and L are the two letter classes and C the contractions.
#[inline(always)]
fn lower_last(sc: &Scanner, s: usize) -> Option<usize> {
    let upper_end = sc.run_end(s, upper);
    if let Some(c) = sc.get(upper_end) {
        if lower(c.flags) {
            let end = sc.run_end(upper_end + c.len, lower);
            return Some(sc.contraction_end(end, true).unwrap_or(end));
        }
    }
    // Give back upper chars until one is also lower; that char alone forms the L+ run,
    // because every char after it (in the run or just past it) is not lower.
    let mut p = upper_end;
    while p > s {
        let start = sc.prev_start(p);
        if lower(sc.at(start).flags) {
            return Some(sc.contraction_end(p, true).unwrap_or(p));
        }
        p = start;
    }
    None
}

/// `U+ L* C?` from `s`.
#[inline(always)]
fn upper_first(sc: &Scanner, s: usize) -> Option<usize> {
    let upper_end = sc.run_end(s, upper);
    if upper_end == s {
        return None;
    }
    let end = sc.run_end(upper_end, lower);
    Some(sc.contraction_end(end, true).unwrap_or(end))
}

/// The end of the piece that starts at `i` (a char boundary below the text's length).
#[inline]
pub fn piece_end(s: &Scanner, i: usize) -> usize {
    let c = s.at(i);
    let prefixed = is_letter_prefix(c);
    if c.flags & (UPPERISH | LOWERISH) != 0 || prefixed {
        let after = i + c.len;
        let found = (prefixed.then(|| lower_last(s, after)).flatten())
            .or_else(|| lower_last(s, i))
            .or_else(|| prefixed.then(|| upper_first(s, after)).flatten())
            .or_else(|| upper_first(s, i));
        if let Some(end) = found {
            return end;
        }
    }
    if c.flags & NUMBER != 0 {
        return s.run_end_max(i, 3, |f| f & NUMBER != 0);
    }
    let other_start = if c.cp == ' ' as u32 {
        s.get(i + 1).filter(|n| is_other(n.flags)).map(|_| i + 1)
    } else if is_other(c.flags) {
        Some(i)
    } else {
        None
    };
    if let Some(start) = other_start {
        let end = s.other_run_end(start);
        return s.newline_run_end(end, true);
    }
    s.space_piece_end(i, SPACES)
}
