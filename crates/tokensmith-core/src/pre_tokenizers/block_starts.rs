//! Every piece start of 64 bytes of text at once, from the [`Block`] class masks, for
//! the cl100k family (cl100k, Llama-3, Qwen2), o200k and GPT-2 (r50k, p50k).
//!
//! The splitter calls [`starts`] on the 64 bytes from a position `i` where a piece is known to
//! start. Bit `j` of the answer is set when a piece starts at `i + j`; each rule of the
//! pattern becomes a few shifts and ANDs of the masks (bit `j` of `m << 1` is about byte
//! `j - 1`), so a block costs the same whatever its pieces are, without a branch per byte.
//! On ASCII the rules are (`P` is ASCII that is not a letter, digit or whitespace):
//!
//! - a letter run starts a piece, unless the byte before it is a prefix that starts a piece:
//!   whitespace other than a line break (the last of a whitespace run always starts a piece)
//!   or a `P` that starts a piece;
//! - a `P` starts a piece unless it follows a `P` of its run or a space (` ?P+`);
//! - the line breaks right after a `P` run belong to it (`[\r\n]*`, o200k `[\r\n/]*`);
//! - in a whitespace run, pieces start at its start, after its last line break and at its
//!   last byte if that is not a line break (`\s*[\r\n]`, then `\s+(?!\S)`, then `\s`);
//! - digits start a piece at the start of their run and every `max_digits` bytes after;
//! - contractions: cl100k's `'s` is a piece of its own where the `'` starts a piece; o200k
//!   appends it to the letters before it; o200k also starts a piece where a lower-case
//!   letter is followed by an upper-case one (with other scripts' letters, see
//!   [`case_starts`]).
//!
//! GPT-2's rules are simpler (see [`Family::R50k`]): only a space prefixes a run, and a
//! whitespace run starts pieces at its first and last bytes.
//!
//! [`add_classes`] first adds the classes of non-ASCII chars to the masks, on every byte of
//! each char, so that the rules above read "the char before" where they shift by one byte.
//! For o200k a letter is any char of its two letter classes (marks included), and the
//! chars of each class get masks of their own.
//!
//! A start is certain when the chars it depends on are decided: those up to two chars
//! after it, and for a whitespace run, the whole run and the char after it. [`starts`]
//! returns how far that holds (`cap`); the caller takes the pieces that end at or before it
//! and hands the rest (non-ASCII text, long runs, the end of the text) to the scalar
//! splitter. Equality with the scalar splitters and the regex is tested in
//! `tests/splitters.rs`.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::block_starts::{starts, Rules};
//! use tokensmith_core::pre_tokenizers::blocks::Block;
//! use tokensmith_core::vectors::Vectors;
//! use tokensmith_core::pre_tokenizers::char_class::Classes;
//! let text = b"I'm at home,  she said.\n\n  Then 12345 left";
//! let mut padded = [b' '; 64];
//! padded[..text.len()].copy_from_slice(text);
//! padded[text.len()..].fill(b'x');
//! let classes = Classes::new();
//! let block = Block::at(&padded, 0);
//! let (bits, cap) = starts(&block, &padded, 0, Rules::CL100K, classes, Vectors::BASELINE);
//! let pieces: Vec<&str> = (0..=cap)
//!     .filter(|&j| bits >> j & 1 == 1)
//!     .collect::<Vec<_>>()
//!     .windows(2)
//!     .map(|w| std::str::from_utf8(&padded[w[0]..w[1]]).unwrap())
//!     .collect();
//! assert_eq!(
//!     pieces,
//!     ["I", "'m", " at", " home", ",", " ", " she", " said", ".\n\n", " ", " Then", " ", "123", "45"]
//! );
//! // " leftxxx…" has not ended within the block: the next call starts there.
//! ```

use super::block_chars::{add_classes, below, first_to_all, last_to_first, CharRules};
use super::blocks::Block;
use super::char_class::Classes;
use super::scan::contraction_len;
use crate::vectors::Vectors;

/// Which pattern family [`starts`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// cl100k, Llama-3 and Qwen2: any one non-letter prefixes a letter run, `P` runs take the
    /// line breaks after them, contractions in either case.
    Cl100k,
    /// o200k: contractions end the letters before them, a lower-case letter followed by an
    /// upper-case one ends a piece, and `/` joins the line breaks after a `P` run.
    O200k,
    /// GPT-2 (r50k, p50k): only a space prefixes a run of letters, digits or `P`, digit runs
    /// are unbounded, contractions are lower-case, whitespace has no line-break rule.
    R50k,
}

/// Which pattern's rules [`starts`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub family: Family,
    /// The most digits in one piece (3, 1 for Qwen2; unbounded for GPT-2).
    pub max_digits: u32,
}

impl Rules {
    pub const CL100K: Self = Self {
        family: Family::Cl100k,
        max_digits: 3,
    };
    /// Qwen2's pattern: cl100k's with one digit a piece.
    pub const QWEN2: Self = Self {
        family: Family::Cl100k,
        max_digits: 1,
    };
    pub const O200K: Self = Self {
        family: Family::O200k,
        max_digits: 3,
    };
    pub const R50K: Self = Self {
        family: Family::R50k,
        max_digits: u32::MAX,
    };
}

/// The piece starts of the 64 bytes `bytes[i..]` whose masks are `m` (a piece starts at `i`),
/// and `cap`: every set bit up to and including `cap` is a start and every clear bit up to
/// `cap` is not. `cap` is 0 when nothing is certain past `i`.
#[inline(always)]
pub fn starts(
    block: &Block,
    bytes: &[u8],
    i: usize,
    rules: Rules,
    classes: Classes,
    vectors: Vectors,
) -> (u64, usize) {
    let mut m = *block;
    // Bytes past the text count as high bytes, so `trusted` also stops at the end.
    let (trusted, cont) = if m.high == 0 {
        (m.high.trailing_zeros() as usize, 0)
    } else {
        let cont = Block::cont_at_with(bytes, i, vectors);
        let char_rules = CharRules {
            numbers: rules.family == Family::R50k,
            cases: rules.family == Family::O200k,
        };
        let trusted = add_classes(&mut m, cont, bytes, i, classes, char_rules, vectors);
        (trusted, cont & below(trusted))
    };
    if trusted < 4 {
        return (1, 0);
    }
    let m = &m;
    // The first bytes of the trusted chars: a start may depend on the two chars after it.
    let firsts = !cont & below(trusted);
    let last = if cont == 0 {
        trusted - 1
    } else {
        highest(firsts)
    };
    // At the end of the text every start is certain, and the end closes the last piece,
    // unless the text ends in whitespace (`\s++$`), which the scalar splitter takes.
    let at_end = (trusted < 64) & (i + trusted == bytes.len());
    let last_space = m.space >> (trusted - 1) & 1 == 1;
    let (mut cap, end) = if at_end && !last_space {
        (trusted, 1u64 << trusted)
    } else if at_end {
        (cap(m.space, trusted, last), 0)
    } else if cont == 0 {
        (cap(m.space, trusted, trusted - 3), 0)
    } else {
        let two_before = firsts & !(1 << last);
        let two_before = two_before & !(1 << highest(two_before));
        if two_before == 0 {
            return (1, 0);
        }
        (cap(m.space, trusted, highest(two_before)), 0)
    };
    let (letter, digit, space, newline) = (m.letter, m.digit, m.space, m.newline);
    let other = m.other();
    if rules.family == Family::R50k {
        return (gpt2_starts(m, other, cont, end, bytes, i, cap), cap);
    }
    let inline_space = space & !newline;

    // The line breaks (o200k: and slashes) that follow a `P` run belong to its piece; the
    // byte after them starts the next one. A seed is the first line break after a `P`; a run
    // has one seed in cl100k, and o200k's later seeds (after an eaten `/`) are dropped: they
    // are the bits the carry leaves set.
    let o200k = rules.family == Family::O200k;
    let tail = if o200k { newline | m.slash } else { newline };
    let mut seeds = newline & (other << 1);
    let mut carried = tail.wrapping_add(seeds);
    if o200k {
        seeds &= !(carried & seeds);
        carried = tail.wrapping_add(seeds);
    }
    let eaten = tail & !carried;
    let after_eaten = carried & !tail;

    let own_other = other & !eaten;
    let other_start = own_other & !(own_other << 1) & !(m.blank << 1);
    let prefix = inline_space | first_to_all(other_start, cont);
    let letter_start = letter & !(letter << 1) & !(prefix << 1);
    let mut s = 1 | end | letter_start | other_start | after_eaten | digit_starts(digit, rules);

    // Whitespace: run starts that no `P` run took, the last byte of a run unless it is a
    // line break, and the byte after a line break if no line break follows in its run.
    s |= space & !(space << 1) & !eaten;
    s |= last_to_first(inline_space & !(space >> 1), cont);
    let after_break = inline_space & (newline << 1);
    let ends = inline_space.wrapping_add(after_break) & !inline_space;
    s |= after_break & !runs_ending_in(after_break, ends & newline);

    let after = if o200k { letter << 1 } else { other_start };
    let (ends, inside) = contractions(&mut s, m.quote & after, bytes, i, cap, rules.family);
    if o200k {
        s |= case_starts(m, ends, trusted, &mut cap) & !inside;
    }
    (s, cap)
}

/// The starts under the GPT-2 pattern: a run of letters, digits or `P` starts a piece unless
/// a space prefixes it; a whitespace run starts one at its first byte and at its last (which
/// is then alone, or the prefix of the run after it); a `'` that starts a `P` run may start
/// a contraction instead.
#[inline(always)]
fn gpt2_starts(
    m: &Block,
    other: u64,
    cont: u64,
    end: u64,
    bytes: &[u8],
    i: usize,
    cap: usize,
) -> u64 {
    let (letter, digit, space) = (m.letter, m.digit, m.space);
    let run_start = |class: u64| class & !(class << 1) & !(m.blank << 1);
    let other_start = run_start(other);
    let mut s = 1 | end | run_start(letter) | run_start(digit) | other_start;
    s |= space & !(space << 1);
    s |= last_to_first(space & !(space >> 1), cont);
    contractions(&mut s, m.quote & other_start, bytes, i, cap, Family::R50k);
    s
}

/// o200k's starts inside a letter run, where `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*` then
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` (or the variant with `+` then `*`) ends a piece.
///
/// Call the chars only in the first class U, only in the second L, in both B. A piece is
/// U and B chars, then (after its first L) L and B chars: a U starts a piece where the last
/// char before it that is not a B is an L of the same piece (B chars keep the phase; a piece
/// start, such as the end of a contraction in `resets`, begins in the first). When a run
/// ends while a piece is still in its first phase, the regex gives back the U chars after
/// its last B (they cannot end `[\p{Ll}...]+`): those U chars start a piece of their own.
/// That depends on what follows the U chars, so `cap` drops below any such U run that
/// reaches the untrusted bytes.
#[inline(always)]
fn case_starts(m: &Block, resets: u64, trusted: usize, cap: &mut usize) -> u64 {
    let (upper, both) = (m.upper, m.both);
    let lower = m.letter & !upper & !both;
    if both == 0 {
        return upper & (lower << 1);
    }
    // Runs of B after an L (a B run's first byte is its only seed) are in the second phase.
    let seeds = both & (lower << 1) & !resets;
    let second = lower | (both & !both.wrapping_add(seeds));
    let mut s = upper & (second << 1);
    let mut given_back = upper & ((both & !second) << 1);
    while given_back != 0 {
        let p = given_back.trailing_zeros() as usize;
        given_back &= given_back - 1;
        let end = p + (!(upper >> p)).trailing_zeros() as usize;
        if end >= trusted {
            *cap = (*cap).min(p - 1);
            break;
        }
        if m.letter >> end & 1 == 0 {
            s |= 1 << p;
        }
    }
    s
}

/// The highest set bit of `x` (0 when there is none).
#[inline(always)]
fn highest(x: u64) -> usize {
    63 - (x | 1).leading_zeros() as usize
}

/// How far the starts are certain: `cap` (two bytes before the first untrusted one, or the
/// last byte of the text), or the start of a whitespace run that reaches `trusted` (its cuts
/// depend on what follows the run).
#[inline(always)]
fn cap(space: u64, trusted: usize, cap: usize) -> usize {
    // `cap` is below `trusted`, so a byte at `cap` that is not whitespace gives `run_end ==
    // cap`. Branch-free: whether whitespace reaches `trusted` follows the text.
    let run_end = cap + (!(space >> cap)).trailing_zeros() as usize;
    let before = !space & ((1u64 << cap) - 1);
    let run_start = 64 - before.leading_zeros() as usize;
    std::hint::select_unpredictable(run_end < trusted, cap, run_start)
}

/// The starts of digit runs, and every `max_digits` digits after (`\p{N}{1,3}`).
#[inline(always)]
fn digit_starts(digit: u64, rules: Rules) -> u64 {
    if rules.max_digits == 1 {
        return digit;
    }
    let step = rules.max_digits;
    let run_start = digit & !(digit << 1);
    let mut s = run_start;
    // Runs longer than `max_digits` are rare: walk them.
    let mut long = run_start & (digit >> step);
    for k in 1..step {
        long &= digit >> k;
    }
    while long != 0 {
        let start = long.trailing_zeros();
        let end = start + (!(digit >> start)).trailing_zeros();
        let mut j = start + step;
        while j < end {
            s |= 1 << j;
            j += step;
        }
        long &= long - 1;
    }
    s
}

/// The bits of `starts` whose run (up to the next bit of `ends` above them) ends at a bit
/// of `bad`: each bad end takes the highest start below it.
#[inline(always)]
fn runs_ending_in(starts: u64, mut bad: u64) -> u64 {
    let mut out = 0;
    while bad != 0 {
        let below = starts & ((1u64 << bad.trailing_zeros()) - 1);
        out |= 1u64 << (63 - below.leading_zeros());
        bad &= bad - 1;
    }
    out
}

/// Applies the contractions whose `'` is at or before `cap`, among `candidates` (the `'`s
/// where one may start): in cl100k a contraction is a piece of its own; in GPT-2 too, and
/// the letters inside it start nothing; in o200k a contraction after a letter ends that
/// letter's piece (unless the letter ends a contraction itself). Returns the contractions'
/// ends, and (o200k) the bytes inside them, where no piece starts.
#[inline(always)]
fn contractions(
    s: &mut u64,
    candidates: u64,
    bytes: &[u8],
    i: usize,
    cap: usize,
    family: Family,
) -> (u64, u64) {
    // Bits 0..=cap (`cap` is at most 63; `2 << 63` would overflow).
    let near = u64::MAX >> (63 - cap.min(63));
    let mut candidates = candidates & near;
    let mut skip_at = usize::MAX;
    let mut ends = 0;
    let mut inside = 0;
    while candidates != 0 {
        let a = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if a == skip_at {
            continue;
        }
        let Some(len) = contraction_len(bytes, i + a, family != Family::R50k) else {
            continue;
        };
        let end = a + len;
        match family {
            Family::O200k => {
                inside |= ((1u64 << len) - 1) << a;
                *s &= !(((1u64 << len) - 1) << a);
                skip_at = end;
            }
            Family::R50k => *s &= !(((1u64 << (len - 1)) - 1) << (a + 1)),
            Family::Cl100k => {}
        }
        // `a` is at most 61, so `end` may be 64: past the block, and past `cap` anyway.
        let bit = 1u64.checked_shl(end as u32).unwrap_or(0);
        *s |= bit;
        ends |= bit;
    }
    (ends, inside)
}
