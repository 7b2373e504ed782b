//! Cached Python ints for lists of token ids, shared by every binding that returns ids.
//!
//! CPython keeps only the ints up to 256; any other id put in a list would be a new int object.
//! An [`IntCache`] holds one int per id, made the first time that id is listed, so a list of
//! ids is built from references (an increment each) and the first call pays only for the ids it
//! uses. Ints are immutable, so one object may sit in any number of lists and threads.

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::PyList;
use tokensmith_core::models::bpe::prefetch;

/// How many ids ahead [`IntCache::list`] prefetches (twice that for the cache cell).
const LIST_PREFETCH: usize = 8;
/// Caches of at most this many ids list without prefetching: their cells and ints (48 bytes
/// an id) stay within a core's L2 cache once used, and the look-ahead would cost more than the
/// misses it hides (the 1k and 8k SentencePiece models).
const PREFETCH_ABOVE: usize = 16_384;

/// One lazily made Python int per id below its length.
pub(crate) struct IntCache {
    cells: Box<[OnceLock<Py<PyAny>>]>,
}

impl IntCache {
    /// A cache for ids `0..len`; no int is made yet (the cells take 16 bytes each).
    pub(crate) fn new(len: usize) -> Self {
        Self {
            cells: (0..len).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The Python int of `id`: the cached one below the cache's length, else a new one.
    fn int(&self, py: Python<'_>, id: u32) -> *mut pyo3::ffi::PyObject {
        let make = || {
            let Ok(int) = id.into_pyobject(py);
            int.into_any().unbind()
        };
        match self.cells.get(id as usize) {
            Some(cell) => {
                let item = cell.get_or_init(make).as_ptr();
                // SAFETY: `item` is a live object owned by the cache; the caller receives a
                // new strong reference, as it would from a fresh int.
                unsafe { pyo3::ffi::Py_INCREF(item) };
                item
            }
            None => make().into_ptr(),
        }
    }

    /// `ids` as a Python list of ints.
    pub(crate) fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        // SAFETY: the list is created with `ids.len()` empty slots and each slot is filled
        // exactly once with a new strong reference, which is what PyList_New requires before
        // the list is used.
        unsafe {
            let list = pyo3::ffi::PyList_New(ids.len() as pyo3::ffi::Py_ssize_t);
            if list.is_null() {
                return Err(PyErr::fetch(py));
            }
            let look_ahead = self.cells.len() > PREFETCH_ABOVE;
            for (i, &id) in ids.iter().enumerate() {
                // The cached ints of a varied text are spread over megabytes, and each one's
                // reference count is written: fetch the cell of a later id, and the int of a
                // nearer one, so those misses overlap.
                if look_ahead {
                    if let Some(cell) = ids
                        .get(i + 2 * LIST_PREFETCH)
                        .and_then(|&n| self.cells.get(n as usize))
                    {
                        prefetch(cell);
                    }
                    if let Some(int) = ids
                        .get(i + LIST_PREFETCH)
                        .and_then(|&n| self.cells.get(n as usize))
                        .and_then(OnceLock::get)
                    {
                        prefetch(int.as_ptr());
                    }
                }
                let item = self.int(py, id);
                pyo3::ffi::PyList_SET_ITEM(list, i as pyo3::ffi::Py_ssize_t, item);
            }
            Ok(Bound::from_owned_ptr(py, list).cast_into_unchecked())
        }
    }
}
