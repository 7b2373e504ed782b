//! The compiled module `tokensmith._core`: PyO3 glue over `tokensmith-core` and nothing else.

mod bounded;
mod chunks;
mod convert;
mod encoding;
mod errors;
mod hf_encoding;
mod hf_tokenizer;
mod id_buffer;
mod int_cache;
mod lent_ints;
mod numpy_array;
mod pipelined;
mod plain_call;
mod sentencepiece;
mod signal_slices;
mod spm_batch;
mod spm_normalizer;
mod text_arg;
mod train;
mod train_chars;
mod train_unigram;
mod train_unigram_hf;
mod unfilled_list;
mod unigram_counts;

use pyo3::prelude::*;

/// Reads a `.tiktoken` file (plain or gzipped) into `(token bytes, rank)` pairs.
#[pyfunction]
fn read_tiktoken(
    py: Python<'_>,
    path: std::path::PathBuf,
) -> PyResult<Vec<(pyo3::pybacked::PyBackedBytes, u32)>> {
    use errors::IntoPyResult;
    let ranks = py
        .detach(|| tokensmith_core::formats::tiktoken_file::read(&path))
        .py_err(py)?;
    Ok(ranks
        .into_iter()
        .map(|(bytes, rank)| (pyo3::types::PyBytes::new(py, &bytes).into(), rank))
        .collect())
}

/// The value of the resource limit `name` (see `tokensmith.limits`).
#[pyfunction]
fn get_limit(py: Python<'_>, name: &str) -> PyResult<u64> {
    limit_named(py, name).map(|l| l.get())
}

/// Sets how long an n-best search may run, in milliseconds, before it returns only the
/// Viterbi path (0 or less: no limit), for the whole process.
#[pyfunction]
fn spm_set_nbest_timeout(ms: i32) {
    tokensmith_core::models::unigram::set_timeout_ms(ms);
}

/// Sets the resource limit `name` for the whole process.
#[pyfunction]
fn set_limit(py: Python<'_>, name: &str, value: u64) -> PyResult<()> {
    limit_named(py, name).map(|l| l.set(value))
}

fn limit_named(py: Python<'_>, name: &str) -> PyResult<tokensmith_core::limits::Limit> {
    tokensmith_core::limits::Limit::from_name(name).ok_or_else(|| {
        let known: Vec<_> = tokensmith_core::limits::ALL
            .iter()
            .map(|l| l.name())
            .collect();
        errors::new_error(
            py,
            "LimitError",
            format!("unknown limit {name:?} (known: {})", known.join(", ")),
        )
    })
}

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<encoding::CoreEncoding>()?;
    m.add_class::<hf_tokenizer::CoreHfTokenizer>()?;
    m.add_class::<hf_encoding::EncodingResult>()?;
    m.add_class::<sentencepiece::CoreSentencePiece>()?;
    m.add_function(wrap_pyfunction!(read_tiktoken, m)?)?;
    m.add_function(wrap_pyfunction!(get_limit, m)?)?;
    m.add_function(wrap_pyfunction!(set_limit, m)?)?;
    m.add_function(wrap_pyfunction!(spm_set_nbest_timeout, m)?)?;
    m.add_function(wrap_pyfunction!(spm_normalizer::spm_normalizer, m)?)?;
    m.add_function(wrap_pyfunction!(spm_normalizer::spm_rule_charsmap, m)?)?;
    m.add_function(wrap_pyfunction!(spm_normalizer::spm_compile_charsmap, m)?)?;
    m.add_function(wrap_pyfunction!(spm_normalizer::spm_decompile_charsmap, m)?)?;
    m.add_function(wrap_pyfunction!(train::train_bpe_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(train::extend_bpe_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(train::count_words, m)?)?;
    m.add_function(wrap_pyfunction!(train::merge_word_counts, m)?)?;
    m.add_function(wrap_pyfunction!(bounded::count_words_bounded, m)?)?;
    m.add_function(wrap_pyfunction!(train_chars::train_bpe_chars, m)?)?;
    m.add_function(wrap_pyfunction!(train_unigram::train_unigram, m)?)?;
    m.add_function(wrap_pyfunction!(train_unigram_hf::train_unigram_hf, m)?)?;
    m.add_function(wrap_pyfunction!(unigram_counts::count_unigram_words, m)?)?;
    m.add(
        "R50K_PATTERN",
        tokensmith_core::pre_tokenizers::R50K_PATTERN,
    )?;
    m.add(
        "CL100K_PATTERN",
        tokensmith_core::pre_tokenizers::CL100K_PATTERN,
    )?;
    m.add(
        "O200K_PATTERN",
        tokensmith_core::pre_tokenizers::O200K_PATTERN,
    )?;
    // From this many characters on, a str that is not all ASCII is converted to UTF-8 by
    // tokensmith rather than by CPython (`text_arg`); tests read it to test both sides.
    m.add("UTF8_CONVERT_FROM", text_arg::CONVERT_FROM)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
