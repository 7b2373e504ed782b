//! The model stage of a `tokenizer.json`: WordPiece, BPE, Unigram or WordLevel.

use super::bpe::Bpe;
use super::unigram::HfUnigram;
use super::wordlevel::WordLevel;
use super::wordpiece::WordPiece;
use crate::{Error, Result};
use rustc_hash::FxHashMap;

/// One model of a `tokenizer.json`.
#[derive(Clone, Debug)]
pub enum Model {
    WordPiece(WordPiece),
    Bpe(Box<Bpe>),
    Unigram(Box<HfUnigram>),
    WordLevel(WordLevel),
}

impl Model {
    /// The tokens of one word: `(id, start, end)` with spans in characters of `word`.
    ///
    /// # Errors
    /// The word needs the unknown token and the model has none in its vocabulary
    /// ([`missing_unknown`]).
    pub fn tokenize(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let mut out = Vec::new();
        self.tokenize_into(word, &mut out)?;
        Ok(out)
    }

    /// Appends the tokens of one word to `out`, as [`Self::tokenize`] gives them. The
    /// tokenizer calls this with one buffer for every word of a text, so a model that can
    /// write into it allocates nothing per word; a model without such a method can use
    /// `out.extend(m.tokenize(word))`. On an error `out` is as it was.
    ///
    /// # Errors
    /// As [`Self::tokenize`].
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        match self {
            Model::WordPiece(m) => m.tokenize_into(word, out),
            Model::Bpe(m) => m.tokenize_into(word, out),
            Model::Unigram(m) => m.tokenize_into(word, out),
            Model::WordLevel(m) => m.tokenize_into(word, out),
        }
    }

    /// The vocabulary (token -> id).
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        match self {
            Model::WordPiece(m) => m.vocab(),
            Model::Bpe(m) => m.vocab(),
            Model::Unigram(m) => m.vocab(),
            Model::WordLevel(m) => m.vocab(),
        }
    }

    /// Whether the token of id `id` is spelled by the text it covers, not by the vocabulary:
    /// HF names an unknown Unigram piece by its own text.
    pub fn spells_unknown(&self, id: u32) -> bool {
        match self {
            Model::Unigram(m) => m.spells_unknown(id),
            _ => false,
        }
    }

    /// The model's vocabulary size as HF gives it: the number of Unigram pieces (one listed
    /// twice counts twice), else the number of vocabulary entries.
    pub fn vocab_size(&self) -> usize {
        match self {
            Model::Unigram(m) => m.len(),
            m => m.vocab().len(),
        }
    }
}

/// The error of a word that needs the unknown token of a model whose `field` (`unk_token`,
/// `unk_id`) names none in its vocabulary. HF loads such a model too and fails on the same
/// words ("Missing [UNK] token from the vocabulary", "unknown token but `unk_id` is
/// missing").
pub fn missing_unknown(field: &str, unk: &str, word: &[char]) -> Error {
    let word: String = word.iter().collect();
    Error::TokenizerJson {
        path: format!("model.{field}"),
        message: format!(
            "the word {word:?} needs the unknown token, and {unk} is not in the model's \
             vocabulary (HF fails on such a word too); add it to model.vocab or set \
             model.{field} to a token of the vocabulary"
        ),
    }
}
