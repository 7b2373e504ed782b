//! Normalizers: the first pipeline stage, which rewrites text before it is split into tokens.

pub mod case_fold;
pub mod charsmap_builder;
pub mod charsmaps;
pub mod dawg;
pub mod double_array;
mod origins;
mod plain_chars;
mod plain_copy;
pub mod precompiled;
pub mod sentencepiece;
