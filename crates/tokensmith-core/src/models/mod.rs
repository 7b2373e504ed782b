//! Tokenization models: the step that turns one pre-tokenized piece into ids.

pub mod bpe;
