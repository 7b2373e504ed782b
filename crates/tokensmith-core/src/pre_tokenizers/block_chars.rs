//! The classes of a block's non-ASCII chars, added to its [`Block`] masks, so that the block
//! path ([`super::block_starts`]) also cuts text in other scripts.
//!
//! Each non-ASCII char is decoded and looked up in the flat per-code-point table of
//! [`char_class`](super::char_class); its class bit (letter, number or whitespace; none for
//! the rest) is set on every byte of the char. A rule that looks at "the byte before" then
//! sees the class of the char before, and a run of one class covers whole chars. The starts
//! that the rules find inside a char (which happen only at its last byte, see
//! [`last_to_first`]) are moved to its first byte.
//!
//! Three things stop the block early, at the first byte of the char concerned: a char that
//! crosses the block's end, a non-ASCII number where the pattern counts digits
//! (`\p{N}{1,3}` counts chars, the masks count bytes), and for o200k a mark after
//! punctuation (see [`CharRules::cases`]). Everything from there on is left to the scalar
//! splitter.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::block_chars::{add_classes, CharRules};
//! use tokensmith_core::pre_tokenizers::blocks::Block;
//! use tokensmith_core::pre_tokenizers::char_class::Classes;
//! let text = "é a\u{a0}½".as_bytes(); // 2 + 1 + 1 + 2 + 2 bytes
//! let mut m = Block::at(text, 0);
//! let cont = Block::cont_at(text, 0);
//! let rules = CharRules { numbers: false, cases: false };
//! let decided = add_classes(&mut m, cont, text, 0, Classes::new(), rules);
//! assert_eq!(decided, 6, "stops at the number");
//! assert_eq!(m.letter & 0b111111, 0b001011);
//! assert_eq!(m.space & 0b111111, 0b110100);
//! ```

use super::blocks::Block;
use super::char_class::{Classes, LETTER, LOWERISH, MARK, NUMBER, SPACE, UPPERISH};

/// How [`add_classes`] reads a pattern's classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CharRules {
    /// Whether non-ASCII numbers may stay in the block (GPT-2's `\p{N}++` does not count
    /// chars; `\p{N}{1,3}` does, so the block stops at them).
    pub numbers: bool,
    /// o200k's letter classes: a letter is any char of `[\p{L}\p{M}]`, and
    /// [`Block::upper`] / [`Block::both`] get the chars that are only in its first class
    /// (`\p{Lu}`, `\p{Lt}`) and those in both (`\p{Lm}`, `\p{Lo}`, `\p{M}`). A mark that
    /// follows a char of none of the classes letter, number and whitespace stops the block: it
    /// may continue that char's punctuation run (`[^\s\p{L}\p{N}]+` takes marks).
    pub cases: bool,
}

/// Adds the classes of the non-ASCII chars of the block `m` of `bytes[i..]` (whose
/// continuation bytes are `cont`, see [`Block::cont_at`]), and returns how
/// many bytes from `i` are decided: up to the end of the text, the first char that crosses
/// the block's end, the first non-ASCII number (unless `rules.numbers`) or, with
/// `rules.cases`, the first mark after punctuation. Bytes from there on become high bytes
/// in `m`.
#[inline(always)]
pub fn add_classes(
    m: &mut Block,
    cont: u64,
    bytes: &[u8],
    i: usize,
    classes: Classes,
    rules: CharRules,
) -> usize {
    let letters = if rules.cases {
        UPPERISH | LOWERISH
    } else {
        LETTER
    };
    let mut decided = (bytes.len() - i).min(64);
    let mut firsts = m.high & !cont & below(decided);
    while firsts != 0 {
        let p = firsts.trailing_zeros() as usize;
        firsts &= firsts - 1;
        let b = &bytes[i + p..];
        let (cp, len) = match b[0] {
            0xC0..=0xDF => (u32::from(b[0] & 0x1F) << 6 | u32::from(b[1] & 0x3F), 2),
            0xE0..=0xEF => (
                u32::from(b[0] & 0x0F) << 12 | u32::from(b[1] & 0x3F) << 6 | u32::from(b[2] & 0x3F),
                3,
            ),
            _ => (
                u32::from(b[0] & 0x07) << 18
                    | u32::from(b[1] & 0x3F) << 12
                    | u32::from(b[2] & 0x3F) << 6
                    | u32::from(b[3] & 0x3F),
                4,
            ),
        };
        let flags = classes.of(cp);
        if p + len > 64 || (!rules.numbers && flags & NUMBER != 0) {
            decided = p;
            break;
        }
        // A mark after punctuation may belong to its run: leave it to the scalar splitter.
        if rules.cases && flags & MARK != 0 && p > 0 {
            let classed = m.letter | m.digit | m.space;
            if classed >> (p - 1) & 1 == 0 {
                decided = p;
                break;
            }
        }
        let char_bits = ((1u64 << len) - 1) << p;
        // Branch-free: scripts mix letters, spaces and punctuation unpredictably.
        m.letter |= char_bits * u64::from(flags & letters != 0);
        m.digit |= char_bits * u64::from(flags & NUMBER != 0);
        m.space |= char_bits * u64::from(flags & SPACE != 0);
        if rules.cases {
            let case = flags & (UPPERISH | LOWERISH);
            m.upper |= char_bits * u64::from(case == UPPERISH);
            m.both |= char_bits * u64::from(case == UPPERISH | LOWERISH);
        }
    }
    m.high = !below(decided);
    decided
}

/// Bits `0..n` (`n` at most 64).
#[inline(always)]
pub fn below(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// Moves each bit set on the last byte of a char to the char's first byte (`cont` marks the
/// bytes of a char after its first; a char has at most three of them). Pure ASCII, where
/// `cont` is 0, returns at once.
#[inline(always)]
pub fn last_to_first(bits: u64, cont: u64) -> u64 {
    if cont == 0 {
        return bits;
    }
    let mut b = bits;
    for _ in 0..3 {
        b |= (b & cont) >> 1;
    }
    b & !cont
}

/// Sets each bit set on the first byte of a char on the rest of the char's bytes too.
#[inline(always)]
pub fn first_to_all(bits: u64, cont: u64) -> u64 {
    if cont == 0 {
        return bits;
    }
    let mut b = bits;
    for _ in 0..3 {
        b |= (b << 1) & cont;
    }
    b
}
