//! Argument conversion shared by the bindings: special-token policies and id lists.

use pyo3::prelude::*;
use pyo3::types::{PyFrozenSet, PyList, PySet, PyString, PyTuple};
use tokensmith_core::{Encoding, SpecialPolicy, SpecialSet};

use crate::errors::{to_py, type_error};

/// `"all"` or an iterable of special-token names.
fn special_set(enc: &Encoding, arg: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<SpecialSet>> {
    // The empty set or tuple (the defaults, and `disallowed_special=()`) names no token: no
    // list to build, and a policy the encoder recognises as "no special tokens".
    if is_empty_collection(arg) {
        return Ok(Some(SpecialSet::None));
    }
    if let Ok(s) = arg.cast::<PyString>() {
        return match s.to_str()? {
            "all" => Ok(None),
            other => Err(type_error(arg.py(), format!(
                "{what} must be \"all\" or a collection of special-token strings, not the string {other:?}"
            ))),
        };
    }
    let mut names = Vec::new();
    for item in arg.try_iter().map_err(|_| {
        type_error(
            arg.py(),
            format!(
                "{what} must be \"all\" or a collection of special-token strings, not {}",
                arg.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
        )
    })? {
        let item = item?;
        let name: String = item
            .extract()
            .map_err(|_| type_error(arg.py(), format!("{what} must contain only strings")))?;
        names.push(name);
    }
    Ok(Some(
        enc.specials().set_of(names.iter().map(String::as_str)),
    ))
}

/// Whether `arg` is an empty `frozenset`, `set`, `tuple` or `list`.
fn is_empty_collection(arg: &Bound<'_, PyAny>) -> bool {
    if let Ok(s) = arg.cast::<PyFrozenSet>() {
        return s.is_empty();
    }
    if let Ok(t) = arg.cast::<PyTuple>() {
        return t.is_empty();
    }
    if let Ok(s) = arg.cast::<PySet>() {
        return s.is_empty();
    }
    arg.cast::<PyList>().is_ok_and(|l| l.is_empty())
}

/// tiktoken's `allowed_special` / `disallowed_special` pair, as one policy.
pub fn policy(
    enc: &Encoding,
    allowed: &Bound<'_, PyAny>,
    disallowed: &Bound<'_, PyAny>,
) -> PyResult<SpecialPolicy> {
    let allowed = special_set(enc, allowed, "allowed_special")?.unwrap_or(SpecialSet::All);
    let disallowed = special_set(enc, disallowed, "disallowed_special")?;
    Ok(SpecialPolicy {
        allowed,
        disallowed,
    })
}

/// Token ids from any sequence of ints; an id outside u32 is reported by value.
pub fn ids(py: Python<'_>, enc: &Encoding, tokens: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let check = |v: i64| u32::try_from(v).map_err(|_| to_py(py, enc.unknown_id(v)));
    if let Ok(list) = tokens.cast::<PyList>() {
        let mut out = Vec::with_capacity(list.len());
        for item in list.iter() {
            out.push(check(item.extract::<i64>()?)?);
        }
        return Ok(out);
    }
    let values: Vec<i64> = tokens.extract()?;
    values.into_iter().map(check).collect()
}
