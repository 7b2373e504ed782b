//! The slots of the word cache ([`super::WordCache`]): one cached word's key, piece ids and
//! ends laid out in one cache line (short words) or two (long words), and the sets of slots
//! kept in order of use.

use super::{
    Span, Zeroable, ID_LIMIT, LONG_KEY, LONG_WAYS, MAX_PIECES, NARROW_PIECES, SHORT_KEY,
    SHORT_PIECES, SHORT_WAYS,
};

/// One cached word of at most [`SHORT_WORD`](super::SHORT_WORD) bytes, in one cache line: its key, its pieces'
/// ids (two or three little-endian bytes each) and ends (bytes into the word), and the
/// Unigram margin.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub struct ShortSlot {
    pub(super) key: [u64; SHORT_KEY],
    /// The ids (`3 * SHORT_PIECES` bytes, or `2 * NARROW_PIECES` when narrow), then the
    /// ends: one array, so that a three-byte id is read as four bytes and masked (the byte
    /// after the last id is an end).
    pub(super) pieces_data: [u8; SHORT_DATA],
    /// Word length in bytes; 0 marks an empty slot.
    pub(super) len: u8,
    /// The number of pieces, or [`IN_LONG`](super::IN_LONG).
    pub(super) pieces: u8,
    /// Whether the ids take two bytes each.
    pub(super) narrow: bool,
    pub(super) margin: f32,
}

/// One cached word of at most [`MAX_WORD`](super::MAX_WORD) bytes and [`MAX_PIECES`] pieces, laid out as a
/// short slot is.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
pub struct LongSlot {
    pub(super) key: [u64; LONG_KEY],
    /// The ids (`3 * MAX_PIECES` bytes), then the ends.
    pub(super) pieces_data: [u8; LONG_DATA],
    /// Word length in bytes; 0 marks an empty slot.
    pub(super) len: u8,
    pub(super) pieces: u8,
    pub(super) margin: f32,
}

impl Default for LongSlot {
    fn default() -> Self {
        Self {
            key: [0; LONG_KEY],
            pieces_data: [0; LONG_DATA],
            len: 0,
            pieces: 0,
            margin: 0.0,
        }
    }
}

/// `W` slots, the most recently used first (a set of short slots fills whole cache lines).
#[derive(Clone, Copy)]
#[repr(C, align(128))]
pub(super) struct Set<S, const W: usize> {
    pub(super) ways: [S; W],
}

impl<S: Default + Copy, const W: usize> Default for Set<S, W> {
    fn default() -> Self {
        Self {
            ways: [S::default(); W],
        }
    }
}

pub(super) type ShortSet = Set<ShortSlot, SHORT_WAYS>;
pub(super) type LongSet = Set<LongSlot, LONG_WAYS>;

// SAFETY: integers, byte arrays, a `bool` and an `f32`, all valid as zero bytes; an all-zero
// slot is an empty one (`len` 0), as `Default` makes it.
unsafe impl Zeroable for ShortSet {}
// SAFETY: as for `ShortSet`, without the `bool`.
unsafe impl Zeroable for LongSet {}

/// Bytes of a short slot's ids and ends.
pub(super) const SHORT_DATA: usize = 4 * SHORT_PIECES;
/// Where a short slot's ends start in its data, with three-byte and with two-byte ids.
pub(super) const SHORT_ENDS: usize = 3 * SHORT_PIECES;
pub(super) const NARROW_ENDS: usize = 2 * NARROW_PIECES;
const _: () = assert!(NARROW_ENDS + NARROW_PIECES <= SHORT_DATA);
/// Bytes of a long slot's ids and ends, and where its ends start.
pub(super) const LONG_DATA: usize = 4 * MAX_PIECES;
pub(super) const LONG_ENDS: usize = 3 * MAX_PIECES;

const _: () = assert!(std::mem::size_of::<ShortSlot>() == 64);
const _: () = assert!(std::mem::size_of::<ShortSet>() == 64 * SHORT_WAYS);
const _: () = assert!(std::mem::size_of::<LongSlot>() == 128);

/// What both kinds of slot answer.
pub(super) trait Keyed: Copy {
    /// Whether this slot holds the word of `len` bytes with this key (zero-padded past the
    /// word; the slot compares as many key words as it holds).
    fn holds(&self, len: u8, key: &[u64; LONG_KEY]) -> bool;
    fn is_empty(&self) -> bool;
    /// The slot's word length and key, zero-padded to a long key (what its hash is made of).
    fn word(&self) -> (u8, [u64; LONG_KEY]);
}

/// Whether the first `N` words of `b` equal `a`, compared as integers (no call).
#[inline(always)]
pub(super) fn same_key<const N: usize>(a: &[u64; N], b: &[u64; LONG_KEY]) -> bool {
    let mut diff = 0;
    for i in 0..N {
        diff |= a[i] ^ b[i];
    }
    diff == 0
}

/// The id of piece `i` in a slot's data: three bytes, read as four and masked (the byte
/// after the last id is an end).
#[inline(always)]
pub(super) fn id_in(data: &[u8], i: usize) -> u32 {
    let four = [
        data[3 * i],
        data[3 * i + 1],
        data[3 * i + 2],
        data[3 * i + 3],
    ];
    u32::from_le_bytes(four) & (ID_LIMIT - 1)
}

/// Writes `spans` (at most as many as the data holds, ids below [`ID_LIMIT`]) into a slot's
/// data, its ends from `ends_at` on.
pub(super) fn write_pieces(data: &mut [u8], ends_at: usize, spans: &[Span]) {
    for (i, &(_, end, id)) in spans.iter().enumerate() {
        data[ends_at + i] = end as u8;
        data[3 * i..3 * i + 3].copy_from_slice(&id.to_le_bytes()[..3]);
    }
}

impl ShortSlot {
    /// The number of pieces (not [`IN_LONG`](super::IN_LONG)), bounded by what the slot's format holds.
    #[inline(always)]
    pub(super) fn count(&self) -> usize {
        let most = if self.narrow {
            NARROW_PIECES
        } else {
            SHORT_PIECES
        };
        usize::from(self.pieces).min(most)
    }

    /// The id of piece `i` (below [`Self::count`]).
    #[inline(always)]
    pub(super) fn id(&self, i: usize) -> u32 {
        if self.narrow {
            narrow_id_in(&self.pieces_data, i)
        } else {
            id_in(&self.pieces_data, i)
        }
    }

    /// The end of piece `i` (below [`Self::count`]), in bytes into the word.
    #[inline(always)]
    pub(super) fn end(&self, i: usize) -> u8 {
        let ends = if self.narrow { NARROW_ENDS } else { SHORT_ENDS };
        self.pieces_data[ends + i]
    }
}

/// The id of piece `i` in a narrow slot's data: two bytes.
#[inline(always)]
pub(super) fn narrow_id_in(data: &[u8], i: usize) -> u32 {
    u32::from(u16::from_le_bytes([data[2 * i], data[2 * i + 1]]))
}

impl LongSlot {
    /// The id of piece `i` (below [`MAX_PIECES`]).
    #[inline(always)]
    pub(super) fn id(&self, i: usize) -> u32 {
        id_in(&self.pieces_data, i)
    }

    /// The end of piece `i` (below [`MAX_PIECES`]), in bytes into the word.
    #[inline(always)]
    pub(super) fn end(&self, i: usize) -> u8 {
        self.pieces_data[LONG_ENDS + i]
    }
}

impl Keyed for ShortSlot {
    #[inline(always)]
    fn holds(&self, len: u8, key: &[u64; LONG_KEY]) -> bool {
        self.len == len && same_key(&self.key, key)
    }
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn word(&self) -> (u8, [u64; LONG_KEY]) {
        let mut key = [0; LONG_KEY];
        key[..SHORT_KEY].copy_from_slice(&self.key);
        (self.len, key)
    }
}

impl Keyed for LongSlot {
    #[inline(always)]
    fn holds(&self, len: u8, key: &[u64; LONG_KEY]) -> bool {
        self.len == len && same_key(&self.key, key)
    }
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn word(&self) -> (u8, [u64; LONG_KEY]) {
        (self.len, self.key)
    }
}

impl<S: Keyed, const W: usize> Set<S, W> {
    /// The way holding the word, moved to the front (the ways before it move back by one).
    #[inline(always)]
    pub(super) fn find(&mut self, len: u8, key: &[u64; LONG_KEY]) -> Option<&S> {
        let way = self.ways.iter().position(|slot| slot.holds(len, key))?;
        if way != 0 {
            // By hand: `rotate_right` on 64-byte elements calls a generic routine.
            let hit = self.ways[way];
            for at in (0..way).rev() {
                self.ways[at + 1] = self.ways[at];
            }
            self.ways[0] = hit;
        }
        Some(&self.ways[0])
    }

    /// Puts `slot` in the way that holds this same word, or else in the first empty way, or
    /// else in the last way, whose word leaves the set. A new word thus enters behind the
    /// words already used, and only a hit ([`Self::find`]) moves it first. Returns the word
    /// that left, if any.
    pub(super) fn insert(&mut self, slot: S, len: u8, key: &[u64; LONG_KEY]) -> Option<S> {
        let way = self
            .ways
            .iter()
            .position(|s| s.holds(len, key) || s.is_empty())
            .unwrap_or(W - 1);
        let old = std::mem::replace(&mut self.ways[way], slot);
        (!old.is_empty() && !old.holds(len, key)).then_some(old)
    }
}
