//! The merge loop: from a piece's bytes to its ranks.
//!
//! Short pieces (almost all of them) use an array scan: find the lowest pair rank, merge,
//! update the two neighbouring pair ranks. That is quadratic in the piece's length, and the
//! fastest choice for words. Long pieces (a megabyte of one letter, a line of CJK with no
//! spaces) use a min-heap of `(rank, position)` over a linked list of parts, which is
//! O(n log n). Both merge the lowest-ranked pair first and the leftmost one on ties, so they
//! give the same result; a property test checks it.

use super::model::{Bpe, Rank, NO_RANK};
use crate::error::Result;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pieces up to this many bytes use the array scan.
const SMALL: usize = 24;

/// Buffers reused across pieces, so long pieces allocate nothing.
#[derive(Default, Debug)]
pub struct MergeScratch {
    toks: Vec<Rank>,
    next: Vec<u32>,
    prev: Vec<u32>,
    heap: BinaryHeap<Reverse<u64>>,
    pairs: PairCache,
}

/// A small direct-mapped cache of recent pair lookups: the pairs of one script repeat, and
/// the full pair table is too big to stay in L1/L2.
#[derive(Default, Debug)]
struct PairCache {
    /// `(left << 32 | right, merged)`; allocated on first use.
    slots: Vec<(u64, Rank)>,
}

const PAIR_CACHE: usize = 2048;

impl PairCache {
    #[inline(always)]
    fn get(&mut self, bpe: &Bpe, a: Rank, b: Rank) -> Rank {
        if self.slots.is_empty() {
            // u64::MAX never matches a key: no rank is u32::MAX.
            self.slots = vec![(u64::MAX, NO_RANK); PAIR_CACHE];
        }
        let key = ((a as u64) << 32) | b as u64;
        let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 53) as usize & (PAIR_CACHE - 1);
        let slot = &mut self.slots[i];
        if slot.0 != key {
            *slot = (key, bpe.pair_rank(a, b));
        }
        slot.1
    }
}

pub(super) fn merge(
    bpe: &Bpe,
    piece: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut MergeScratch,
) -> Result<()> {
    if piece.len() <= SMALL {
        merge_small(bpe, piece, out)
    } else {
        merge_heap(bpe, piece, out, scratch)
    }
}

fn merge_small(bpe: &Bpe, piece: &[u8], out: &mut Vec<Rank>) -> Result<()> {
    let n = piece.len();
    let mut toks = [0 as Rank; SMALL];
    let mut pair = [NO_RANK; SMALL];
    debug_assert!(n <= SMALL);
    for (slot, &b) in toks.iter_mut().zip(piece) {
        *slot = bpe.byte_rank(b)?;
    }
    for i in 0..n.saturating_sub(1) {
        pair[i] = bpe.byte_pair_rank(piece[i], piece[i + 1]);
    }
    let mut len = n;
    while len > 1 {
        let mut best = NO_RANK;
        let mut at = 0;
        for (i, &r) in pair[..len - 1].iter().enumerate() {
            if r < best {
                best = r;
                at = i;
            }
        }
        if best == NO_RANK {
            break;
        }
        toks[at] = best;
        toks.copy_within(at + 2..len, at + 1);
        if at + 2 < len {
            pair.copy_within(at + 2..len - 1, at + 1);
        }
        len -= 1;
        if at > 0 {
            pair[at - 1] = bpe.pair_rank(toks[at - 1], toks[at]);
        }
        if at + 1 < len {
            pair[at] = bpe.pair_rank(toks[at], toks[at + 1]);
        }
    }
    out.extend_from_slice(&toks[..len]);
    Ok(())
}

const END: u32 = u32::MAX;
const DEAD: Rank = NO_RANK;

fn merge_heap(
    bpe: &Bpe,
    piece: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut MergeScratch,
) -> Result<()> {
    let n = piece.len();
    let MergeScratch {
        toks,
        next,
        prev,
        heap,
        pairs,
    } = scratch;
    toks.clear();
    for &b in piece {
        toks.push(bpe.byte_rank(b)?);
    }
    next.clear();
    next.extend(1..=n as u32);
    next[n - 1] = END;
    prev.clear();
    prev.extend((0..n as u32).map(|i| i.wrapping_sub(1)));
    prev[0] = END;
    // Keys are `rank << 32 | position`, so the smallest key is the lowest rank, leftmost.
    let key = |rank: Rank, pos: u32| Reverse(((rank as u64) << 32) | pos as u64);
    heap.clear();
    let mut initial = std::mem::take(heap).into_vec();
    initial.clear();
    initial.extend((0..n - 1).filter_map(|i| {
        let r = bpe.byte_pair_rank(piece[i], piece[i + 1]);
        (r != NO_RANK).then(|| key(r, i as u32))
    }));
    *heap = BinaryHeap::from(initial);
    while let Some(Reverse(k)) = heap.pop() {
        let rank = (k >> 32) as Rank;
        let i = k as u32 as usize;
        // Entries go stale when a neighbour merges; skip any that no longer describe a pair.
        let j = next[i];
        if toks[i] == DEAD || j == END || pairs.get(bpe, toks[i], toks[j as usize]) != rank {
            continue;
        }
        let j = j as usize;
        toks[i] = rank;
        toks[j] = DEAD;
        let after = next[j];
        next[i] = after;
        if after != END {
            prev[after as usize] = i as u32;
            let r = pairs.get(bpe, rank, toks[after as usize]);
            if r != NO_RANK {
                heap.push(key(r, i as u32));
            }
        }
        let before = prev[i];
        if before != END {
            let r = pairs.get(bpe, toks[before as usize], rank);
            if r != NO_RANK {
                heap.push(key(r, before));
            }
        }
    }
    let mut i = 0u32;
    while i != END {
        out.push(toks[i as usize]);
        i = next[i as usize];
    }
    Ok(())
}

#[cfg(test)]
pub(super) fn merge_with(bpe: &Bpe, piece: &[u8], heap: bool) -> Result<Vec<Rank>> {
    let mut out = Vec::new();
    if heap && piece.len() > 1 {
        merge_heap(bpe, piece, &mut out, &mut MergeScratch::default())?;
    } else {
        merge_small(bpe, piece, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tiktoken_file;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    fn cl100k() -> &'static Bpe {
        static BPE: OnceLock<Bpe> = OnceLock::new();
        BPE.get_or_init(|| {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../python/tokensmith/vocab/cl100k_base.tiktoken.gz"
            );
            Bpe::new(tiktoken_file::read(path.as_ref()).unwrap()).unwrap()
        })
    }

    /// The textbook definition, written independently: scan for the lowest-ranked adjacent
    /// pair by looking up the concatenated bytes, merge it, repeat.
    fn reference(bpe: &Bpe, piece: &[u8]) -> Vec<Rank> {
        let mut parts: Vec<Vec<u8>> = piece.iter().map(|&b| vec![b]).collect();
        loop {
            let best = (0..parts.len().saturating_sub(1))
                .filter_map(|i| {
                    bpe.rank_of(&[parts[i].as_slice(), parts[i + 1].as_slice()].concat())
                        .map(|r| (r, i))
                })
                .min();
            let Some((_, i)) = best else { break };
            let right = parts.remove(i + 1);
            parts[i].extend(right);
        }
        parts.iter().map(|p| bpe.rank_of(p).unwrap()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn array_and_heap_agree_with_reference(piece in prop::collection::vec(prop::sample::select(b"aab eeinst\xe4\xb8\xad\xff\x00".to_vec()), 1..64)) {
            let bpe = cl100k();
            let expected = reference(bpe, &piece);
            if piece.len() <= SMALL {
                prop_assert_eq!(merge_with(bpe, &piece, false).unwrap(), expected.clone());
            }
            prop_assert_eq!(merge_with(bpe, &piece, true).unwrap(), expected);
        }
    }

    #[test]
    fn heap_handles_long_pieces() {
        let bpe = cl100k();
        for piece in [
            vec![b'a'; 3000],
            "中文字".repeat(400).into_bytes(),
            (0..=255u8).cycle().take(2000).collect(),
        ] {
            let mut out = Vec::new();
            merge(bpe, &piece, &mut out, &mut MergeScratch::default()).unwrap();
            assert_eq!(out, reference(bpe, &piece));
        }
    }
}
