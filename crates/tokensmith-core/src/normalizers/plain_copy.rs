//! The normalizer's fast path when no offsets map is asked for: one pass over the bytes that
//! writes every character [`PlainChars`] settles (kept, or an ASCII character mapped to one
//! byte) and every space no rule starts with, into room reserved once, and stops at the first
//! character that needs the charsmap lookup.
//!
//! - ASCII goes eight bytes at a time when the model allows it ([`Swar`]): the word is written
//!   whole, then the output moves on to its first stop byte.
//! - A space is written as the space mark inline, or dropped right after a space when extra
//!   whitespace is removed; so is a character whose one rule gives a space (U+00A0, U+3000).
//! - An ASCII character is settled by the ASCII byte after it; when a non-ASCII character
//!   follows instead, that pair is checked there, and the ASCII character is taken back when a
//!   rule goes on with it.
//! - Other characters take [`PlainChars::wide_len`].
//!
//! >>> "ab  c" (identity, extra whitespace removed) -> "ab▁c", 5 bytes consumed

use super::origins::Origins;
use super::plain_chars::{PlainChars, Swar};
use super::precompiled::PrecompiledCharsMap;
use std::mem::MaybeUninit;

/// How spaces are written.
#[derive(Debug, Clone)]
pub(crate) struct Spaces {
    /// The space mark (`▁`) or a plain space, padded to 3 bytes so that it is written by an
    /// inlined copy of 3 bytes.
    mark: [u8; 3],
    /// How many bytes of `mark` count.
    mark_len: usize,
    /// Whether a space right after a space is dropped.
    collapse: bool,
}

impl Spaces {
    /// `mark` is `▁` or `" "`.
    pub(crate) fn new(mark: &str, collapse: bool) -> Self {
        let mut padded = [0u8; 3];
        let mark_len = mark.len().min(3);
        padded[..mark_len].copy_from_slice(&mark.as_bytes()[..mark_len]);
        Self {
            mark: padded,
            mark_len,
            collapse,
        }
    }
}

/// Where the copy stands.
struct Cursor {
    /// The input offset.
    i: usize,
    /// The output offset (in the room past the output's end).
    w: usize,
    /// The input offset just past the last space; the input from there to `i` is in the
    /// output byte for byte (kept, or mapped by `ascii_out`).
    after_space: usize,
    /// Whether a space written at `after_space` (or before the input) joins a next space.
    space_before: bool,
}

impl Cursor {
    /// Writes the space of `len` input bytes at `i` (a space, or a character that normalizes
    /// to one) as the mark, or as nothing when it joins the space before.
    #[inline(always)]
    fn space(
        &mut self,
        room: &mut [MaybeUninit<u8>],
        spaces: &Spaces,
        len: usize,
        origins: &mut impl Origins,
    ) {
        let joins = self.space_before && self.after_space == self.i;
        room[self.w..self.w + 3].write_copy_of_slice(&spaces.mark);
        let written = if joins { 0 } else { spaces.mark_len };
        origins.all(self.w, self.i, written);
        self.w += written;
        self.space_before = spaces.collapse;
        self.i += len;
        self.after_space = self.i;
    }

    /// Takes back the last `len` bytes, copied as they are.
    #[inline(always)]
    fn back(&mut self, len: usize) {
        self.i -= len;
        self.w -= len;
    }
}

impl PlainChars {
    /// Appends to `out` the normalized form of the longest prefix of `input` that needs no
    /// charsmap lookup, and returns its length. `is_prev_space` says whether the output ends
    /// with a space that a following space joins, before and after. `origins` hears where each
    /// byte written comes from.
    pub(crate) fn copy_text(
        &self,
        input: &str,
        charsmap: Option<&PrecompiledCharsMap>,
        spaces: &Spaces,
        out: &mut String,
        is_prev_space: &mut bool,
        origins: &mut impl Origins,
    ) -> usize {
        let bytes = input.as_bytes();
        // SAFETY: only whole characters are appended (copies of `input`'s characters, ASCII
        // bytes and the space mark), so `out` stays UTF-8; see `set_len` below.
        let out = unsafe { out.as_mut_vec() };
        // Each input byte gives at most 3 output bytes (a space's mark); 8 more take a word
        // written whole past the end.
        out.reserve(bytes.len() * 3 + 8);
        let room = out.spare_capacity_mut();
        let mut at = Cursor {
            i: 0,
            w: 0,
            after_space: 0,
            space_before: *is_prev_space,
        };
        'text: loop {
            if let Some(swar) = self.swar() {
                // Whether spaces join is a constant in each loop: one step less per word.
                if spaces.collapse {
                    self.copy_words::<true>(bytes, swar, &mut at, room, spaces, origins);
                } else {
                    self.copy_words::<false>(bytes, swar, &mut at, room, spaces, origins);
                }
            }
            let Some(&lead) = bytes.get(at.i) else {
                break;
            };
            if lead < 0x80 {
                if lead == b' ' && self.space {
                    at.space(room, spaces, 1, origins);
                    continue;
                }
                match self.ascii_out(lead, bytes.get(at.i + 1).copied()) {
                    Some(to) => {
                        room[at.w].write(to);
                        origins.each(at.w, at.i, 1);
                        at.i += 1;
                        at.w += 1;
                        continue;
                    }
                    None => break,
                }
            }
            // The ASCII character before, if it was written here, was settled only by the
            // ASCII bytes that may follow it.
            if at.i > at.after_space {
                let before = bytes[at.i - 1];
                if before < 0x80 && self.ascii_breaks(before, lead) {
                    at.back(1);
                    break;
                }
            }
            loop {
                self.copy_wide_run(bytes, &mut at, room, origins);
                match bytes.get(at.i) {
                    Some(&next) if next >= 0x80 => {}
                    _ => continue 'text,
                }
                // What the run leaves: the last bytes, an `alone` character before a
                // character that may go on with it or before no two- or three-byte character,
                // a character with rules (a no-break space, say), or one outside the BMP.
                if let Some(len) = self.space_len(&bytes[at.i..]) {
                    at.space(room, spaces, len, origins);
                    continue 'text;
                }
                let len = self.wide_len(&bytes[at.i..], charsmap);
                if len == 0 {
                    break 'text;
                }
                let (i, w) = (at.i, at.w);
                match bytes.get(i..i + 4) {
                    Some(four) => room[w..w + 4].write_copy_of_slice(four),
                    None => room[w..w + len].write_copy_of_slice(&bytes[i..i + len]),
                };
                origins.all(w, i, len);
                at.i += len;
                at.w += len;
                match bytes.get(at.i) {
                    Some(&next) if next >= 0x80 => {}
                    _ => continue 'text,
                }
            }
        }
        *is_prev_space = at.space_before && at.after_space == at.i;
        let start = out.len();
        // SAFETY: every byte of `room[..w]` was written: `w` only moves past bytes just
        // written, or back.
        unsafe { out.set_len(start + at.w) };
        debug_assert!(std::str::from_utf8(&out[start..]).is_ok());
        at.i
    }

    /// Copies ASCII eight bytes at a time, and the spaces between: each word is written
    /// whole, the cursor moves to its first stop byte, and when that byte starts a row of
    /// spaces, past the row, which is written as one mark (as nothing when it joins the space
    /// before; one space a step when spaces do not join). The next word's offset comes from
    /// the word with few steps (spaces need no branch of their own): the loop's speed is that
    /// chain. The last word of the input is read as the input's last eight bytes shifted
    /// down, so that zeros (stop bytes, no spaces) fill it.
    #[inline(always)]
    fn copy_words<const COLLAPSE: bool>(
        &self,
        bytes: &[u8],
        swar: Swar,
        at: &mut Cursor,
        room: &mut [MaybeUninit<u8>],
        spaces: &Spaces,
        origins: &mut impl Origins,
    ) {
        let n = bytes.len();
        // Spaces are written here only when no rule starts with one.
        let space_bytes = if self.space { HIGH } else { 0 };
        loop {
            let x = match bytes.get(at.i..at.i + 8) {
                Some(word) => word_at(word),
                None if at.i < n && n >= 8 => word_at(&bytes[n - 8..]) >> (8 * (at.i + 8 - n)),
                None => return,
            };
            room[at.w..at.w + 8].write_copy_of_slice(&x.to_le_bytes());
            let stops = swar.stops(x);
            let run = (stops.trailing_zeros() / 8) as usize;
            // The first byte from the first stop on that is not a space written here (every
            // space is a stop byte); with no stop, none (8, as `run`).
            let others = !(spaces_in(x) & space_bytes) & HIGH;
            let end = ((others & (stops | stops.wrapping_neg())).trailing_zeros() / 8) as usize;
            let row = if COLLAPSE {
                end - run
            } else {
                (end - run).min(1)
            };
            let joins = at.space_before && run == 0 && at.after_space == at.i;
            room[at.w + run..at.w + run + 3].write_copy_of_slice(&spaces.mark);
            let mark = if row > 0 && !joins {
                spaces.mark_len
            } else {
                0
            };
            origins.each(at.w, at.i, run);
            origins.all(at.w + run, at.i + run, mark);
            at.i += run + row;
            at.w += run + mark;
            if row > 0 {
                at.space_before = COLLAPSE;
                at.after_space = at.i;
            }
            if run < 8 && row == 0 {
                return;
            }
        }
    }

    /// Copies the two- and three-byte characters from `at.i` on that the sets settle as
    /// kept: a `free` one, or an `alone` one whose next character is not in `continues`. Four
    /// bytes are read per character and written as they are (a call to copy the run after
    /// cost more on short runs; the output past the run is overwritten later). The three
    /// words come from one block, and they are combined without branches, so that kana, which
    /// are `alone` and `free` in turn, cost no unpredictable branch. An `alone` character at
    /// the end of the run goes back: its next character was not checked.
    #[inline(always)]
    fn copy_wide_run(
        &self,
        bytes: &[u8],
        at: &mut Cursor,
        room: &mut [MaybeUninit<u8>],
        origins: &mut impl Origins,
    ) {
        let start = at.i;
        let mut i = start;
        // All ones when the last character of the run is `alone`, else zero.
        let mut pending = 0u64;
        let mut last_len = 0;
        // Four bytes are read per character: the last three bytes go by the general path.
        while let Some(&four) = bytes.get(i..).and_then(<[u8]>::first_chunk::<4>) {
            let x = u32::from_le_bytes(four);
            let (index, bit, len) = if x & 0xf0 == 0xe0 {
                (((x & 0x0f) << 6) | ((x >> 8) & 0x3f), (x >> 16) & 0x3f, 3)
            } else if x & 0xe0 == 0xc0 {
                (x & 0x1f, (x >> 8) & 0x3f, 2)
            } else {
                break;
            };
            let block = self.block(index as usize);
            let kept = (block.free | block.alone) & !(block.continues & pending);
            if (kept >> bit) & 1 == 0 {
                break;
            }
            pending = 0u64.wrapping_sub((block.alone >> bit) & 1);
            last_len = len;
            // The four bytes read, written as they are: no copy call for the run after.
            let w = at.w + (i - start);
            room[w..w + 4].write_copy_of_slice(&four);
            origins.all(w, i, len);
            i += len;
        }
        if pending != 0 {
            i -= last_len;
        }
        at.w += i - start;
        at.i = i;
    }
}

/// The high bit of each byte.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that is a space, and no other bit.
#[inline(always)]
pub(crate) fn spaces_in(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is zero after the XOR exactly when it was a space; adding 0x7f to its low 7 bits
    // sets the high bit of every other byte (no carry crosses a byte).
    let y = x ^ (ONES * u64::from(b' '));
    !(((y & !HIGH) + ONES * 0x7f) | y) & HIGH
}

/// The eight bytes of `word` as a little-endian word.
#[inline(always)]
fn word_at(word: &[u8]) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&word[..8]);
    u64::from_le_bytes(x)
}
