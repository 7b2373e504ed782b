//! Truncation and padding as a `tokenizer.json` configures them.
//!
//! Truncation cuts the sequences before the post-processor adds its special tokens (leaving
//! room for them); padding fills the final encoding up to a fixed length.
//!
//! ```
//! use tokensmith_core::hf::truncation::pair_lengths;
//! // The longer sequence gives up tokens first; ties split max_length evenly.
//! assert_eq!(pair_lengths(3, 10, 8), (3, 5));
//! assert_eq!(pair_lengths(10, 10, 7), (3, 4));
//! ```
//!
//! Not handled yet: a non-zero stride and the `overflowing` encodings it produces, the
//! OnlyFirst and OnlySecond strategies, and BatchLongest across a batch.

use super::HfEncoding;

/// Which end loses (or gains) tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
}

/// LongestFirst truncation with stride 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    pub max_length: usize,
    pub direction: Direction,
}

/// Padding to a fixed length (`None`: to the longest of the batch, which for one encoding is
/// itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padding {
    pub fixed: Option<usize>,
    pub direction: Direction,
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
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

/// Keeps `len` tokens of `enc` (a sequence before post-processing).
pub fn truncate(enc: &mut HfEncoding, len: usize, direction: Direction) {
    if enc.ids.len() <= len {
        return;
    }
    let cut = enc.ids.len() - len;
    fn keep<T>(v: &mut Vec<T>, len: usize, cut: usize, direction: Direction) {
        if v.len() < len + cut {
            return;
        }
        match direction {
            Direction::Right => v.truncate(len),
            Direction::Left => {
                v.drain(..cut);
            }
        }
    }
    keep(&mut enc.ids, len, cut, direction);
    keep(&mut enc.own_tokens, len, cut, direction);
    keep(&mut enc.offsets, len, cut, direction);
    keep(&mut enc.word_ids, len, cut, direction);
    keep(&mut enc.type_ids, len, cut, direction);
    keep(&mut enc.special_tokens_mask, len, cut, direction);
    keep(&mut enc.attention_mask, len, cut, direction);
}

impl Padding {
    /// Pads a final encoding.
    pub fn pad(&self, enc: &mut HfEncoding) {
        let mut target = self.fixed.unwrap_or(enc.ids.len());
        if let Some(m) = self.pad_to_multiple_of.filter(|&m| m > 0) {
            target = target.div_ceil(m) * m;
        }
        let n = target.saturating_sub(enc.ids.len());
        if n == 0 {
            return;
        }
        fn fill<T: Clone>(v: &mut Vec<T>, n: usize, value: T, direction: Direction) {
            match direction {
                Direction::Right => v.extend(std::iter::repeat_n(value, n)),
                Direction::Left => {
                    v.splice(0..0, std::iter::repeat_n(value, n));
                }
            }
        }
        let d = self.direction;
        // The pad token is stored only when it is not the vocabulary's token of pad_id.
        let own = match &enc.table {
            Some(table) => table.own_text(self.pad_id, &self.pad_token),
            None => Some(self.pad_token.as_str().into()),
        };
        fill(&mut enc.ids, n, self.pad_id, d);
        fill(&mut enc.own_tokens, n, own, d);
        fill(&mut enc.offsets, n, (0, 0), d);
        fill(&mut enc.word_ids, n, None, d);
        fill(&mut enc.type_ids, n, self.pad_type_id, d);
        fill(&mut enc.special_tokens_mask, n, 1, d);
        fill(&mut enc.attention_mask, n, 0, d);
    }
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

    #[test]
    fn truncate_and_pad() {
        let mut enc = HfEncoding::from_parts(
            vec![1, 2, 3],
            ["a", "b", "c"].map(String::from).to_vec(),
            vec![(0, 1), (1, 2), (2, 3)],
            vec![],
            vec![],
            vec![],
            vec![Some(0), Some(1), Some(2)],
        );
        truncate(&mut enc, 2, Direction::Left);
        assert_eq!(enc.ids, [2, 3]);
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
