//! The model stage of a `tokenizer.json`: WordPiece or BPE.

use super::bpe::Bpe;
use super::wordpiece::WordPiece;
use rustc_hash::FxHashMap;

/// One model of a `tokenizer.json`.
#[derive(Clone, Debug)]
pub enum Model {
    WordPiece(WordPiece),
    Bpe(Box<Bpe>),
}

impl Model {
    /// The tokens of one word: `(id, start, end)` with spans in characters of `word`.
    pub fn tokenize(&self, word: &[char]) -> Vec<(u32, usize, usize)> {
        match self {
            Model::WordPiece(m) => m.tokenize(word),
            Model::Bpe(m) => m.tokenize(word),
        }
    }

    /// The vocabulary (token -> id).
    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        match self {
            Model::WordPiece(m) => m.vocab(),
            Model::Bpe(m) => m.vocab(),
        }
    }
}
