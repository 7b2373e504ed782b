//! Tokenization models: the step that turns one pre-tokenized piece into ids.

pub mod bpe;
pub mod sentencepiece_bpe;
pub mod sentencepiece_parts;
pub mod sentencepiece_split;
pub mod unigram;
