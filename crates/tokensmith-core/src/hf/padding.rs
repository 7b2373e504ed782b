//! Padding as a `tokenizer.json` (or `enable_padding`) configures it, for one encoding and
//! across a batch.
//!
//! The length to pad to is the fixed one, or else the longest encoding of the batch (for one
//! encoding, itself), rounded up to a multiple of `pad_to_multiple_of`. Only the top-level
//! encodings count towards the longest; their overflowing parts (at every depth) are then
//! padded to the same length, as HF `tokenizers` does. Nothing is ever cut: an encoding longer
//! than the length is left as it is. A pad token has offsets `(0, 0)`, no word, the pad type
//! id, attention 0 and special-token mask 1.
//!
//! ```
//! use tokensmith_core::hf::padding::Padding;
//! use tokensmith_core::hf::truncation::Direction;
//! let p = Padding { pad_to_multiple_of: Some(4), ..Padding::default() };
//! assert_eq!(p.target(5), 8);
//! let fixed = Padding { fixed: Some(3), direction: Direction::Left, ..Padding::default() };
//! assert_eq!(fixed.target(1), 3);
//! ```

use super::truncation::Direction;
use super::HfEncoding;
use crate::error::{Error, Result};
use crate::limits::{self, Limit};

/// A padding length as a `usize`, or an error naming `option` when it is negative or above
/// [`Limit::MaxPaddedLength`].
pub fn padding_number(option: &str, value: i64) -> Result<usize> {
    let n = u64::try_from(value).map_err(|_| {
        Error::PaddingRange(format!(
            "padding {option} must not be negative, got {value}"
        ))
    })?;
    padding_length(option, n)
}

/// `value` as a padding length, or an error naming `option` when it is above
/// [`Limit::MaxPaddedLength`] (checked before any pad token is allocated).
pub fn padding_length(option: &str, value: u64) -> Result<usize> {
    limits::check(Limit::MaxPaddedLength, value, &format!("padding {option}"))?;
    Ok(value as usize)
}

/// A padding id as a `u32`, or an error naming `option` when it is out of range.
pub fn padding_id(option: &str, value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::PaddingRange(format!(
            "padding {option} must be between 0 and {}, got {value}",
            u32::MAX
        ))
    })
}

/// Padding to a fixed length, or (`fixed: None`) to the longest encoding of the batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padding {
    pub fixed: Option<usize>,
    pub direction: Direction,
    /// The length is rounded up to a multiple of this; `None` or 0 leave it as it is.
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
}

impl Default for Padding {
    /// HF's defaults: to the longest, on the right, with id 0 named `[PAD]`.
    fn default() -> Self {
        Self {
            fixed: None,
            direction: Direction::Right,
            pad_to_multiple_of: None,
            pad_id: 0,
            pad_type_id: 0,
            pad_token: "[PAD]".into(),
        }
    }
}

impl Padding {
    /// The length to pad to when the longest encoding has `longest` tokens.
    pub fn target(&self, longest: usize) -> usize {
        let length = self.fixed.unwrap_or(longest);
        match self.pad_to_multiple_of.filter(|&m| m > 0) {
            Some(m) => length.div_ceil(m).saturating_mul(m),
            None => length,
        }
    }

    /// Padding to `length` as HF's `Encoding::pad` pads one encoding (its overflowing parts
    /// included); `length` and the ids come from Python, so each is checked, and an error
    /// names the option at fault.
    ///
    /// ```
    /// use tokensmith_core::hf::padding::Padding;
    /// use tokensmith_core::hf::truncation::Direction;
    /// let p = Padding::to_length(4, Direction::Left, 1, 0, "<pad>".into()).unwrap();
    /// assert_eq!((p.fixed, p.pad_id), (Some(4), 1));
    /// assert!(Padding::to_length(-1, Direction::Left, 1, 0, "<pad>".into()).is_err());
    /// ```
    pub fn to_length(
        length: i64,
        direction: Direction,
        pad_id: i64,
        pad_type_id: i64,
        pad_token: String,
    ) -> Result<Self> {
        Ok(Self {
            fixed: Some(padding_number("length", length)?),
            direction,
            pad_to_multiple_of: None,
            pad_id: padding_id("pad_id", pad_id)?,
            pad_type_id: padding_id("pad_type_id", pad_type_id)?,
            pad_token,
        })
    }

    /// Pads a final encoding, and its overflowing parts, as a batch of one.
    pub fn pad(&self, enc: &mut HfEncoding) {
        self.pad_batch(std::slice::from_mut(enc));
    }

    /// Pads every encoding of a batch (and their overflowing parts) to one length: the
    /// fixed one, or the longest encoding's, rounded up to `pad_to_multiple_of`.
    pub fn pad_batch(&self, encodings: &mut [HfEncoding]) {
        let Some(longest) = encodings.iter().map(|e| e.ids.len()).max() else {
            return;
        };
        let target = self.target(longest);
        for enc in encodings {
            self.pad_to(enc, target);
        }
    }

    /// Pads `enc` and its overflowing parts (at every depth) to `target` tokens.
    fn pad_to(&self, enc: &mut HfEncoding, target: usize) {
        for part in &mut enc.overflowing {
            self.pad_to(part, target);
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
        if d == Direction::Left {
            for (_, range) in &mut enc.sequence_ranges {
                *range = range.start + n..range.end + n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` tokens `t` with ids 1..=n, one word each, as post-processing leaves them.
    fn tokens(n: usize) -> HfEncoding {
        let ids: Vec<u32> = (1..=n as u32).collect();
        HfEncoding::from_parts(
            ids.clone(),
            vec!["t".to_string(); n],
            (0..n).map(|i| (i, i + 1)).collect(),
            vec![0; n],
            vec![1; n],
            vec![0; n],
            ids.iter().map(|&i| Some(i - 1)).collect(),
        )
    }

    #[test]
    fn batch_longest_with_a_multiple_on_the_left() {
        let mut batch = [tokens(1), tokens(3), tokens(2)];
        let p = Padding {
            direction: Direction::Left,
            pad_to_multiple_of: Some(2),
            pad_id: 7,
            pad_type_id: 1,
            ..Padding::default()
        };
        p.pad_batch(&mut batch);
        // The longest has 3 tokens: every encoding gets 4.
        assert!(batch.iter().all(|e| e.ids.len() == 4));
        assert_eq!(batch[0].ids, [7, 7, 7, 1]);
        assert_eq!(batch[0].tokens(), ["[PAD]", "[PAD]", "[PAD]", "t"]);
        assert_eq!(batch[0].attention_mask, [0, 0, 0, 1]);
        assert_eq!(batch[0].special_tokens_mask, [1, 1, 1, 0]);
        assert_eq!(batch[0].type_ids, [1, 1, 1, 0]);
        assert_eq!(batch[0].word_ids, [None, None, None, Some(0)]);
        assert_eq!(batch[0].offsets, [(0, 0), (0, 0), (0, 0), (0, 1)]);
        assert_eq!(batch[1].ids, [7, 1, 2, 3]);
    }

    #[test]
    fn overflowing_parts_follow_the_top_level_length() {
        // A part longer than its encoding does not raise the batch's length.
        let mut first = tokens(2);
        first.overflowing = vec![tokens(1), tokens(5)];
        let mut batch = [first, tokens(3)];
        Padding::default().pad_batch(&mut batch);
        assert_eq!(batch[0].ids, [1, 2, 0]);
        assert_eq!(batch[0].overflowing[0].ids, [1, 0, 0]);
        assert_eq!(batch[0].overflowing[1].ids.len(), 5);
        assert_eq!(batch[1].ids, [1, 2, 3]);
    }

    #[test]
    fn fixed_never_cuts_and_empty_batches_are_fine() {
        let p = Padding {
            fixed: Some(2),
            pad_to_multiple_of: Some(0),
            ..Padding::default()
        };
        let mut batch = [tokens(3), tokens(1)];
        p.pad_batch(&mut batch);
        assert_eq!(batch[0].ids, [1, 2, 3]);
        assert_eq!(batch[1].ids, [1, 0]);
        p.pad_batch(&mut []);
    }
}
