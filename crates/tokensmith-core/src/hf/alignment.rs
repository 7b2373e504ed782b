//! Where each token of an [`HfEncoding`] came from: its sequence, its word, its characters,
//! and the way back (HF's `Encoding.char_to_token`, `word_to_tokens` and the rest).
//!
//! Every query works within one sequence's range of tokens ([`HfEncoding::sequence_ranges`]).
//! An encoding without ranges (one sequence no post-processor saw), or a sequence id it has
//! no range for, is searched whole, as HF does.
//!
//! ```
//! use tokensmith_core::hf::encoding::HfEncoding;
//! let words = ["he", "llo", "you"].map(String::from).to_vec();
//! let mut enc = HfEncoding::from_parts(
//!     vec![1, 2, 3], words, vec![(0, 2), (2, 5), (6, 9)], vec![0; 3], vec![1; 3], vec![0; 3],
//!     vec![Some(0), Some(0), Some(1)],
//! );
//! assert_eq!(enc.word_to_tokens(0, 0), Some((0, 2)));
//! assert_eq!(enc.word_to_chars(0, 0), Some((0, 5)));
//! assert_eq!(enc.char_to_token(7, 0), Some(2));
//! assert_eq!(enc.char_to_word(5, 0), None); // the space belongs to no token
//! enc.set_sequence_id(1);
//! assert_eq!(enc.token_to_sequence(2), Some(1));
//! ```

use super::encoding::HfEncoding;
use std::ops::Range;

impl HfEncoding {
    /// How many sequences the encoding holds: 1 when it records none.
    pub fn n_sequences(&self) -> usize {
        self.sequence_ranges.len().max(1)
    }

    /// The tokens of sequence `id`; every token when it has no range.
    pub fn sequence_range(&self, id: usize) -> Range<usize> {
        self.sequence_ranges
            .iter()
            .find(|(i, _)| *i == id)
            .map_or(0..self.ids.len(), |(_, r)| r.clone())
    }

    /// The sequence of each token, `None` for the tokens of no sequence (special tokens),
    /// as HF computes it: for each id below [`Self::n_sequences`], the tokens of its range.
    pub fn sequence_ids(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.ids.len()];
        for id in 0..self.n_sequences() {
            let range = self.sequence_range(id);
            if let Some(slots) = out.get_mut(range) {
                slots.fill(Some(id));
            }
        }
        out
    }

    /// The sequence token `token` belongs to. As in HF, an index one past the end still
    /// answers 0 when the encoding records no ranges.
    pub fn token_to_sequence(&self, token: usize) -> Option<usize> {
        if token > self.ids.len() {
            None
        } else if self.sequence_ranges.is_empty() {
            Some(0)
        } else {
            self.sequence_ranges
                .iter()
                .find(|(_, r)| r.contains(&token))
                .map(|(id, _)| *id)
        }
    }

    /// The tokens `(first, last + 1)` of word `word` of sequence `sequence`. The search stops
    /// at the first token of a later word, as HF's does.
    pub fn word_to_tokens(&self, word: u32, sequence: usize) -> Option<(usize, usize)> {
        let range = self.sequence_range(sequence);
        let words = self.word_ids.get(range.clone())?;
        let mut found: Option<(usize, usize)> = None;
        for (i, w) in words.iter().enumerate() {
            if *w > Some(word) {
                break;
            }
            if *w == Some(word) {
                found = Some(found.map_or((i, i + 1), |(start, _)| (start, i + 1)));
            }
        }
        found.map(|(start, end)| (range.start + start, range.start + end))
    }

    /// The characters `(first, last + 1)` word `word` of sequence `sequence` spans: from the
    /// start of its first token to the end of its last.
    pub fn word_to_chars(&self, word: u32, sequence: usize) -> Option<(usize, usize)> {
        let (start, end) = self.word_to_tokens(word, sequence)?;
        Some((self.offsets.get(start)?.0, self.offsets.get(end - 1)?.1))
    }

    /// The offsets of token `token` (in its own sequence's characters).
    pub fn token_to_chars(&self, token: usize) -> Option<(usize, usize)> {
        self.token_to_sequence(token)?;
        self.offsets.get(token).copied()
    }

    /// The word (within its sequence) token `token` is part of.
    pub fn token_to_word(&self, token: usize) -> Option<u32> {
        self.token_to_sequence(token)?;
        self.word_ids.get(token).copied().flatten()
    }

    /// The first token of sequence `sequence` whose offsets hold character `pos`.
    pub fn char_to_token(&self, pos: usize, sequence: usize) -> Option<usize> {
        let range = self.sequence_range(sequence);
        let offsets = self.offsets.get(range.clone())?;
        let i = offsets.iter().position(|&(s, e)| s <= pos && pos < e)?;
        Some(range.start + i)
    }

    /// The word of the first token of sequence `sequence` that holds character `pos`.
    pub fn char_to_word(&self, pos: usize, sequence: usize) -> Option<u32> {
        self.token_to_word(self.char_to_token(pos, sequence)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[CLS] a b [SEP] c [SEP]`: a pair as BertProcessing lays it out.
    fn pair() -> HfEncoding {
        let tokens = ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"].map(String::from);
        let mut enc = HfEncoding::from_parts(
            vec![1, 5, 6, 2, 7, 2],
            tokens.to_vec(),
            vec![(0, 0), (0, 1), (2, 3), (0, 0), (0, 1), (0, 0)],
            vec![0, 0, 0, 0, 1, 1],
            vec![1; 6],
            vec![1, 0, 0, 1, 0, 1],
            vec![None, Some(0), Some(1), None, Some(0), None],
        );
        enc.set_sequence_range(0, 1..3);
        enc.set_sequence_range(1, 4..5);
        enc
    }

    #[test]
    fn queries_stay_within_a_sequence() {
        let enc = pair();
        assert_eq!(enc.n_sequences(), 2);
        let none = None;
        assert_eq!(
            enc.sequence_ids(),
            [none, Some(0), Some(0), none, Some(1), none]
        );
        assert_eq!(enc.word_to_tokens(0, 1), Some((4, 5)));
        assert_eq!(enc.word_to_tokens(1, 1), None);
        assert_eq!(enc.char_to_token(0, 1), Some(4));
        assert_eq!(enc.char_to_token(2, 0), Some(2));
        assert_eq!(enc.char_to_word(0, 1), Some(0));
        assert_eq!(enc.token_to_sequence(3), None);
        assert_eq!(enc.token_to_word(0), None);
        assert_eq!(enc.token_to_chars(4), Some((0, 1)));
        // A sequence the encoding has no range for is searched whole.
        assert_eq!(enc.char_to_token(2, 7), Some(2));
    }

    #[test]
    fn merge_moves_ranges_and_grows_offsets() {
        let mut first = pair();
        first.offsets[5] = (4, 9);
        let grown = HfEncoding::merge([first.clone(), pair()], true);
        assert_eq!(grown.sequence_range(1), 10..11);
        assert_eq!(grown.offsets[7], (9, 10));
        let kept = HfEncoding::merge([first, pair()], false);
        assert_eq!(kept.offsets[7], (0, 1));
    }
}
