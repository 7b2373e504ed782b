//! A hand-written splitter equal to the GPT-2 / r50k / p50k pattern:
//!
//! ```text
//! '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
//! ```
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
//! let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
//! assert_eq!(pre.pieces("Hello  world's 42").unwrap(), ["Hello", " ", " world", "'s", " 42"]);
//! ```

use super::blocks::Block;
use super::char_class::{LETTER, NUMBER};
use super::scan::{is_other, Scanner, SpaceRules};

const SPACES: SpaceRules = SpaceRules {
    newline: false,
    newline_first: false,
};

/// Whether a char's flags are in a class.
type Keep = fn(u8) -> bool;
/// The ASCII bytes of a class in a block's masks.
type AsciiMask = fn(&Block) -> u64;

/// The end of the piece that starts at `i` (a char boundary below the text's length).
#[inline]
pub fn piece_end(s: &Scanner, i: usize) -> usize {
    let c = s.at(i);
    if c.cp == '\'' as u32 {
        if let Some(e) = s.contraction_end(i, false) {
            return e;
        }
    }
    // ` ?X++` for the three classes X, in the pattern's order.
    let (start, head) = match (c.cp == ' ' as u32).then(|| s.get(i + 1)).flatten() {
        Some(next) if next.flags & (LETTER | NUMBER) != 0 || is_other(next.flags) => (i + 1, next),
        _ => (i, c),
    };
    // Each class with its ASCII bytes' block mask, for long runs.
    let classes: [(Keep, AsciiMask); 3] = [
        (|f| f & LETTER != 0, |m| m.letter),
        (|f| f & NUMBER != 0, |m| m.digit),
        (is_other, Block::other),
    ];
    for (keep, ascii) in classes {
        if keep(head.flags) {
            return s.long_run_end(start + head.len, ascii, keep);
        }
    }
    s.space_piece_end(i, SPACES)
}
