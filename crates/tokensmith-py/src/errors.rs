//! Maps core errors to the Python exception classes defined in `tokensmith/errors.py`.
//!
//! The classes live in Python so that each can subclass both `TokensmithError` and the
//! matching built-in (`ValueError`, `KeyError`, `OSError`), which users already catch.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tokensmith_core::Error;

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || Ok(py.import("tokensmith.errors")?.unbind()))
        .map(|m| m.bind(py))
}

/// Builds an instance of `tokensmith.errors.<class_name>(message)`.
pub fn new_error(py: Python<'_>, class_name: &str, message: String) -> PyErr {
    let built = errors_module(py)
        .and_then(|m| m.getattr(class_name))
        .and_then(|cls| cls.call1((message.clone(),)));
    match built {
        Ok(instance) => PyErr::from_value(instance),
        // Only reachable if the package is broken; still never a crash.
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// A `tokensmith.errors.ArgumentTypeError` (a `TypeError`): an argument of the wrong type.
pub fn type_error(py: Python<'_>, message: String) -> PyErr {
    new_error(py, "ArgumentTypeError", message)
}

/// A `tokensmith.errors.InvalidArgumentError` (a `ValueError`): an argument whose value
/// cannot work.
pub fn value_error(py: Python<'_>, message: String) -> PyErr {
    new_error(py, "InvalidArgumentError", message)
}

/// Converts a core error into the Python exception users see.
pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let message = err.to_string();
    let class = match &err {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            "InputNotFoundError"
        }
        Error::Io { .. } => "InputReadError",
        Error::VocabFormat { .. } => "VocabFormatError",
        Error::InvalidVocab(_) => "InvalidVocabError",
        Error::Pattern(_) => "PatternError",
        Error::UnknownTokenId { .. } => "UnknownTokenIdError",
        Error::DisallowedSpecial(token) => {
            return new_error(py, "DisallowedSpecialTokenError", disallowed_message(token));
        }
        Error::MissingByte(_) => "MissingByteError",
        Error::EmptyCorpus => "EmptyCorpusError",
        Error::InvalidOption(_) => "InvalidTrainerOptionError",
        Error::ModelFormat(_) => "ModelFormatError",
        Error::Unsupported(_) => "UnsupportedFeatureError",
        Error::TokenizerJson { .. } => "TokenizerJsonError",
        Error::UnsupportedComponent { .. } => "UnsupportedComponentError",
        Error::Truncation(_) => "TruncationError",
        Error::Padding(_) => "PaddingError",
        Error::TruncationRange(_) => "TruncationRangeError",
        Error::PaddingRange(_) => "PaddingRangeError",
        Error::Limit { .. } => "LimitError",
    };
    let py_err = new_error(py, class, message);
    if let Error::VocabFormat { path, line, .. } = &err {
        let value = py_err.value(py);
        let _ = value.setattr("path", path);
        let _ = value.setattr("line", *line);
    }
    if let Error::Limit { limit, .. } = &err {
        let _ = py_err.value(py).setattr("limit", *limit);
    }
    if let Error::TokenizerJson { path, .. } | Error::UnsupportedComponent { path, .. } = &err {
        let _ = py_err.value(py).setattr("json_path", path);
    }
    py_err
}

fn disallowed_message(token: &str) -> String {
    let repr = python_repr(token);
    format!(
        "the text contains the special token {repr}, and special tokens are disallowed unless you \
         say otherwise.\n\
         - To encode it as that special token: encode(text, allowed_special={{{repr}}}) \
         (or allowed_special=\"all\").\n\
         - To encode it as ordinary text: encode(text, disallowed_special=(enc.special_tokens_set \
         - {{{repr}}})), or disallowed_special=() to turn the check off for every special token."
    )
}

/// A single-quoted literal like Python's `repr` for the strings special tokens use.
fn python_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Extension to convert core results inside binding code.
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for tokensmith_core::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
