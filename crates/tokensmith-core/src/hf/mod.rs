//! The Hugging Face `tokenizer.json` pipeline: one small module per component.
//!
//! ```text
//! text ─► normalizer ─► pre-tokenizer ─► model ─► post-processor ─► HfEncoding
//! ids  ─► decoder ─► text
//! ```
//!
//! Offsets are counted in characters of the original string. Every normalized character
//! carries the span of original characters it came from ([`NormalizedString`]), so a token's
//! offsets survive lowercasing, accent stripping and inserted spaces.
//!
//! It runs BERT-style, byte-level BPE, SentencePiece-converted (BPE and Unigram) and WordLevel
//! files: the BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Prepend,
//! Replace, Precompiled, ByteLevel and Sequence normalizers; the BertPreTokenizer, Whitespace,
//! WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit, Metaspace, Split, ByteLevel,
//! UnicodeScripts, FixedLength and Sequence pre-tokenizers; the WordPiece, BPE, Unigram and
//! WordLevel models; TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel and
//! Sequence post-processors; the WordPiece, Metaspace, BPEDecoder, ByteFallback, Fuse, Strip,
//! Replace, ByteLevel, CTC and Sequence decoders; truncation (every strategy, with a stride)
//! and padding (fixed, or to the longest of a batch). Any other component type is refused by [`json`] with an error naming it.
//! Added tokens are matched in the input before the pipeline runs ([`added_tokens`]).

pub mod added_tokens;
pub mod alignment;
pub mod bert_ids;
pub mod bpe;
pub mod byte_level;
pub mod char_props;
pub mod ctc;
pub mod decoders;
pub mod draw;
pub mod encode_fast;
pub mod encoding;
pub mod fast_ids;
#[cfg(test)]
mod fast_ids_lazy_tests;
#[cfg(test)]
mod fast_ids_scratch_tests;
pub mod json;
pub mod known_split;
pub mod metaspace;
pub mod model;
pub mod nfc_text;
pub mod normalized;
pub mod normalizers;
pub mod padding;
pub mod post_process;
pub mod pre_tokenizers;
pub mod precompiled;
pub mod processors;
pub mod regex_split;
pub mod split;
pub mod tokenizer;
pub mod transform;
pub mod truncation;
pub mod unicode_scripts;
pub mod unigram;
pub mod word_cache;
pub mod wordlevel;
pub mod wordpiece;

pub use normalized::NormalizedString;
pub use tokenizer::{HfEncoding, HfTokenizer};
