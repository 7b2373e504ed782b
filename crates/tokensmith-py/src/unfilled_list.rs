//! A Python list of a known length whose slots the caller writes, made without clearing
//! them first.
//!
//! `PyList_New(n)` allocates its `n` slots zeroed, and a caller that fills every one of them
//! pays for that clearing for nothing: for the ~600 ids of a 2 KB document it is a 4.8 KB
//! `calloc`. On an interpreter with the GIL, a list's slots are one block from
//! `PyMem_Malloc`, which the list reallocates as it grows and frees with `PyMem_Free`
//! (CPython 3.10 to 3.14), so the block is allocated here, uncleared, and handed to an empty
//! list. A free-threaded interpreter keeps a list's slots behind a header of its own: there
//! the list comes from `PyList_New` as before.

use pyo3::ffi::{PyListObject, PyObject, Py_ssize_t};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// A new list that will hold `len` items, not yet written: its length is 0 until
/// [`finish`](Self::finish) sets it, so the collector and any error path see an empty list.
pub(crate) struct UnfilledList {
    list: *mut PyObject,
    items: *mut *mut PyObject,
    len: usize,
}

impl UnfilledList {
    /// A list with room for `len` items.
    pub(crate) fn new(py: Python<'_>, len: usize) -> PyResult<Self> {
        let size = Py_ssize_t::try_from(len).map_err(|_| memory_error(py))?;
        #[cfg(not(Py_GIL_DISABLED))]
        // SAFETY: a new empty list owns no slots (`ob_item` is null); it is given a block of
        // `len` slots from the allocator list growth and deallocation use, its capacity set
        // to match, and its length left at 0 until the slots are written.
        unsafe {
            if len == 0 {
                return Self::from_new_list(py, pyo3::ffi::PyList_New(0), 0);
            }
            let bytes = len
                .checked_mul(std::mem::size_of::<*mut PyObject>())
                .ok_or_else(|| memory_error(py))?;
            let items = pyo3::ffi::PyMem_Malloc(bytes).cast::<*mut PyObject>();
            if items.is_null() {
                return Err(memory_error(py));
            }
            let list = pyo3::ffi::PyList_New(0);
            if list.is_null() {
                pyo3::ffi::PyMem_Free(items.cast());
                return Err(PyErr::fetch(py));
            }
            let raw = list.cast::<PyListObject>();
            (*raw).ob_item = items;
            (*raw).allocated = size;
            Ok(Self { list, items, len })
        }
        #[cfg(Py_GIL_DISABLED)]
        // SAFETY: `PyList_New` gives a list of `len` null slots.
        unsafe {
            Self::from_new_list(py, pyo3::ffi::PyList_New(size), len)
        }
    }

    /// Wraps a list fresh from `PyList_New(len)` (null on failure).
    ///
    /// # Safety
    /// `list` is null or a new list of `len` null slots that the caller owns.
    unsafe fn from_new_list(py: Python<'_>, list: *mut PyObject, len: usize) -> PyResult<Self> {
        if list.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: `list` is a list.
        let items = unsafe { (*list.cast::<PyListObject>()).ob_item };
        Ok(Self { list, items, len })
    }

    /// The `len` slots, to be written once each with a reference the list will own.
    pub(crate) fn items(&self) -> *mut *mut PyObject {
        self.items
    }

    /// The list, its `len` slots written.
    ///
    /// # Safety
    /// Every one of the `len` slots of [`items`](Self::items) holds a reference the list
    /// owns: a new strong reference, or a lent int ([`crate::lent_ints`]).
    pub(crate) unsafe fn finish(self, py: Python<'_>) -> Bound<'_, PyList> {
        let list = self.list;
        #[cfg(not(Py_GIL_DISABLED))]
        // SAFETY: the slots are written (the caller's promise) and the length fits, as
        // `new` checked.
        unsafe {
            (*list.cast::<pyo3::ffi::PyVarObject>()).ob_size = self.len as Py_ssize_t
        };
        std::mem::forget(self);
        // SAFETY: `list` is a list whose reference this value owned.
        unsafe { Bound::from_owned_ptr(py, list).cast_into_unchecked() }
    }
}

impl Drop for UnfilledList {
    /// A list never finished is released (empty on an interpreter with the GIL; with null
    /// slots, which deallocation skips, on a free-threaded one).
    fn drop(&mut self) {
        // SAFETY: this value owns its reference to the list, and holds the GIL's token
        // wherever it is made (`new` takes `py`).
        unsafe { pyo3::ffi::Py_DECREF(self.list) };
    }
}

/// A `MemoryError`, as `PyList_New` raises for a length it cannot allocate.
fn memory_error(py: Python<'_>) -> PyErr {
    // SAFETY: sets the error indicator, which `fetch` then takes.
    unsafe { pyo3::ffi::PyErr_NoMemory() };
    PyErr::fetch(py)
}
