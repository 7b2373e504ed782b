//! The fast path of the hand-written splitters: the piece that starts at `i` when it and the
//! bytes that decide its end are ASCII, found from a [`Window`]'s class masks.
//!
//! Each function returns `None` when a deciding byte is not ASCII, lies past the text or past
//! the window (a run of 64 bytes or more); the caller then runs the scalar splitter, which
//! handles every case. On ASCII the patterns' classes are simple (`\p{L}` is `[A-Za-z]`, `\s`
//! is `[\t-\r ]`), and o200k's two letter classes are disjoint, so its backtracking never
//! happens. The end of the text needs `\s++$` and is left to the scalar splitter too: bytes
//! past the text count as non-ASCII. Equality with the scalar splitters is tested in
//! `tests/splitters.rs`.
//!
//! Each rule computes the piece's end and `seen`, the end of the bytes it looked at; the
//! answer stands only if all of `[i, seen)` is ASCII.

use super::blocks::class::{DIGIT, HIGH, LETTER, NEWLINE, OTHER, SPACE};
use super::blocks::Window;

/// `'(?i:[sdmt]|ll|ve|re)` (or the case-sensitive form) at `p`.
#[inline(always)]
fn contraction_end(w: &Window, p: usize, fold: u8) -> Option<usize> {
    let c1 = w.byte(p + 1) | fold;
    let c2 = w.byte(p + 2) | fold;
    match (c1, c2) {
        (b's' | b'd' | b'm' | b't', _) => Some(p + 2),
        (b'l', b'l') | (b'v' | b'r', b'e') => Some(p + 3),
        _ => None,
    }
}

/// A whitespace piece from `i`, not at the end of the text: a run with a line break ends after
/// its last break; else a run of two or more leaves its last char to the next piece.
#[inline(always)]
fn space_piece(w: &Window, i: usize, newline: bool) -> Option<(usize, usize)> {
    let run = w.run_end(w.space, i)?;
    let seen = run + 1;
    if newline {
        if let Some(last) = w.last_in(w.newline, i, run) {
            return Some((last + 1, seen));
        }
    }
    Some((if run - i >= 2 { run - 1 } else { run }, seen))
}

/// A digit run of at most `max` from `i`.
#[inline(always)]
fn digits(w: &Window, i: usize, max: usize) -> Option<(usize, usize)> {
    let end = w.run_end(w.digit, i + 1)?.min(i + max);
    Some((end, end + 1))
}

/// The alternatives after the letters, shared by cl100k and o200k: `\p{N}{1,max_digits}`,
/// then ` ?[^\s\p{L}\p{N}]+` followed by a run of `after_other`, then whitespace. `k` and
/// `next` are the classes of bytes `i` and `i + 1`.
#[inline(always)]
fn tail(
    w: &Window,
    i: usize,
    k: u8,
    next: u8,
    max_digits: usize,
    after_other: u128,
) -> Option<(usize, usize)> {
    if k & DIGIT != 0 {
        return digits(w, i, max_digits);
    }
    let other_start = if k & OTHER != 0 {
        i
    } else if w.byte(i) == b' ' && next & OTHER != 0 {
        i + 1
    } else {
        return space_piece(w, i, true);
    };
    let end = w.run_end(w.other, other_start)?;
    let end = w.run_end(after_other, end)?;
    Some((end, end + 1))
}

/// cl100k, Llama-3 (`max_digits` 3) and Qwen2 (`max_digits` 1): see [`super::cl100k`].
#[inline(always)]
pub fn cl100k(w: &Window, i: usize, max_digits: usize) -> Option<usize> {
    let (end, seen) = cl100k_guess(w, i, max_digits)?;
    w.ascii(i, seen).then_some(end)
}

#[inline(always)]
fn cl100k_guess(w: &Window, i: usize, max_digits: usize) -> Option<(usize, usize)> {
    let c = w.byte(i);
    let k = w.class(i);
    if k & (LETTER | HIGH) != 0 {
        if k & HIGH != 0 {
            return None;
        }
        let end = w.run_end(w.letter, i + 1)?;
        return Some((end, end + 1));
    }
    if c == b'\'' {
        if let Some(end) = contraction_end(w, i, 0x20) {
            return Some((end, i + 3));
        }
    }
    let next = w.class(i + 1);
    if k & (DIGIT | NEWLINE) == 0 && next & LETTER != 0 {
        let end = w.run_end(w.letter, i + 2)?;
        return Some((end, end + 1));
    }
    tail(w, i, k, next, max_digits, w.newline)
}

/// o200k: see [`super::o200k`].
#[inline(always)]
pub fn o200k(w: &Window, i: usize) -> Option<usize> {
    let (end, seen) = o200k_guess(w, i)?;
    w.ascii(i, seen).then_some(end)
}

#[inline(always)]
fn o200k_guess(w: &Window, i: usize) -> Option<(usize, usize)> {
    let k = w.class(i);
    if k & HIGH != 0 {
        return None;
    }
    let next = w.class(i + 1);
    if k & LETTER != 0 || (k & (DIGIT | NEWLINE) == 0 && next & LETTER != 0) {
        // `[A-Z]*[a-z]+` or else `[A-Z]+[a-z]*`: the same cut on ASCII.
        let start = i + usize::from(k & LETTER == 0);
        let upper_end = w.run_end(w.upper, start)?;
        let end = w.run_end(w.letter & !w.upper, upper_end)?;
        if w.byte(end) != b'\'' {
            return Some((end, end + 1));
        }
        return Some(match contraction_end(w, end, 0x20) {
            Some(c) => (c, c + 1),
            None => (end, end + 3),
        });
    }
    tail(w, i, k, next, 3, w.newline_slash)
}

/// r50k (GPT-2): see [`super::r50k`].
#[inline(always)]
pub fn r50k(w: &Window, i: usize) -> Option<usize> {
    let (end, seen) = r50k_guess(w, i)?;
    w.ascii(i, seen).then_some(end)
}

#[inline(always)]
fn r50k_guess(w: &Window, i: usize) -> Option<(usize, usize)> {
    let c = w.byte(i);
    if c >= 0x80 {
        return None;
    }
    if c == b'\'' {
        if let Some(end) = contraction_end(w, i, 0) {
            return Some((end, i + 3));
        }
    }
    let head = if c == b' ' && w.class(i + 1) & (SPACE | HIGH) == 0 {
        i + 1
    } else {
        i
    };
    let k = w.class(head);
    for (bit, mask) in [(LETTER, w.letter), (DIGIT, w.digit), (OTHER, w.other)] {
        if k & bit != 0 {
            let end = w.run_end(mask, head + 1)?;
            return Some((end, end + 1));
        }
    }
    space_piece(w, i, false)
}
