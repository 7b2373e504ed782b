//! tokensmith-core: the pure-Rust engine of tokensmith.
//!
//! The pipeline is `text -> pre-tokenizer -> model -> ids` and back through the decoder.
//! This crate has no Python dependency; `tokensmith-py` wraps it.

pub mod code_units;
pub mod encoding;
pub mod error;
pub mod formats;
pub mod hf;
pub mod limits;
pub mod log_space;
pub mod models;
pub mod normalizers;
pub mod parallel;
pub mod pre_tokenizers;
pub mod scratch;
pub mod sentencepiece;
pub mod span_batches;
pub mod special_tokens;
pub(crate) mod text_index;
pub(crate) mod thread_tables;
pub mod trainers;
pub mod vectors;

pub use encoding::Encoding;
pub use error::{Error, Result};
pub use special_tokens::{SpecialPolicy, SpecialSet, SpecialTokens};
