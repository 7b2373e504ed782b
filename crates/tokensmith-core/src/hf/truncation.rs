//! Truncation as a `tokenizer.json` configures it: the sequences are cut before the
//! post-processor adds its special tokens (leaving room for them). Padding is in
//! [`super::padding`].
//!
//! ```
//! use tokensmith_core::hf::truncation::pair_lengths;
//! // The longer sequence gives up tokens first; ties split max_length evenly.
//! assert_eq!(pair_lengths(3, 10, 8), (3, 5));
//! assert_eq!(pair_lengths(10, 10, 7), (3, 4));
//! ```
//!
//! With a stride, the tokens cut off are not lost: they become `overflowing` windows of the
//! same length, each repeating the last `stride` tokens of the window before it (HF's
//! `Encoding::truncate`).

pub use super::padding::Padding;
use super::HfEncoding;
use crate::error::{Error, Result};

/// Which end loses (or gains) tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
}

/// Which sequence of a pair loses tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The longer one, down to an even split.
    LongestFirst,
    /// Only the first (a pair's second is never cut).
    OnlyFirst,
    /// Only the second; without a pair, an input too long is an error.
    OnlySecond,
}

/// Truncation as `tokenizer.json` (or `enable_truncation`) configures it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    pub max_length: usize,
    pub stride: usize,
    pub strategy: Strategy,
    pub direction: Direction,
}

/// The lengths LongestFirst keeps of two sequences of `n1` and `n2` tokens.
pub fn pair_lengths(n1: usize, n2: usize, max_length: usize) -> (usize, usize) {
    if n1 + n2 <= max_length {
        return (n1, n2);
    }
    let swap = n1 > n2;
    let (mut short, mut long) = if swap { (n2, n1) } else { (n1, n2) };
    long = if short > max_length {
        short
    } else {
        long.min(short.max(max_length - short))
    };
    if short + long > max_length {
        short = max_length / 2;
        long = short + max_length % 2;
    }
    if swap {
        (long, short)
    } else {
        (short, long)
    }
}

impl Truncation {
    /// The lengths to cut a sequence of `n1` tokens (and a pair of `n2`) to, when
    /// `max_length` tokens are left for them. Errors as HF's do when the strategy cannot
    /// be satisfied.
    pub fn lengths(
        &self,
        n1: usize,
        n2: Option<usize>,
        max_length: usize,
    ) -> Result<(usize, Option<usize>)> {
        if max_length == 0 {
            return Ok((0, n2.map(|_| 0)));
        }
        let total = n1 + n2.unwrap_or(0);
        if total <= max_length {
            return Ok((n1, n2));
        }
        let to_remove = total - max_length;
        let too_short = || {
            Error::Truncation(format!(
                "truncation ({:?}): the sequence to truncate is too short to bring the \
                 input of {total} tokens down to max_length {max_length}",
                self.strategy
            ))
        };
        match (self.strategy, n2) {
            (Strategy::LongestFirst, Some(n2)) => {
                let (a, b) = pair_lengths(n1, n2, max_length);
                Ok((a, Some(b)))
            }
            (Strategy::LongestFirst, None) => Ok((max_length, None)),
            (Strategy::OnlyFirst, _) if n1 > to_remove => Ok((n1 - to_remove, n2)),
            (Strategy::OnlySecond, Some(n2)) if n2 > to_remove => Ok((n1, Some(n2 - to_remove))),
            (Strategy::OnlySecond, None) => Err(Error::Truncation(
                "truncation (OnlySecond): the second sequence is not provided".into(),
            )),
            _ => Err(too_short()),
        }
    }

    /// Keeps `len` tokens of `enc` (a sequence before post-processing) and puts the rest
    /// in `enc.overflowing` as windows of `len` tokens overlapping by `stride`.
    pub fn split(&self, enc: &mut HfEncoding, len: usize) -> Result<()> {
        let n = enc.ids.len();
        if 0 < len && len < n && self.stride >= len {
            return Err(Error::Truncation(format!(
                "truncation stride {} must be below the {len} tokens left for a sequence \
                 (max_length {} minus the special tokens, shared between a pair)",
                self.stride, self.max_length
            )));
        }
        truncate(enc, len, self.stride, self.direction)
    }
}

/// A truncation length or stride as a `usize`, or an error naming `option` when it is
/// negative.
pub fn truncation_number(option: &str, value: i64) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::TruncationRange(format!(
            "truncation {option} must not be negative, got {value}"
        ))
    })
}

/// Truncates an encoding to `max_length` tokens as HF's `Encoding::truncate` does: nothing
/// when it is not longer; else the tokens cut off become its `overflowing` windows of
/// `max_length` tokens, each repeating `stride` tokens of the one before, and the overflowing
/// parts it had are dropped. With `max_length` 0 the whole encoding (its overflowing parts
/// included) becomes the one overflowing part of an empty encoding.
///
/// ```
/// use tokensmith_core::hf::encoding::HfEncoding;
/// use tokensmith_core::hf::truncation::{truncate, Direction};
/// let words = ["a", "b", "c", "d"].map(String::from).to_vec();
/// let n = words.len();
/// let mut enc = HfEncoding::from_parts(
///     vec![1, 2, 3, 4], words, vec![(0, 1); n], vec![0; n], vec![1; n], vec![0; n], vec![None; n],
/// );
/// truncate(&mut enc, 3, 1, Direction::Right).unwrap();
/// assert_eq!(enc.ids, [1, 2, 3]);
/// assert_eq!(enc.overflowing[0].ids, [3, 4]);
/// // HF panics on a stride not below max_length; here it is an error.
/// assert!(truncate(&mut enc, 2, 2, Direction::Left).is_err());
/// ```
pub fn truncate(
    enc: &mut HfEncoding,
    max_length: usize,
    stride: usize,
    direction: Direction,
) -> Result<()> {
    let n = enc.ids.len();
    if max_length >= n {
        return Ok(());
    }
    if max_length == 0 {
        let whole = std::mem::take(enc);
        enc.table = whole.table.clone();
        enc.overflowing.push(whole);
        return Ok(());
    }
    if stride >= max_length {
        return Err(Error::Truncation(format!(
            "truncate: stride {stride} must be below max_length {max_length}"
        )));
    }
    let windows = windows(n, max_length, max_length - stride, direction);
    let mut parts = windows.iter().map(|&(a, b)| enc.slice(a, b));
    let mut kept = parts.next().unwrap_or_default();
    kept.overflowing = parts.collect();
    *enc = kept;
    Ok(())
}

/// The `(start, stop)` windows of `len` tokens out of `n`, `step` apart, the kept one first:
/// from the start for `Right`, from the end for `Left`; the last reaches the other end.
pub fn windows(n: usize, len: usize, step: usize, direction: Direction) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match direction {
        Direction::Right => {
            let mut start = 0;
            while start < n {
                let stop = (start + len).min(n);
                out.push((start, stop));
                if stop == n {
                    break;
                }
                start += step;
            }
        }
        Direction::Left => {
            let mut stop = n;
            while stop > 0 {
                let start = stop.saturating_sub(len);
                out.push((start, stop));
                if start == 0 {
                    break;
                }
                stop = stop.saturating_sub(step);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_first_lengths() {
        assert_eq!(pair_lengths(2, 3, 10), (2, 3));
        assert_eq!(pair_lengths(10, 3, 8), (5, 3));
        assert_eq!(pair_lengths(20, 30, 9), (4, 5));
        assert_eq!(pair_lengths(30, 20, 9), (5, 4));
    }

    /// Three tokens `a b c` (ids 1 to 3), one word each.
    fn abc() -> HfEncoding {
        HfEncoding::from_parts(
            vec![1, 2, 3],
            ["a", "b", "c"].map(String::from).to_vec(),
            vec![(0, 1), (1, 2), (2, 3)],
            vec![],
            vec![],
            vec![],
            vec![Some(0), Some(1), Some(2)],
        )
    }

    #[test]
    fn stride_windows() {
        // 7 tokens, windows of 3 overlapping by 1 (a step of 2).
        let right = windows(7, 3, 2, Direction::Right);
        assert_eq!(right, [(0, 3), (2, 5), (4, 7)]);
        let left = windows(7, 3, 2, Direction::Left);
        assert_eq!(left, [(4, 7), (2, 5), (0, 3)]);
        // The last window stops at the end even when shorter.
        assert_eq!(windows(4, 3, 3, Direction::Right), [(0, 3), (3, 4)]);
        assert_eq!(windows(4, 3, 3, Direction::Left), [(1, 4), (0, 1)]);
    }

    #[test]
    fn strategies_and_their_errors() {
        let t = |strategy| Truncation {
            max_length: 0,
            stride: 0,
            strategy,
            direction: Direction::Right,
        };
        let first = t(Strategy::OnlyFirst);
        assert_eq!(first.lengths(6, Some(3), 5).unwrap(), (2, Some(3)));
        assert!(first.lengths(3, Some(6), 5).is_err());
        let second = t(Strategy::OnlySecond);
        assert_eq!(second.lengths(3, Some(6), 5).unwrap(), (3, Some(2)));
        assert!(second.lengths(6, None, 5).is_err());
        // Short enough: nothing is asked of the strategy.
        assert_eq!(second.lengths(4, None, 5).unwrap(), (4, None));
        let longest = t(Strategy::LongestFirst);
        assert_eq!(longest.lengths(6, None, 5).unwrap(), (5, None));
        assert_eq!(longest.lengths(6, Some(6), 0).unwrap(), (0, Some(0)));
    }

    #[test]
    fn stride_must_be_below_the_length() {
        let mut enc = abc();
        let t = Truncation {
            max_length: 2,
            stride: 2,
            strategy: Strategy::LongestFirst,
            direction: Direction::Right,
        };
        assert!(t.split(&mut enc, 2).is_err());
    }

    #[test]
    fn truncate_and_pad() {
        let mut enc = abc();
        let t = Truncation {
            max_length: 2,
            stride: 0,
            strategy: Strategy::LongestFirst,
            direction: Direction::Left,
        };
        t.split(&mut enc, 2).unwrap();
        assert_eq!(enc.ids, [2, 3]);
        assert_eq!(enc.overflowing.len(), 1);
        assert_eq!(enc.overflowing[0].ids, [1]);
        enc.overflowing.clear();
        enc.type_ids = vec![0, 0];
        enc.special_tokens_mask = vec![0, 0];
        enc.attention_mask = vec![1, 1];
        let padding = Padding {
            fixed: Some(4),
            direction: Direction::Right,
            pad_to_multiple_of: None,
            pad_id: 0,
            pad_type_id: 0,
            pad_token: "[PAD]".into(),
        };
        padding.pad(&mut enc);
        assert_eq!(enc.ids, [2, 3, 0, 0]);
        assert_eq!(enc.attention_mask, [1, 1, 0, 0]);
        assert_eq!(enc.word_ids, [Some(1), Some(2), None, None]);
        assert_eq!(enc.tokens(), ["b", "c", "[PAD]", "[PAD]"]);
    }
}
