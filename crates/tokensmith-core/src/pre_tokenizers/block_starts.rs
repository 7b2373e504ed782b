//! Every piece start of 64 bytes of ASCII text at once, from the [`Block`] class masks, for
//! the cl100k family (cl100k, Llama-3, Qwen2) and o200k.
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
//!   letter is followed by an upper-case one.
//!
//! A start is certain when the bytes it depends on are ASCII text: those up to two bytes
//! after it, and for a whitespace run, the whole run and the byte after it. [`starts`]
//! returns how far that holds (`cap`); the caller takes the pieces that end at or before it
//! and hands the rest (non-ASCII text, long runs, the end of the text) to the scalar
//! splitter. Equality with the scalar splitters and the regex is tested in
//! `tests/splitters.rs` and `tests/block_splitter.rs`.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::block_starts::{starts, Rules};
//! use tokensmith_core::pre_tokenizers::blocks::Block;
//! let text = b"I'm at home,  she said.\n\n  Then 12345 left";
//! let mut padded = [b' '; 64];
//! padded[..text.len()].copy_from_slice(text);
//! padded[text.len()..].fill(b'x');
//! let (bits, cap) = starts(&Block::at(&padded, 0), &padded, 0, Rules::CL100K);
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

use super::blocks::Block;

/// Which pattern's rules [`starts`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// o200k: contractions end the letters before them, a lower-case letter followed by an
    /// upper-case one ends a piece, and `/` joins the line breaks after a `P` run.
    pub o200k: bool,
    /// The most digits in one piece (3, or 1 for Qwen2).
    pub max_digits: u32,
}

impl Rules {
    pub const CL100K: Self = Self {
        o200k: false,
        max_digits: 3,
    };
    /// Qwen2's pattern: cl100k's with one digit a piece.
    pub const QWEN2: Self = Self {
        o200k: false,
        max_digits: 1,
    };
    pub const O200K: Self = Self {
        o200k: true,
        max_digits: 3,
    };
}

/// The piece starts of the 64 bytes `bytes[i..]` whose masks are `m` (a piece starts at `i`),
/// and `cap`: every set bit up to and including `cap` is a start and every clear bit up to
/// `cap` is not. `cap` is 0 when nothing is certain past `i`.
#[inline(always)]
pub fn starts(m: &Block, bytes: &[u8], i: usize, rules: Rules) -> (u64, usize) {
    // Bytes past the text count as high bytes, so `trusted` also stops at the end.
    let trusted = m.high.trailing_zeros() as usize;
    if trusted < 4 {
        return (1, 0);
    }
    // At the end of the text every start is certain, and the end closes the last piece,
    // unless the text ends in whitespace (`\s++$`), which the scalar splitter takes.
    let at_end = trusted < 64 && i + trusted == bytes.len();
    let last_space = m.space >> (trusted - 1) & 1 == 1;
    let (cap, end) = if at_end && !last_space {
        (trusted, 1u64 << trusted)
    } else if at_end {
        (cap(m.space, trusted, trusted - 1), 0)
    } else {
        (cap(m.space, trusted, trusted - 3), 0)
    };
    let (letter, digit, space, newline) = (m.letter, m.digit, m.space, m.newline);
    let inline_space = space & !newline;
    let other = !(letter | digit | space | m.high);

    // The line breaks (o200k: and slashes) that follow a `P` run belong to its piece; the
    // byte after them starts the next one. A seed is the first line break after a `P`; a run
    // has one seed in cl100k, and o200k's later seeds (after an eaten `/`) are dropped: they
    // are the bits the carry leaves set.
    let tail = if rules.o200k {
        newline | m.slash
    } else {
        newline
    };
    let mut seeds = newline & (other << 1);
    let mut carried = tail.wrapping_add(seeds);
    if rules.o200k {
        seeds &= !(carried & seeds);
        carried = tail.wrapping_add(seeds);
    }
    let eaten = tail & !carried;
    let after_eaten = carried & !tail;

    let own_other = other & !eaten;
    let other_start = own_other & !(own_other << 1) & !(m.blank << 1);
    let letter_start = letter & !(letter << 1) & !(inline_space << 1) & !(other_start << 1);
    let mut s = 1 | end | letter_start | other_start | after_eaten | digit_starts(digit, rules);

    // Whitespace: run starts that no `P` run took, the last byte of a run unless it is a
    // line break, and the byte after a line break if no line break follows in its run.
    s |= space & !(space << 1) & !eaten;
    s |= inline_space & !(space >> 1);
    let after_break = inline_space & (newline << 1);
    let ends = inline_space.wrapping_add(after_break) & !inline_space;
    s |= after_break & !runs_ending_in(after_break, ends & newline);

    if rules.o200k {
        let upper = m.upper;
        s |= upper & ((letter & !upper) << 1);
    }
    contractions(&mut s, m.quote, letter, other_start, bytes, i, cap, rules);
    (s, cap)
}

/// How far the starts are certain: `cap` (two bytes before the first untrusted one, or the
/// last byte of the text), or the start of a whitespace run that reaches `trusted` (its cuts
/// depend on what follows the run).
#[inline(always)]
fn cap(space: u64, trusted: usize, cap: usize) -> usize {
    if space >> cap & 1 == 0 {
        return cap;
    }
    let run_end = cap + (!(space >> cap)).trailing_zeros() as usize;
    if run_end < trusted {
        return cap;
    }
    let before = !space & ((1u64 << cap) - 1);
    64 - before.leading_zeros() as usize
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

/// The end of the contraction (`'s 't 're 've 'm 'll 'd`, either case) whose `'` is at `p`.
#[inline(always)]
fn contraction_len(bytes: &[u8], p: usize) -> Option<usize> {
    let fold = |k: usize| bytes.get(p + k).map_or(0, |&c| c | 0x20);
    match (fold(1), fold(2)) {
        (b's' | b'd' | b'm' | b't', _) => Some(2),
        (b'l', b'l') | (b'v' | b'r', b'e') => Some(3),
        _ => None,
    }
}

/// Applies the contractions whose `'` is at or before `cap`: in cl100k a `'` that starts a
/// piece and a contraction form a piece of their own; in o200k a contraction after a letter
/// ends that letter's piece (unless the letter ends a contraction itself).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn contractions(
    s: &mut u64,
    quote: u64,
    letter: u64,
    other_start: u64,
    bytes: &[u8],
    i: usize,
    cap: usize,
    rules: Rules,
) {
    // Bits 0..=cap (`cap` is at most 63; `2 << 63` would overflow).
    let near = u64::MAX >> (63 - cap.min(63));
    let after = if rules.o200k {
        letter << 1
    } else {
        other_start
    };
    let mut candidates = quote & near & after;
    let mut skip_at = usize::MAX;
    while candidates != 0 {
        let a = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if a == skip_at {
            continue;
        }
        let Some(len) = contraction_len(bytes, i + a) else {
            continue;
        };
        let end = a + len;
        if rules.o200k {
            *s &= !(((1u64 << len) - 1) << a);
            skip_at = end;
        }
        // `a` is at most 61, so `end` may be 64: past the block, and past `cap` anyway.
        *s |= 1u64.checked_shl(end as u32).unwrap_or(0);
    }
}
