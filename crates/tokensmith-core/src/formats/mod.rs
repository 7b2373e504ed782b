//! File formats. Only this module knows file syntax.

pub mod sentencepiece_model;
pub mod tiktoken_file;
