//! Byte-level BPE with tiktoken semantics: a token's id is its merge rank, and a piece is
//! encoded by repeatedly merging the adjacent pair whose concatenation has the lowest rank
//! (the leftmost such pair on ties).

mod batch;
mod cache;
mod cuts;
mod fill;
pub(crate) mod huge;
mod long_cache;
mod lowest;
mod merge;
mod model;
pub(crate) mod pair_filter;
mod pair_table;
mod piece_table;
mod prefetch;
mod runs;
mod same_bytes;
mod token_table;

pub use batch::BATCH;
pub use cache::{with_cache, PieceCache, ThreadState};
pub use merge::MergeScratch;
pub use model::{Bpe, Rank};
pub use piece_table::{InlineKey, PieceTable};
pub use prefetch::prefetch;
pub use token_table::TokenTable;
