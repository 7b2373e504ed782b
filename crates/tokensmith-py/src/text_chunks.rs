//! Pulling strings from any Python iterable in chunks: each chunk is borrowed (no copy) while
//! the GIL is held, then handed to Rust work that runs with the GIL released.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

/// Calls `work` on successive chunks of at most `chunk_size` strings of `texts` (the last one
/// possibly empty), each with the GIL released. A non-`str` item is a `TypeError` naming its
/// index and type.
pub fn for_each_chunk<F>(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    chunk_size: usize,
    mut work: F,
) -> PyResult<()>
where
    F: FnMut(Python<'_>, &[PyBackedStr]) -> PyResult<()>,
{
    let mut chunk: Vec<PyBackedStr> = Vec::with_capacity(chunk_size.max(1));
    for (index, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        let text: PyBackedStr = item.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "texts[{index}] is a {}, not a str",
                item.get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            ))
        })?;
        chunk.push(text);
        if chunk.len() >= chunk_size.max(1) {
            work(py, &chunk)?;
            chunk.clear();
        }
    }
    work(py, &chunk)
}
