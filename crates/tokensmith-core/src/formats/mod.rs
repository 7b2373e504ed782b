//! File formats. Only this module knows file syntax.

pub mod tiktoken_file;
