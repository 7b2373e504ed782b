//! The one error type of the core. Every fallible public function returns [`Result`].
//!
//! The Python bindings map each variant to a subclass of `tokensmith.TokensmithError`,
//! so the variants are grouped by what the user has to fix, not by where they arose.

use std::path::PathBuf;

/// Everything that can go wrong in the core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A vocabulary file is malformed. `line` is 1-based.
    #[error("{path}:{line}: {message}")]
    VocabFormat {
        path: String,
        line: usize,
        message: String,
    },
    /// A vocabulary or option given in memory is inconsistent.
    #[error("invalid vocabulary: {0}")]
    InvalidVocab(String),
    /// A pre-tokenizer pattern does not compile, or failed while matching.
    #[error("pattern error: {0}")]
    Pattern(String),
    /// A token id that the vocabulary does not hold.
    #[error("token id {id} is not in the vocabulary (valid ids: {valid})")]
    UnknownTokenId { id: i64, valid: String },
    /// The text holds a special token that the call disallows.
    #[error("the text contains the special token {0:?}, which this call disallows")]
    DisallowedSpecial(String),
    /// Text that needs a byte the vocabulary has no token for.
    #[error("byte 0x{0:02x} has no token in this vocabulary, so the text cannot be encoded")]
    MissingByte(u8),
    /// A trainer was given no words to learn from.
    #[error("the corpus is empty: there is no text to train on")]
    EmptyCorpus,
    /// An option has a value that cannot work; the message names the option and a fix.
    #[error("{0}")]
    InvalidOption(String),
    /// A SentencePiece `.model` file is corrupt or truncated; the message names the problem.
    #[error("invalid .model file: {0}")]
    ModelFormat(String),
    /// A file uses a feature that tokensmith does not implement yet; the message names it.
    #[error("{0}")]
    Unsupported(String),
    /// A `tokenizer.json` is malformed; `path` is the JSON path at fault (`model.vocab`).
    #[error("tokenizer.json at {path}: {message}")]
    TokenizerJson { path: String, message: String },
    /// A `tokenizer.json` component whose type tokensmith does not run yet.
    #[error("tokenizer.json at {path}: {kind:?} is not supported yet (supported: {supported})")]
    UnsupportedComponent {
        path: String,
        kind: String,
        supported: String,
    },
    /// Truncation cannot give the configured length (a strategy or stride that the input
    /// cannot satisfy); the message says which.
    #[error("{0}")]
    Truncation(String),
    /// A padding option has a value that cannot work; the message names the option.
    #[error("{0}")]
    Padding(String),
    /// A truncation length or stride below zero; the message names the option.
    #[error("{0}")]
    TruncationRange(String),
    /// A padding length or id below zero or past its type; the message names the option.
    #[error("{0}")]
    PaddingRange(String),
    /// A size or id above one of the [`crate::limits`]; the message names the limit and how to
    /// raise it.
    #[error(
        "{what} is {value}, above the limit {limit} = {max}; if the input is trusted, raise it \
         with tokensmith.limits.set_limits({limit}=...) or the environment variable \
         TOKENSMITH_{}", limit.to_uppercase()
    )]
    Limit {
        limit: &'static str,
        what: String,
        value: u64,
        max: u64,
    },
}

/// The result type of the core.
pub type Result<T> = std::result::Result<T, Error>;
