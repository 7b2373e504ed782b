//! The Unigram language model: every piece has a log-probability, and a text is segmented into
//! the pieces whose log-probabilities sum highest (Viterbi over the lattice of all matches).
//!
//! Not handled yet: n-best lists, sampling for subword regularization, and training.

mod model;
mod trie;

pub use model::{Unigram, UnigramPiece};
pub use trie::PieceTrie;
