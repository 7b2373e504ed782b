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
//! use tokensmith_core::vectors::Vectors;
//! use tokensmith_core::pre_tokenizers::char_class::Classes;
//! let text = "é a\u{a0}½".as_bytes(); // 2 + 1 + 1 + 2 + 2 bytes
//! let mut m = Block::at(text, 0);
//! let cont = Block::cont_at(text, 0);
//! let rules = CharRules { numbers: false, cases: false };
//! let vectors = Vectors::BASELINE;
//! let decided = add_classes(&mut m, cont, text, 0, Classes::new(), rules, vectors);
//! assert_eq!(decided, 6, "stops at the number");
//! assert_eq!(m.letter & 0b111111, 0b001011);
//! assert_eq!(m.space & 0b111111, 0b110100);
//! ```

use super::block_decode::{code_point, decode, short_code_points};
use super::blocks::Block;
use super::char_class::{Classes, LETTER, LOWERISH, MARK, NUMBER, SPACE, UPPERISH};
use super::flag_masks::{masks_with, Test};
use crate::vectors::Vectors;

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

impl CharRules {
    /// The flags that make a char a letter of the block's letter mask.
    #[inline(always)]
    pub fn letters(self) -> u8 {
        if self.cases {
            UPPERISH | LOWERISH
        } else {
            LETTER
        }
    }
}

/// Adds the classes of the non-ASCII chars of the block `m` of `bytes[i..]` (whose
/// continuation bytes are `cont`, see [`Block::cont_at`]), and returns how
/// many bytes from `i` are decided: up to the end of the text, the first char that crosses
/// the block's end, the first non-ASCII number (unless `rules.numbers`) or, with
/// `rules.cases`, the first mark after punctuation. Bytes from there on become high bytes
/// in `m`.
///
/// A block with at most two non-ASCII chars (quote marks or accents in English) takes them
/// one at a time; more go through a flag array ([`add_classes_by_flags`]), whose fixed cost
/// is paid back from the third char on (measured in the x86-64-v3 build: a limit of three
/// costs more instructions on English and multilingual text; a limit of one saves a little
/// for cl100k and GPT-2 and costs more for o200k).
#[inline(always)]
pub fn add_classes(
    m: &mut Block,
    cont: u64,
    bytes: &[u8],
    i: usize,
    classes: Classes,
    rules: CharRules,
    vectors: Vectors,
) -> usize {
    let firsts = m.high & !cont & below((bytes.len() - i).min(64));
    // Less its two lowest bits, `firsts` is empty when it has at most two.
    let after_one = firsts & firsts.wrapping_sub(1);
    if after_one & after_one.wrapping_sub(1) == 0 {
        add_classes_by_char(m, firsts, bytes, i, classes, rules)
    } else {
        add_classes_by_flags(m, firsts, bytes, i, classes, rules, vectors)
    }
}

/// [`add_classes`] one char at a time: each char (`firsts` are their first bytes) is
/// decoded, tested for the stops, and its class bits set on its bytes.
#[inline(always)]
pub fn add_classes_by_char(
    m: &mut Block,
    firsts: u64,
    bytes: &[u8],
    i: usize,
    classes: Classes,
    rules: CharRules,
) -> usize {
    let letters = rules.letters();
    let mut decided = (bytes.len() - i).min(64);
    let mut firsts = firsts;
    while firsts != 0 {
        let p = firsts.trailing_zeros() as usize;
        firsts &= firsts - 1;
        let b = &bytes[i + p..];
        // A lead byte's leading ones are its char's length (2 to 4: the char is not ASCII).
        let len = b[0].leading_ones() as usize;
        let word = b[..len]
            .iter()
            .rev()
            .fold(0u32, |w, &x| w << 8 | u32::from(x));
        let flags = classes.of(code_point(word));
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

/// [`add_classes`] for all chars at once: the loop over the chars only looks up each one's
/// class and writes its flag byte on its bytes (4 bytes from its first; the next char's write
/// covers what spills onto it, and ASCII bytes are masked off); the class masks and the stops
/// then come from that flag array ([`masks`](super::flag_masks::masks)). The code points come from
/// [`short_code_points`] for the 2- and 3-byte chars where it runs (AVX2, and the block and
/// 4 bytes after it in the text), else from [`decode`], one char at a time. `firsts` marks
/// the first byte of each char in the text, as for [`add_classes_by_char`].
#[inline(always)]
pub fn add_classes_by_flags(
    m: &mut Block,
    firsts: u64,
    bytes: &[u8],
    i: usize,
    classes: Classes,
    rules: CharRules,
    vectors: Vectors,
) -> usize {
    let letters = rules.letters();
    let in_text = below((bytes.len() - i).min(64));
    let mut flags = [0u8; 68];
    // Writes the flag byte of the char at `p`, whose code point is `cp`, on its bytes.
    let mut put = |p: usize, cp: u32| {
        let f = classes.of(cp);
        flags[p..p + 4].copy_from_slice(&(u32::from(f) * 0x0101_0101).to_le_bytes());
    };
    let window: Option<&[u8; 68]> = bytes.get(i..i + 68).map(|w| w.try_into().expect("68"));
    match window.and_then(|w| Some((w, short_code_points(w, vectors)?))) {
        Some((window, (short, four))) => {
            each_bit(firsts & !four, |p| put(p, u32::from(short[p])));
            each_bit(firsts & four, |p| put(p, decode(window, p)));
        }
        None => {
            let chunk = padded_chunk(bytes, i);
            each_bit(firsts, |p| put(p, decode(&chunk, p)));
        }
    }
    let flags: &[u8; 64] = flags[..64].try_into().expect("64 of 68 bytes");
    let case = UPPERISH | LOWERISH;
    let [not_letter, not_number, not_space, not_mark, upper, both] = masks_with(
        flags,
        [
            Test {
                and: letters,
                equal: 0,
            },
            Test {
                and: NUMBER,
                equal: 0,
            },
            Test {
                and: SPACE,
                equal: 0,
            },
            Test {
                and: MARK,
                equal: 0,
            },
            Test {
                and: case,
                equal: UPPERISH,
            },
            Test {
                and: case,
                equal: case,
            },
        ],
        vectors,
    );
    let chars = m.high & in_text;
    let (letter, number, space) = (!not_letter & chars, !not_number & chars, !not_space & chars);
    // The first char that stops the block, as a bit (none: 0).
    let mut stops = 0;
    let last = 63 - (firsts | 1).leading_zeros() as usize;
    if firsts != 0 && last + bytes[i + last].leading_ones() as usize > 64 {
        stops |= 1 << last;
    }
    if !rules.numbers {
        stops |= number & firsts;
    }
    // A mark after punctuation may belong to its run: leave it to the scalar splitter.
    if rules.cases {
        let classed = m.letter | m.digit | m.space | letter | number | space;
        stops |= !not_mark & firsts & !(classed << 1) & !1;
    }
    let decided = (stops | !in_text).trailing_zeros() as usize;
    let keep = below(decided);
    m.letter |= letter & keep;
    m.digit |= number & keep;
    m.space |= space & keep;
    if rules.cases {
        m.upper |= upper & chars & keep;
        m.both |= both & chars & keep;
    }
    m.high = !keep;
    decided
}

/// `bytes[i..i + 68]`, bytes past the end of the text as `0x80` (a continuation byte): the
/// block and the 4 bytes after it, so that a char that starts in the block can be read
/// whole.
#[inline(always)]
fn padded_chunk(bytes: &[u8], i: usize) -> [u8; 68] {
    if let Some(chunk) = bytes.get(i..i + 68) {
        return chunk.try_into().expect("68 bytes");
    }
    let mut padded = [0x80u8; 68];
    let rest = &bytes[i.min(bytes.len())..];
    padded[..rest.len()].copy_from_slice(rest);
    padded
}

/// Calls `f` with the position of each bit set in `mask`, lowest first.
#[inline(always)]
fn each_bit(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pre_tokenizers::char_class::flags_of;

    /// [`add_classes`] over `str::char_indices`, each stop tested in text order: the
    /// reference for both ways of computing it.
    fn reference(m: &mut Block, bytes: &[u8], i: usize, rules: CharRules) -> usize {
        let letters = rules.letters();
        let text = std::str::from_utf8(&bytes[i..]).expect("a char boundary");
        for (p, c) in text.char_indices().filter(|(_, c)| !c.is_ascii()) {
            if p >= 64 {
                break;
            }
            let flags = flags_of(c as u32);
            let marked = rules.cases && flags & MARK != 0 && p > 0;
            let after_punctuation = (m.letter | m.digit | m.space) >> p.saturating_sub(1) & 1 == 0;
            if p + c.len_utf8() > 64
                || (!rules.numbers && flags & NUMBER != 0)
                || (marked && after_punctuation)
            {
                m.high = !below(p);
                return p;
            }
            let bits = below(p + c.len_utf8()) & !below(p);
            let set = |mask: &mut u64, on: bool| *mask |= if on { bits } else { 0 };
            set(&mut m.letter, flags & letters != 0);
            set(&mut m.digit, flags & NUMBER != 0);
            set(&mut m.space, flags & SPACE != 0);
            if rules.cases {
                set(&mut m.upper, flags & (UPPERISH | LOWERISH) == UPPERISH);
                set(
                    &mut m.both,
                    flags & (UPPERISH | LOWERISH) == UPPERISH | LOWERISH,
                );
            }
        }
        let decided = (bytes.len() - i).min(64);
        m.high = !below(decided);
        decided
    }

    #[test]
    fn both_ways_equal_the_reference() {
        // Units of every class and length: letters of both cases and neither, marks, numbers,
        // whitespace, punctuation, 2-, 3- and 4-byte chars, and ASCII between them.
        let units = [
            "a",
            "Z",
            " ",
            "1",
            ".",
            "'",
            "\n",
            "é",
            "É",
            "ß",
            "ǅ",
            "ʰ",
            "中",
            "\u{301}",
            "\u{a0}",
            "\u{3000}",
            "½",
            "٣",
            "Ⅻ",
            "、",
            "—",
            "🙂",
            "𝐀",
            "𝑎",
            "𐐀",
            "\u{1F3FB}",
            "ก",
            "\u{e31}",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let classes = Classes::new();
        let mut stopped = [0usize; 2];
        for _ in 0..4000 {
            let len = next(60);
            let text: String = (0..len).map(|_| units[next(units.len())]).collect();
            let bytes = text.as_bytes();
            for (i, _) in text.char_indices() {
                for (numbers, cases) in [(false, false), (true, false), (false, true)] {
                    let rules = CharRules { numbers, cases };
                    let block = Block::at(bytes, i);
                    let cont = Block::cont_at(bytes, i);
                    let firsts = block.high & !cont & below((bytes.len() - i).min(64));
                    let (by_flags, mut by_char, mut want) = (block, block, block);
                    let decided = reference(&mut want, bytes, i, rules);
                    // The vector decode where the block and 4 bytes after it are in the text
                    // (and the CPU has AVX2), and the decode one char at a time.
                    for vectors in [Vectors::BASELINE, Vectors::detect()] {
                        let mut by_flags = by_flags;
                        let got = add_classes_by_flags(
                            &mut by_flags,
                            firsts,
                            bytes,
                            i,
                            classes,
                            rules,
                            vectors,
                        );
                        assert_eq!(
                            (got, by_flags),
                            (decided, want),
                            "{rules:?} {vectors:?} at {i} of {text:?}"
                        );
                    }
                    let got = add_classes_by_char(&mut by_char, firsts, bytes, i, classes, rules);
                    assert_eq!(
                        (got, by_char),
                        (decided, want),
                        "{rules:?} at {i} of {text:?}"
                    );
                    stopped[usize::from(decided < (bytes.len() - i).min(64))] += 1;
                }
            }
        }
        assert!(stopped[0] > 1000 && stopped[1] > 1000, "{stopped:?}");
    }
}
