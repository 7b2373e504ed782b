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
//! the same either way), and the greedy search finds each piece in one walk of a
//! [`PieceTrie`] (of the whole vocabulary for a word's first piece, of the entries that
//! start with the prefix, without it, for the others) rather than with one lookup per
//! candidate length.
//!
//! Not handled here: training (see issue 5's WordPiece trainer).
//!
//! As in HF, an `unk_token` missing from the vocabulary is accepted: only a word that needs
//! it fails ([`super::model::missing_unknown`]).

use super::model::missing_unknown;
use super::word_cache::WordCache;
use crate::models::unigram::PieceTrie;
use crate::Result;
use rustc_hash::FxHashMap;

/// A WordPiece vocabulary and its options.
#[derive(Clone, Debug)]
pub struct WordPiece {
    vocab: FxHashMap<String, u32>,
    unk_token: String,
    /// The id of `unk_token`, if the vocabulary has it.
    unk_id: Option<u32>,
    max_input_chars_per_word: usize,
    /// Every entry (a word's first piece), and the entries that start with the prefix,
    /// without it (the other pieces). Boxed: a [`super::model::Model`] holds the model inline.
    tries: Box<[PieceTrie; 2]>,
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
        let firsts = trie_of(vocab.iter().map(|(t, &id)| (t.as_str(), id)));
        let continuations = trie_of(
            vocab
                .iter()
                .filter_map(|(t, &id)| Some((t.strip_prefix(prefix)?, id))),
        );
        Ok(Self {
            vocab,
            tries: Box::new([firsts, continuations]),
            unk_token: unk_token.to_string(),
            unk_id,
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
            let text: String = w.iter().collect();
            self.search(&text, w.len())
        })
    }

    /// Appends the ids of one word, given as text, to `out`: the ids of
    /// [`Self::tokenize`]'s pieces, through the same cache.
    ///
    /// # Errors
    /// As [`Self::tokenize`] (then `out` is as it was).
    pub fn ids_into(&self, word: &str, out: &mut Vec<u32>) -> Result<()> {
        let search = |w: &str| self.search(w, w.chars().count());
        self.cache.try_visit(word, search, |pieces| {
            out.extend(pieces.iter().map(|p| p.0))
        })
    }

    /// The greedy longest-match-first search of one word of `chars` characters.
    fn search(&self, word: &str, chars: usize) -> Result<Vec<(u32, usize, usize)>> {
        let unk = || match self.unk_id {
            Some(id) => Ok(vec![(id, 0, chars)]),
            None => {
                let word: Vec<char> = word.chars().collect();
                Err(missing_unknown(
                    "unk_token",
                    &format!("{:?}", self.unk_token),
                    &word,
                ))
            }
        };
        if chars > self.max_input_chars_per_word {
            return unk();
        }
        let mut pieces = Vec::new();
        let (mut start, mut start_char) = (0, 0);
        while start < word.len() {
            let trie = &self.tries[usize::from(start > 0)];
            // An entry ends on a character boundary of the word: UTF-8 is self-synchronizing.
            let Some((id, len)) = longest_entry(trie, &word.as_bytes()[start..]) else {
                return unk();
            };
            let end_char = start_char + word[start..start + len].chars().count();
            pieces.push((id, start_char, end_char));
            start += len;
            start_char = end_char;
        }
        Ok(pieces)
    }
}

/// The trie of `(entry, id)` pairs (each entry once), compiled now rather than on the first
/// word; an empty entry is left out (it never starts a piece).
fn trie_of<'a>(entries: impl Iterator<Item = (&'a str, u32)>) -> PieceTrie {
    let mut trie = PieceTrie::new();
    for (entry, id) in entries.filter(|e| !e.0.is_empty()) {
        trie.insert(entry.as_bytes(), id);
    }
    trie.matcher();
    trie
}

/// The id and byte length of the longest entry of `trie` that `text` starts with.
#[inline]
fn longest_entry(trie: &PieceTrie, text: &[u8]) -> Option<(u32, usize)> {
    let mut found = None;
    trie.common_prefixes(text, |len, id| found = Some((id, len)));
    found
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
