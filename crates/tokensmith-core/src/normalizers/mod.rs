//! Normalizers: the first pipeline stage, which rewrites text before it is split into tokens.

pub mod precompiled;
pub mod sentencepiece;
