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
    for_each_owned_chunk(items, chunk_size, expected, |chunk: Vec<T>| f(&chunk))
}

/// [`for_each_chunk_of`], handing each chunk over to `f` (to count on another thread while
/// this one pulls the next chunk).
pub fn for_each_owned_chunk<'py, T: for<'a> FromPyObject<'a, 'py>>(
    items: &Bound<'py, PyAny>,
    chunk_size: usize,
    expected: &str,
    mut f: impl FnMut(Vec<T>) -> PyResult<bool>,
) -> PyResult<()> {
    let size = chunk_size.max(1);
    let mut chunk: Vec<T> = Vec::with_capacity(size);
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
        if chunk.len() >= size {
            items.py().check_signals()?;
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(size));
            if !f(full)? {
                return Ok(());
            }
        }
    }
    items.py().check_signals()?;
    f(chunk)?;
    Ok(())
}
