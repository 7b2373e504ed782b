//! The WordPiece model: greedy longest-match-first over a vocabulary, with a continuing
//! prefix (`##`) on every piece but a word's first.
//!
//! ```
//! use tokensmith_core::hf::wordpiece::WordPiece;
//! let vocab = [("[UNK]", 0), ("un", 1), ("##aff", 2), ("##able", 3)];
//! let wp = WordPiece::new(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect(),
//!                         "[UNK]", "##", 100).unwrap();
//! let pieces = wp.tokenize(&"unaffable".chars().collect::<Vec<_>>());
//! assert_eq!(pieces, vec![(1, 0, 2), (2, 2, 5), (3, 5, 9)]);
//! ```
//!
//! Not handled here: training (see issue 5's WordPiece trainer).

use crate::{Error, Result};
use rustc_hash::FxHashMap;

/// A WordPiece vocabulary and its options.
#[derive(Clone, Debug)]
pub struct WordPiece {
    vocab: FxHashMap<String, u32>,
    unk_id: u32,
    prefix: String,
    max_input_chars_per_word: usize,
}

impl WordPiece {
    /// Builds the model; `unk_token` must be in `vocab`.
    pub fn new(
        vocab: FxHashMap<String, u32>,
        unk_token: &str,
        prefix: &str,
        max_input_chars_per_word: usize,
    ) -> Result<Self> {
        let unk_id = *vocab.get(unk_token).ok_or_else(|| {
            Error::InvalidVocab(format!(
                "the unknown token {unk_token:?} is not in the vocabulary"
            ))
        })?;
        Ok(Self {
            vocab,
            unk_id,
            prefix: prefix.to_string(),
            max_input_chars_per_word,
        })
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// The pieces of one word as `(id, start, end)`, in characters of `word`. A word that is
    /// too long, or that has a part no piece matches, is one `[UNK]` over the whole word.
    pub fn tokenize(&self, word: &[char]) -> Vec<(u32, usize, usize)> {
        let unk = vec![(self.unk_id, 0, word.len())];
        if word.len() > self.max_input_chars_per_word {
            return unk;
        }
        let mut pieces = Vec::new();
        let mut candidate = String::new();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                candidate.clear();
                if start > 0 {
                    candidate.push_str(&self.prefix);
                }
                candidate.extend(&word[start..end]);
                if let Some(&id) = self.vocab.get(candidate.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => pieces.push((id, start, end)),
                None => return unk,
            }
            start = end;
        }
        pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(max: usize) -> WordPiece {
        let vocab = ["[UNK]", "a", "ab", "##b", "##c", "##bc"];
        let vocab = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect();
        WordPiece::new(vocab, "[UNK]", "##", max).unwrap()
    }

    fn ids(wp: &WordPiece, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        wp.tokenize(&chars).into_iter().map(|p| p.0).collect()
    }

    #[test]
    fn longest_match_first() {
        let wp = model(100);
        assert_eq!(ids(&wp, "abc"), [2, 4]);
        assert_eq!(ids(&wp, "abbc"), [2, 5]);
        assert_eq!(ids(&wp, "abd"), [0]);
        assert_eq!(ids(&wp, "b"), [0]);
    }

    #[test]
    fn too_long_is_unknown() {
        assert_eq!(model(2).tokenize(&['a', 'b', 'c']), [(0, 0, 3)]);
    }

    #[test]
    fn missing_unk_is_an_error() {
        let vocab = [("a".to_string(), 0)].into_iter().collect();
        assert!(WordPiece::new(vocab, "[UNK]", "##", 100).is_err());
    }
}
