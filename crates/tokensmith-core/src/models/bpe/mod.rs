//! Byte-level BPE with tiktoken semantics: a token's id is its merge rank, and a piece is
//! encoded by repeatedly merging the adjacent pair whose concatenation has the lowest rank
//! (the leftmost such pair on ties).

mod merge;
mod model;
mod token_table;

pub use model::{Bpe, Rank};
pub use token_table::TokenTable;
