//! Safe cuts: places inside a long piece that no merge can cross, so that the pieces between
//! them merge on their own.
//!
//! Merging only ever forms tokens of the vocabulary, and a merged token's bytes are its two
//! parts' bytes joined. So if no token the merges can form covers both byte `p - 1` and
//! byte `p` of a piece, no part ever does either: the merges left of `p` and right of `p`
//! never share a pair, and they happen in the same order (the lowest rank first, the leftmost
//! on ties) whether the two sides are merged together or apart. Encoding the segments between
//! such cuts one by one then gives exactly the piece's ranks. A line of random CJK, one piece
//! of megabytes to the rank queue, becomes a run of 3-byte segments, each merged in cache
//! without the queue's megabytes of parts and positions.
//!
//! Deciding exactly whether a token spans `p` is costly; this test is cheaper and errs only
//! on the side of "no cut". A token spanning `p` either has two bytes, `piece[p-1..p+1]`, or
//! has three or more and then either starts at or before `p - 2`, so it contains the trigram
//! `piece[p-2..p+1]`, or starts at `p - 1`, so it begins with the trigram `piece[p-1..p+2]`.
//! The cut is taken when none of the three is possible: the byte pair does not merge, the
//! first trigram occurs in no formable token, and the second begins none. The trigrams sit
//! in a bitmap by hash (a collision only loses a cut), built from the merge table on the
//! first megabyte of long pieces: 256 KB, which stays in L2.

use super::model::{Bpe, NO_RANK};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The table is built once this many bytes of long pieces have been merged without it.
/// Building costs about as much as merging 0.4 MB (cl100k) to 0.8 MB (o200k) of random CJK
/// with the rank queue, so text whose long pieces are few never pays for it.
const BUILD_AFTER: usize = 1 << 20;

/// Bits in the trigram bitmap, as a power of two: 2^21 bits, 256 KB. cl100k's formable
/// tokens hold about 27k distinct trigrams and 17k distinct 3-byte prefixes, o200k's about
/// 46k and 24k, so 2-3% of the bits are set. On random CJK the hashed test keeps 92% of the
/// cuts the exact sets would give under cl100k (2^22 bits: 96%).
const BITS: u32 = 21;

/// A stretch this long without a short segment ends the search: the rest of the piece is one
/// segment. A long word or line of Latin letters (most byte pairs a token) cuts rarely, and
/// then costs only this much scanning.
const GIVE_UP: usize = 256;

/// The longest segment given alone: a few characters, which merge quickly by themselves.
const SHORT: usize = 16;

/// What a trigram's bit says about it.
#[derive(Clone, Copy)]
enum Kind {
    /// The trigram occurs somewhere in a formable token.
    Inside = 0,
    /// A formable token starts with the trigram.
    Prefix = 1,
}

/// The trigrams of the tokens a vocabulary's merges can form, as a bitmap by hash.
#[derive(Clone)]
pub(crate) struct CutTable {
    /// `None` when some merge's token is not its two parts' bytes joined: then a part's token
    /// need not be the bytes it covers, and no cut is safe.
    bits: Option<Box<[u64]>>,
}

impl fmt::Debug for CutTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = self
            .bits
            .as_ref()
            .map(|b| b.iter().map(|w| w.count_ones() as usize).sum::<usize>());
        f.debug_struct("CutTable").field("bits_set", &set).finish()
    }
}

/// A vocabulary's [`CutTable`], built once enough long pieces have been merged.
#[derive(Debug, Default)]
pub(crate) struct LazyCuts {
    table: OnceLock<CutTable>,
    /// Bytes of long pieces merged before the table was built.
    merged: AtomicUsize,
}

impl Clone for LazyCuts {
    fn clone(&self) -> Self {
        Self {
            table: self.table.clone(),
            merged: AtomicUsize::new(self.merged.load(Ordering::Relaxed)),
        }
    }
}

impl LazyCuts {
    /// The table, built now if it is not.
    pub(super) fn get(&self, bpe: &Bpe) -> &CutTable {
        self.table.get_or_init(|| CutTable::new(bpe))
    }

    /// The table for a long piece of `len` bytes about to be merged, or `None` while fewer
    /// than [`BUILD_AFTER`] bytes of long pieces have been.
    #[inline]
    pub(super) fn for_piece(&self, bpe: &Bpe, len: usize) -> Option<&CutTable> {
        if let Some(table) = self.table.get() {
            return Some(table);
        }
        let merged = self.merged.fetch_add(len, Ordering::Relaxed) + len;
        (merged >= BUILD_AFTER).then(|| self.get(bpe))
    }
}

/// The bit of a trigram of this kind.
#[inline(always)]
fn bit(kind: Kind, a: u8, b: u8, c: u8) -> usize {
    // Two multiplies: one leaves the lattice of a script's trigrams clumped (a third more
    // collisions on CJK).
    let key = u64::from(u32::from_le_bytes([a, b, c, kind as u8]));
    let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> (64 - BITS)) as usize
}

impl CutTable {
    /// The table of `bpe`'s merges.
    pub(crate) fn new(bpe: &Bpe) -> Self {
        let mut bits = vec![0u64; 1 << (BITS - 6)].into_boxed_slice();
        let mut set = |i: usize| bits[i >> 6] |= 1 << (i & 63);
        let mut seen = vec![false; bpe.rank_bound()];
        for (a, b, merged) in bpe.merges() {
            let parts = (
                bpe.token_bytes(a),
                bpe.token_bytes(b),
                bpe.token_bytes(merged),
            );
            let (Some(left), Some(right), Some(token)) = parts else {
                return Self { bits: None };
            };
            let joined = token.len() == left.len() + right.len()
                && token.starts_with(left)
                && token.ends_with(right);
            if !joined {
                return Self { bits: None };
            }
            if std::mem::replace(&mut seen[merged as usize], true) || token.len() < 3 {
                continue;
            }
            set(bit(Kind::Prefix, token[0], token[1], token[2]));
            for w in token.windows(3) {
                set(bit(Kind::Inside, w[0], w[1], w[2]));
            }
        }
        Self { bits: Some(bits) }
    }

    /// Whether no merge can cross between `piece[p - 1]` and `piece[p]` (`0 < p < len`), by
    /// the test of the module's documentation.
    #[inline(always)]
    fn is_cut(&self, bits: &[u64], bpe: &Bpe, piece: &[u8], p: usize) -> bool {
        let has = |i: usize| bits[i >> 6] & (1 << (i & 63)) != 0;
        let (x, y) = (piece[p - 1], piece[p]);
        bpe.byte_pair_rank(x, y) == NO_RANK
            && (p < 2 || !has(bit(Kind::Inside, piece[p - 2], x, y)))
            && piece
                .get(p + 1)
                .is_none_or(|&z| !has(bit(Kind::Prefix, x, y, z)))
    }

    /// Calls `each` on the segments of `piece`, left to right; their ranks, joined, are the
    /// piece's. A segment between two cuts is given alone when it has at most [`SHORT`]
    /// bytes; longer ones are joined with their neighbours into one segment for the rank
    /// queue, which merges long stretches for less than the array scan. Only places before a
    /// byte that is not a UTF-8 continuation byte are tried. The search stops at the first
    /// stretch of [`GIVE_UP`] bytes without a short segment, which leaves the rest of the piece
    /// as one segment.
    pub(super) fn segments<E>(
        &self,
        bpe: &Bpe,
        piece: &[u8],
        mut each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(bits) = self.bits.as_deref() else {
            return each(piece);
        };
        // `piece[..start]` is given to `each` already; `last` is the latest cut (or `start`).
        let (mut start, mut last) = (0, 0);
        for p in 1..piece.len() {
            if p - start > GIVE_UP {
                break;
            }
            // Only between characters: a UTF-8 continuation byte rarely starts a segment.
            if piece[p] & 0xC0 != 0x80 && self.is_cut(bits, bpe, piece, p) {
                if p - last <= SHORT {
                    if last > start {
                        each(&piece[start..last])?;
                    }
                    each(&piece[last..p])?;
                    start = p;
                }
                last = p;
            }
        }
        each(&piece[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::super::merge::tests::{cl100k, reference};
    use super::*;
    use crate::models::bpe::Rank;
    use proptest::prelude::*;

    /// Whether some formable token covers bytes `p - 1` and `p` of `piece`, by brute force.
    /// (For vocabularies built by `Bpe::new`, a token is formable when it splits into two.)
    fn spanned(bpe: &Bpe, piece: &[u8], p: usize) -> bool {
        let token = |s: &[u8]| bpe.rank_of(s).is_some();
        (0..p).any(|a| {
            (p + 1..=piece.len()).any(|b| {
                token(&piece[a..b])
                    && (a + 1..b).any(|k| token(&piece[a..k]) && token(&piece[k..b]))
            })
        })
    }

    /// The cuts `segments` finds, as positions.
    fn cuts(bpe: &Bpe, piece: &[u8]) -> Vec<usize> {
        let mut at = Vec::new();
        let mut end = 0;
        bpe.cut_table()
            .segments(bpe, piece, |s| {
                end += s.len();
                at.push(end);
                Ok::<(), ()>(())
            })
            .unwrap();
        at.pop();
        at
    }

    /// The ranks of `piece` merged segment by segment.
    fn merged_by_segments(bpe: &Bpe, table: &CutTable, piece: &[u8]) -> Vec<Rank> {
        let mut out = Vec::new();
        table
            .segments(bpe, piece, |s| {
                out.extend(reference(bpe, s));
                Ok::<(), ()>(())
            })
            .unwrap();
        out
    }

    /// A small vocabulary where tokens span what look like cuts: `abc` (so `b|c` is no cut
    /// though `bc` is no token), `cde` (so `c|d` is none), `tuv` (made of `t` and `uv`, so
    /// `t|u` is none though `tu` is no token), 2-byte `xy`, `aa` and `ee`, and `qrst`.
    fn small() -> Bpe {
        let mut tokens: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, t) in [
            "ab", "abc", "cd", "cde", "xy", "qr", "st", "qrst", "aa", "ee", "uv", "tuv",
        ]
        .iter()
        .enumerate()
        {
            tokens.push((t.as_bytes().to_vec(), 256 + i as Rank));
        }
        Bpe::new(tokens).unwrap()
    }

    #[test]
    fn cuts_are_never_spanned_and_found_where_expected() {
        let bpe = small();
        let piece = b"zabcdezxyzqrstztuvz";
        let found = cuts(&bpe, piece);
        for &p in &found {
            assert!(!spanned(&bpe, piece, p), "cut at {p}");
        }
        // z|abcde|z|xy|z|qrst|z|tuv|z: every boundary no token spans is a cut here, by
        // design of the vocabulary and by the brute-force check.
        let unspanned: Vec<usize> = (1..piece.len())
            .filter(|&p| !spanned(&bpe, piece, p))
            .collect();
        assert_eq!(unspanned, [1, 6, 7, 9, 10, 14, 15, 18]);
        assert_eq!(found, unspanned);
    }

    #[test]
    fn a_merge_that_does_not_join_its_parts_disables_cuts() {
        let tokens: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        let mut tokens = tokens;
        tokens.push((b"xyz".to_vec(), 256));
        // `a` + `b` makes `xyz`: the part covering "ab" holds another token's bytes.
        let bpe = Bpe::from_merges(tokens, vec![(97, 98, 256)], false).unwrap();
        assert!(CutTable::new(&bpe).bits.is_none());
        assert!(cuts(&bpe, b"abababab").is_empty());
    }

    #[test]
    fn random_cjk_mostly_cuts_at_characters_under_cl100k() {
        let bpe = cl100k();
        let mut state = 12345u32;
        let piece: String = (0..300)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                char::from_u32(0x4E00 + (state >> 8) % 0x5200).unwrap()
            })
            .collect();
        let found = cuts(bpe, piece.as_bytes());
        assert!(found.len() > 250, "{} cuts", found.len());
        assert_eq!(
            merged_by_segments(bpe, bpe.cut_table(), piece.as_bytes()),
            reference(bpe, piece.as_bytes())
        );
    }

    #[test]
    fn a_long_stretch_without_cuts_ends_the_search() {
        let bpe = small();
        // A run of "a" never cuts; the "a|z" and "z|z" after it are past GIVE_UP bytes.
        let piece = [vec![b'a'; GIVE_UP + 1], b"zz".to_vec()].concat();
        assert!(cuts(&bpe, &piece).is_empty());
        assert_eq!(cuts(&bpe, b"aazz"), [2, 3]);
    }

    #[test]
    fn the_table_is_built_after_a_megabyte_of_long_pieces() {
        let bpe = small();
        let lazy = LazyCuts::default();
        assert!(lazy.for_piece(&bpe, BUILD_AFTER - 100).is_none());
        assert!(lazy.for_piece(&bpe, 99).is_none());
        assert!(lazy.for_piece(&bpe, 1).is_some());
        assert!(lazy.clone().for_piece(&bpe, 1).is_some());
    }

    #[test]
    fn long_segments_are_joined_and_short_ones_given_alone() {
        let bpe = small();
        let (a, e) = (vec![b'a'; SHORT + 4], vec![b'e'; SHORT + 4]);
        // Cuts at a|e and e|z, but both segments before them are long: one segment.
        assert!(cuts(&bpe, &[&a[..], &e, b"z"].concat()).is_empty());
        // The short "z" between them is given alone, and so ends the long "a" segment.
        assert_eq!(
            cuts(&bpe, &[&a[..], b"z", &e].concat()),
            [SHORT + 4, SHORT + 5]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Under cl100k: no cut is spanned by a token, and merging the segments apart gives
        /// the piece's ranks. The bytes are CJK, Latin and the bytes of `\u{FFFD}`.
        #[test]
        fn cl100k_cuts_are_safe(piece in prop::collection::vec(prop::sample::select(
            b"\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\xef\xbf\xbd ab\xe9\x9f\xff".to_vec()), 1..40)) {
            let bpe = cl100k();
            for p in cuts(bpe, &piece) {
                prop_assert!(!spanned(bpe, &piece, p), "cut at {}", p);
            }
            prop_assert_eq!(merged_by_segments(bpe, bpe.cut_table(), &piece), reference(bpe, &piece));
        }

        /// The same under the small vocabulary, with pieces made of its tokens' letters.
        #[test]
        fn small_vocabulary_cuts_are_safe(piece in prop::collection::vec(prop::sample::select(
            b"abcdexyqrstuvz".to_vec()), 1..60)) {
            let bpe = small();
            for p in cuts(&bpe, &piece) {
                prop_assert!(!spanned(&bpe, &piece, p), "cut at {}", p);
            }
            prop_assert_eq!(merged_by_segments(&bpe, bpe.cut_table(), &piece), reference(&bpe, &piece));
        }
    }
}
