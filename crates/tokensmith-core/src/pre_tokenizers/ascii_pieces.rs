//! The fast path of the r50k splitter: the piece that starts at `i` when it and the bytes
//! that decide its end are ASCII, found from a [`Window`]'s class masks. (The cl100k family
//! and o200k cut whole blocks at once instead: see [`super::block_starts`].)
//!
//! Each function returns `None` when a deciding byte is not ASCII, lies past the text or past
//! the window (a run of 64 bytes or more); the caller then runs the scalar splitter, which
//! handles every case. On ASCII the patterns' classes are simple (`\p{L}` is `[A-Za-z]`, `\s`
//! is `[\t-\r ]`). The end of the text needs `\s++$` and is left to the scalar splitter too: bytes
//! past the text count as non-ASCII. Equality with the scalar splitters is tested in
//! `tests/splitters.rs`.
//!
//! Each rule computes the piece's end and `seen`, the end of the bytes it looked at; the
//! answer stands only if all of `[i, seen)` is ASCII.

use super::blocks::class::{DIGIT, HIGH, LETTER, OTHER, SPACE};
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
