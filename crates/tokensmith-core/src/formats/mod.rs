//! File formats. Only this module knows file syntax.

pub mod data_gym;
pub mod sentencepiece_model;
pub mod tiktoken_file;

/// Makes the error for a message about line `index` (0-based) of the vocabulary file `name`.
pub(crate) fn line_error(name: &str, index: usize) -> impl Fn(String) -> crate::error::Error + '_ {
    move |message| crate::error::Error::VocabFormat {
        path: name.to_string(),
        line: index + 1,
        message,
    }
}
