//! Pulling texts from any Python iterable in chunks: each chunk is borrowed (no copy) while the
//! GIL is held, handed to Rust, then dropped, so memory holds one chunk of text at a time.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

/// Calls `f` on consecutive chunks of `texts` (the last one may be short or empty); `f`
/// returns false to stop early. A non-string item is a `TypeError` naming its index.
///
/// Pending signals are handled before each chunk: iterating a list from Rust runs no Python
/// bytecode, so without the check Ctrl-C would wait for the whole input.
pub fn for_each_chunk(
    texts: &Bound<'_, PyAny>,
    chunk_size: usize,
    f: impl FnMut(&[PyBackedStr]) -> PyResult<bool>,
) -> PyResult<()> {
    for_each_chunk_of(texts, chunk_size, "a str", f)
}

/// [`for_each_chunk`] for items of any extractable type `T`; `expected` names it in the
/// `TypeError` for an item that is not one.
pub fn for_each_chunk_of<'py, T: for<'a> FromPyObject<'a, 'py>>(
    items: &Bound<'py, PyAny>,
    chunk_size: usize,
    expected: &str,
    mut f: impl FnMut(&[T]) -> PyResult<bool>,
) -> PyResult<()> {
    let mut chunk: Vec<T> = Vec::with_capacity(chunk_size.max(1));
    for (index, item) in items.try_iter()?.enumerate() {
        let item = item?;
        let value: T = item.extract().map_err(|_| {
            crate::errors::type_error(
                items.py(),
                format!(
                    "texts[{index}] is a {}, not {expected}",
                    item.get_type()
                        .name()
                        .map_or_else(|_| "?".to_string(), |n| n.to_string())
                ),
            )
        })?;
        chunk.push(value);
        if chunk.len() >= chunk_size.max(1) {
            items.py().check_signals()?;
            let more = f(&chunk)?;
            chunk.clear();
            if !more {
                return Ok(());
            }
        }
    }
    items.py().check_signals()?;
    f(&chunk)?;
    Ok(())
}
