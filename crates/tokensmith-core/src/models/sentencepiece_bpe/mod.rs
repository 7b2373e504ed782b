//! SentencePiece's BPE (`model_type=bpe`): merges chosen by piece score, not by merge rank.
//!
//! Facts kept from sentencepiece's `bpe_model.cc` so that results are identical:
//! - the text starts as one symbol per UTF-8 character;
//! - every adjacent pair whose concatenation is a NORMAL, USER_DEFINED or UNUSED piece is a
//!   candidate; the candidate with the highest score merges first, the leftmost on ties (scores
//!   compared as numbers, so `-0.0` ties with `0.0`);
//! - a queued candidate is stale when either side is gone or the two sides' total length
//!   changed (sentencepiece's own check, kept as it is);
//! - a final symbol that is an UNUSED piece is split back into the pair that formed it;
//! - a symbol that is not a piece gets the unknown id.
//!
//! User-defined symbols are matched first (longest match) and never merge.
//!
//! BPE dropout (Provilkov et al. 2020), as sentencepiece does it: each merge popped from the
//! queue is skipped with probability `alpha`, and a skipped pair is only queued again if a
//! neighbouring merge recreates it.
//!
//! [`SentencePieceBpe`] looks pairs up by symbol ids in a table built once per model
//! (`pair_table.rs`), where sentencepiece hashes the text of every candidate; `reference.rs`
//! keeps the text-keyed encoder that it is tested against. The table's build finds the halves of
//! every cut of every piece in [`crate::text_index`] (hashes extended a byte at a time, texts borrowed).

mod model;
mod pair_table;
#[cfg(test)]
mod reference;

#[cfg(test)]
pub(crate) use model::kept_bytes;
pub use model::{SentencePieceBpe, WordPieces};
