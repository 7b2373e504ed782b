//! Merging a long piece that is a few runs of one repeated byte (a megabyte of spaces, a line
//! of dashes, `"a" * N`) in time that grows with the number of runs rather than of bytes.
//!
//! The piece is kept as runs `(token, count)`. The merge order is the usual one (lowest rank
//! first, leftmost on ties), where the leftmost pair inside a run sits at its start and the
//! pair across two runs after the first run's inner pairs. A pair across two runs is merged
//! once, like any merge. The pairs inside a run `X^c` are merged all at once, into
//! `M^(c/2)` followed by one `X` when `c` is odd, and only when the one-at-a-time merges
//! would do exactly that: the pairs those merges create, `(previous, M)`, `(M, X)`, `(M, M)`
//! and `(M, next)`, must all rank above the pair being merged, so none of them can cut in.
//! Otherwise, or when the piece has too many runs, this path declines and the general merge
//! handles the piece. It never creates a pair of the rank being merged (that pair would be a
//! longer token than `XX`), so the leftmost-first order holds across the bulk step.
//!
//! `merge_runs("aaaaa")` under a vocabulary with `aa` and `aaaa` but no `aaa` is
//! `[aaaa, a]`: first `[aa, aa, a]`, then the inner pair of the `aa` run.

use super::model::{Bpe, Rank, NO_RANK};
use crate::error::Result;

/// The most runs this path keeps; a piece with more goes to the general merge.
const MAX_RUNS: usize = 64;
/// The shortest average run worth this path: a word of distinct letters is not one.
const MIN_AVERAGE_RUN: usize = 4;

/// A run of `count` copies of token `tok`, with the ranks of its pairs as last looked up: a
/// step changes a run or two, and the other runs' pairs are not looked up again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    tok: Rank,
    count: usize,
    /// The rank of `(tok, tok)`.
    inner: Rank,
    /// The token `cross` was looked up with (`NO_RANK`, which is no token's, before that).
    cross_next: Rank,
    /// The rank of `(tok, cross_next)`.
    cross: Rank,
}

impl Run {
    fn new(bpe: &Bpe, tok: Rank, count: usize) -> Self {
        Self {
            tok,
            count,
            inner: bpe.pair_rank(tok, tok),
            cross_next: NO_RANK,
            cross: NO_RANK,
        }
    }
}

/// Appends the ranks of `piece` to `out` and returns true if `piece` is a few long runs of
/// repeated bytes; returns false, leaving `out` as it was, for the general merge to handle.
pub(super) fn merge_runs(bpe: &Bpe, piece: &[u8], out: &mut Vec<Rank>) -> Result<bool> {
    let Some(mut runs) = byte_runs(bpe, piece)? else {
        return Ok(false);
    };
    while let Some((rank, k, inner)) = lowest_pair(bpe, &mut runs) {
        if inner {
            let old = runs[k];
            let Run { tok, count, .. } = old;
            let merged = Run::new(bpe, rank, count / 2);
            let prev = k.checked_sub(1).map(|p| runs[p].tok);
            let next = runs.get(k + 1).map(|r| r.tok);
            let cuts_in = |r: Rank| r < rank;
            if prev.is_some_and(|p| cuts_in(bpe.pair_rank(p, rank)))
                || (count >= 3 && cuts_in(bpe.pair_rank(rank, tok)))
                || (count >= 4 && cuts_in(merged.inner))
                || (count % 2 == 0 && next.is_some_and(|n| cuts_in(bpe.pair_rank(rank, n))))
            {
                return Ok(false);
            }
            runs[k] = merged;
            if count % 2 == 1 {
                // The old run's last copy, before the same next run: its ranks still hold.
                runs.insert(k + 1, Run { count: 1, ..old });
            }
        } else {
            runs[k].count -= 1;
            runs[k + 1].count -= 1;
            runs.insert(k + 1, Run::new(bpe, rank, 1));
        }
        normalize(&mut runs);
        if runs.len() > MAX_RUNS {
            return Ok(false);
        }
    }
    for run in &runs {
        out.extend(std::iter::repeat_n(run.tok, run.count));
    }
    Ok(true)
}

/// The runs of equal bytes in `piece`, or `None` if there are too many or they are short.
fn byte_runs(bpe: &Bpe, piece: &[u8]) -> Result<Option<Vec<Run>>> {
    // Most long pieces are words or lines of text: count first, so that declining them costs
    // a scan of a few dozen bytes and no allocation.
    let limit = MAX_RUNS.min(piece.len() / MIN_AVERAGE_RUN);
    let mut n_runs = usize::from(!piece.is_empty());
    for w in piece.windows(2) {
        if n_runs > limit {
            return Ok(None);
        }
        n_runs += usize::from(w[0] != w[1]);
    }
    if n_runs > limit {
        return Ok(None);
    }
    // Room for every run a step can make before the count is checked: no step allocates.
    let mut runs = Vec::with_capacity(MAX_RUNS + 2);
    let mut rest = piece;
    while let Some(&b) = rest.first() {
        let count = rest.iter().position(|&x| x != b).unwrap_or(rest.len());
        runs.push(Run::new(bpe, bpe.byte_rank(b)?, count));
        rest = &rest[count..];
    }
    Ok(Some(runs))
}

/// The lowest-ranked adjacent pair as `(rank, run, inside the run?)`, leftmost on ties. A
/// run's pair with the next run is looked up only when that next run's token changed.
fn lowest_pair(bpe: &Bpe, runs: &mut [Run]) -> Option<(Rank, usize, bool)> {
    let mut best: Option<(Rank, usize, bool)> = None;
    let mut consider = |r: Rank, k: usize, inner: bool| {
        if r != NO_RANK && best.is_none_or(|(b, _, _)| r < b) {
            best = Some((r, k, inner));
        }
    };
    for k in 0..runs.len() {
        if runs[k].count >= 2 {
            consider(runs[k].inner, k, true);
        }
        if let Some(next) = runs.get(k + 1).map(|r| r.tok) {
            let run = &mut runs[k];
            if run.cross_next != next {
                run.cross = bpe.pair_rank(run.tok, next);
                run.cross_next = next;
            }
            consider(run.cross, k, false);
        }
    }
    best
}

/// Drops empty runs and joins neighbours that hold the same token, in place.
fn normalize(runs: &mut Vec<Run>) {
    let mut kept = 0;
    for i in 0..runs.len() {
        let run = runs[i];
        if run.count == 0 {
            continue;
        }
        if kept > 0 && runs[kept - 1].tok == run.tok {
            runs[kept - 1].count += run.count;
        } else {
            runs[kept] = run;
            kept += 1;
        }
    }
    runs.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::super::merge::tests::{cl100k, reference};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Whenever the runs path answers, it gives the textbook merge's ranks.
        #[test]
        fn runs_agree_with_reference(
            runs in prop::collection::vec(
                (prop::sample::select(b" a-=\n\t0e\xe4\xff".to_vec()), 1usize..40),
                1..12,
            ),
        ) {
            let bpe = cl100k();
            let piece: Vec<u8> = runs.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n)).collect();
            let mut out = Vec::new();
            if merge_runs(bpe, &piece, &mut out).unwrap() {
                prop_assert_eq!(out, reference(bpe, &piece));
            } else {
                prop_assert!(out.is_empty());
            }
        }
    }

    #[test]
    fn long_runs_take_this_path_and_match_the_reference() {
        let bpe = cl100k();
        for piece in [
            vec![b' '; 1000],
            vec![b'a'; 999],
            [vec![b'-'; 300], vec![b'='; 301]].concat(),
            [vec![b'\n'; 100], vec![b' '; 77]].concat(),
        ] {
            let mut out = Vec::new();
            assert!(merge_runs(bpe, &piece, &mut out).unwrap(), "{piece:?}");
            assert_eq!(out, reference(bpe, &piece));
        }
    }

    #[test]
    fn words_decline() {
        let mut out = Vec::new();
        assert!(!merge_runs(cl100k(), b"internationalization", &mut out).unwrap());
        assert!(out.is_empty());
    }
}
