//! The Unigram language model: every piece has a log-probability, and a text is segmented into
//! the pieces whose log-probabilities sum highest (Viterbi over the lattice of all matches).
//! The lattice also gives the n best segmentations, samples for subword regularization, and
//! the entropy of the segmentation distribution.
//!
//! Not handled here: training (see `trainers/`).

mod char_layout;
mod char_trie;
mod lattice;
mod model;
mod nbest;
mod sample;
#[cfg(test)]
pub(crate) mod test_pieces;
mod trie;
pub(crate) mod unknown_runs;
#[cfg(test)]
mod viterbi_tests;
pub(crate) mod word_sink;
mod word_split;
pub(crate) mod words;
#[cfg(test)]
mod words_tests;

pub use lattice::{Lattice, Node};
#[cfg(test)]
pub(crate) use model::kept_table_bytes;
pub use model::{Span, Unigram, UnigramPiece};
pub use nbest::{nbest, set_timeout_ms, timeout_ms};
pub use sample::{pick_scored, sample_path, SplitMix64};
pub use trie::PieceTrie;
pub use word_split::WordSplit;
pub(crate) use word_split::{next_mark, MARK};
