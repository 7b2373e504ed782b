//! The WordPiece model: greedy longest-match-first over a vocabulary, with a continuing
//! prefix (`##`) on every piece but a word's first.
//!
//! ```
//! use tokensmith_core::hf::wordpiece::WordPiece;
//! let vocab = [("[UNK]", 0), ("un", 1), ("##aff", 2), ("##able", 3)];
//! let wp = WordPiece::new(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect(),
//!                         "[UNK]", "##", 100).unwrap();
//! let pieces = wp.tokenize(&"unaffable".chars().collect::<Vec<_>>()).unwrap();
//! assert_eq!(pieces, vec![(1, 0, 2), (2, 2, 5), (3, 5, 9)]);
//! ```
//!
//! Words seen before come from a [`WordCache`] (HF's WordPiece keeps none; the tokens are
//! the same either way): the greedy search tries up to one lookup per candidate piece, and
//! most words of a text recur.
//!
//! Not handled here: training (see issue 5's WordPiece trainer).
//!
//! As in HF, an `unk_token` missing from the vocabulary is accepted: only a word that needs
//! it fails ([`super::model::missing_unknown`]).

use super::model::missing_unknown;
use super::word_cache::WordCache;
use crate::Result;
use rustc_hash::FxHashMap;

/// A WordPiece vocabulary and its options.
#[derive(Clone, Debug)]
pub struct WordPiece {
    vocab: FxHashMap<String, u32>,
    unk_token: String,
    /// The id of `unk_token`, if the vocabulary has it.
    unk_id: Option<u32>,
    prefix: String,
    max_input_chars_per_word: usize,
    /// The most characters a vocabulary entry has: no longer piece can match.
    max_piece_chars: usize,
    cache: WordCache,
}

impl WordPiece {
    /// Builds the model; an `unk_token` missing from `vocab` fails the words that need it.
    ///
    /// # Errors
    /// None today; kept fallible like the other models' constructors.
    pub fn new(
        vocab: FxHashMap<String, u32>,
        unk_token: &str,
        prefix: &str,
        max_input_chars_per_word: usize,
    ) -> Result<Self> {
        let unk_id = vocab.get(unk_token).copied();
        let max_piece_chars = vocab.keys().map(|t| t.chars().count()).max().unwrap_or(0);
        Ok(Self {
            vocab,
            max_piece_chars,
            unk_token: unk_token.to_string(),
            unk_id,
            prefix: prefix.to_string(),
            max_input_chars_per_word,
            cache: WordCache::default(),
        })
    }

    /// The vocabulary.
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// The pieces of one word as `(id, start, end)`, in characters of `word`. A word that is
    /// too long, or that has a part no piece matches, is one `[UNK]` over the whole word.
    ///
    /// # Errors
    /// Such a word, when the vocabulary has no `unk_token`.
    pub fn tokenize(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let mut out = Vec::new();
        self.tokenize_into(word, &mut out)?;
        Ok(out)
    }

    /// Appends the pieces of one word to `out`, as [`Self::tokenize`] gives them.
    ///
    /// # Errors
    /// As [`Self::tokenize`] (then `out` is as it was).
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        self.cache.try_tokenize_into(word, out, |w| {
            let mut pieces = Vec::new();
            self.search_into(w, &mut pieces)?;
            Ok(pieces)
        })
    }

    /// The greedy longest-match-first search of one word, appended to `out`.
    fn search_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        thread_local! {
            // The word's text and a candidate piece, reused from word to word.
            static BUFFERS: std::cell::RefCell<(String, String)> = const {
                std::cell::RefCell::new((String::new(), String::new()))
            };
        }
        let unk = || match self.unk_id {
            Some(id) => Ok((id, 0, word.len())),
            None => Err(missing_unknown(
                "unk_token",
                &format!("{:?}", self.unk_token),
                word,
            )),
        };
        if word.len() > self.max_input_chars_per_word {
            out.push(unk()?);
            return Ok(());
        }
        BUFFERS.with_borrow_mut(|(text, candidate)| {
            text.clear();
            text.extend(word);
            let first = out.len();
            let mut start = 0;
            let mut start_byte = 0;
            while start < word.len() {
                // Longer candidates than any vocabulary entry are not looked up.
                let mut end = word.len().min(start + self.max_piece_chars);
                let mut end_byte =
                    start_byte + word[start..end].iter().map(|c| c.len_utf8()).sum::<usize>();
                let mut found = None;
                while start < end {
                    let piece = &text[start_byte..end_byte];
                    let id = if start == 0 {
                        self.vocab.get(piece)
                    } else {
                        candidate.clear();
                        candidate.push_str(&self.prefix);
                        candidate.push_str(piece);
                        self.vocab.get(candidate.as_str())
                    };
                    if let Some(&id) = id {
                        found = Some(id);
                        break;
                    }
                    end -= 1;
                    end_byte -= word[end].len_utf8();
                }
                match found {
                    Some(id) => out.push((id, start, end)),
                    None => {
                        out.truncate(first);
                        out.push(unk()?);
                        return Ok(());
                    }
                }
                start = end;
                start_byte = end_byte;
            }
            Ok(())
        })
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
        wp.tokenize(&chars)
            .unwrap()
            .into_iter()
            .map(|p| p.0)
            .collect()
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
    fn cached_words_give_the_same_pieces() {
        let wp = model(100);
        for _ in 0..2 {
            assert_eq!(ids(&wp, "abc"), [2, 4]);
            assert_eq!(ids(&wp, "abd"), [0]);
        }
    }

    #[test]
    fn too_long_is_unknown() {
        assert_eq!(model(2).tokenize(&['a', 'b', 'c']).unwrap(), [(0, 0, 3)]);
    }

    #[test]
    fn missing_unk_fails_only_the_words_that_need_it() {
        let vocab = [("a".to_string(), 0)].into_iter().collect();
        let wp = WordPiece::new(vocab, "[UNK]", "##", 2).unwrap();
        assert_eq!(wp.tokenize(&['a']).unwrap(), [(0, 0, 1)]);
        let mut out = vec![(7, 0, 1)];
        for word in [&['a', 'b'][..], &['a', 'a', 'a'][..]] {
            let err = wp.tokenize_into(word, &mut out).unwrap_err();
            assert!(err.to_string().contains("model.unk_token"), "{err}");
            assert_eq!(out, [(7, 0, 1)]);
        }
    }
}
