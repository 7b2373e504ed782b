//! Entry points of the fuzz targets: one module per reader or encoder, each with a
//! `run(data)` that feeds arbitrary bytes through the public API of `tokensmith-core`.
//!
//! A `run` may see its input refused with an error; it panics only on a bug: a panic inside
//! the core, or a result that breaks a property every input must keep (say, decoding what was
//! encoded gives the text back). `fuzz_targets/` wraps each `run` for libFuzzer, and the
//! core's `tests/fuzz_corpus.rs` replays the committed inputs through the same functions, so
//! a crash found once stays fixed.

pub mod counts_format;
pub mod encode;
pub mod model_file;
pub mod roundtrip;
pub mod samples;
pub mod sp_normalizer;
pub mod special_split;
pub mod tiktoken_file;
pub mod tokenizer_json;

/// The entry point of a target: arbitrary bytes in, a panic only on a bug.
pub type Run = fn(&[u8]);

/// Every target, by name, as `make fuzz` and the corpus replay know them.
pub const TARGETS: [(&str, Run); 7] = [
    ("counts_format", counts_format::run),
    ("encode", encode::run),
    ("model_file", model_file::run),
    ("sp_normalizer", sp_normalizer::run),
    ("special_split", special_split::run),
    ("tiktoken_file", tiktoken_file::run),
    ("tokenizer_json", tokenizer_json::run),
];
