//! A hand-written splitter equal to cl100k_base's pattern:
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
//! ```
//!
//! Every char is matched by some alternative, so the pieces tile the text and the splitter
//! only has to find where the piece that starts at `i` ends. The alternatives are tried in
//! order, as a backtracking engine does. Equality with the regex is property-tested.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, CL100K_PATTERN};
//! let pre = PreTokenizer::new(CL100K_PATTERN).unwrap();
//! assert_eq!(pre.pieces("I'm 12345 x").unwrap(), ["I", "'m", " ", "123", "45", " x"]);
//! ```

use super::char_class::{LETTER, NUMBER};
use super::scan::{is_letter_prefix, is_other, Scanner, SpaceRules};

const SPACES: SpaceRules = SpaceRules {
    newline: true,
    newline_first: false,
};

/// The tail of the Llama-3 and Qwen2 patterns, `\s*[\r\n]+|\s+(?!\S)|\s+` (o200k's).
const LLAMA3_SPACES: SpaceRules = SpaceRules {
    newline: true,
    newline_first: true,
};

/// The end of the piece that starts at `i` (a char boundary below the text's length).
#[inline]
pub fn piece_end(s: &Scanner, i: usize) -> usize {
    piece_end_with(s, i, 3, SPACES)
}

/// The end of the piece of the Llama-3 pattern (`tokenizer.json` files; see
/// [`crate::hf::known_split`]): cl100k's head with o200k's whitespace tail.
#[inline]
pub fn llama3_piece_end(s: &Scanner, i: usize) -> usize {
    piece_end_with(s, i, 3, LLAMA3_SPACES)
}

/// The end of the piece of the Qwen2 pattern: Llama-3's with one digit a piece.
#[inline]
pub fn qwen2_piece_end(s: &Scanner, i: usize) -> usize {
    piece_end_with(s, i, 1, LLAMA3_SPACES)
}

/// The pattern's pieces with at most `max_digits` digits a piece and whitespace cut by
/// `spaces`.
#[inline(always)]
fn piece_end_with(s: &Scanner, i: usize, max_digits: usize, spaces: SpaceRules) -> usize {
    let c = s.at(i);
    let is_letter = |f: u8| f & LETTER != 0;
    if c.cp == '\'' as u32 {
        if let Some(e) = s.contraction_end(i, true) {
            return e;
        }
    }
    if is_letter(c.flags) {
        return s.run_end(i + c.len, is_letter);
    }
    if is_letter_prefix(c) {
        if let Some(next) = s.get(i + c.len) {
            if is_letter(next.flags) {
                return s.run_end(i + c.len + next.len, is_letter);
            }
        }
    }
    if c.flags & NUMBER != 0 {
        return s.run_end_max(i, max_digits, |f| f & NUMBER != 0);
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
        return s.newline_run_end(end, false);
    }
    s.space_piece_end(i, spaces)
}
