//! The model stage of a `tokenizer.json`: WordPiece, BPE, Unigram or WordLevel.

use super::bpe::Bpe;
use super::unigram::HfUnigram;
use super::wordlevel::WordLevel;
use super::wordpiece::WordPiece;
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
    pub fn tokenize(&self, word: &[char]) -> Vec<(u32, usize, usize)> {
        let mut out = Vec::new();
        self.tokenize_into(word, &mut out);
        out
    }

    /// Appends the tokens of one word to `out`, as [`Self::tokenize`] gives them. The
    /// tokenizer calls this with one buffer for every word of a text, so a model that can
    /// write into it allocates nothing per word; a model without such a method can use
    /// `out.extend(m.tokenize(word))`.
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) {
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
