//! New numpy arrays of ids, made through numpy's C API without a numpy crate.
//!
//! Returning ids as `bytes` and wrapping them with `numpy.frombuffer` costs a `bytes` object,
//! a Python-level call and a second object per call: about a microsecond, which is several
//! percent of encoding a 4 KB text. Here the array is made directly, with `PyArray_New`, and
//! the ids are copied into its own buffer once.
//!
//! numpy publishes its C API as a table of pointers in the capsule
//! `numpy._core._multiarray_umath._ARRAY_API` (`numpy.core._multiarray_umath` before
//! numpy 2). The positions used here are part of numpy's ABI and the same in numpy 1.x and
//! 2.x: `PyArray_Type` is entry 2 and `PyArray_New` entry 93; `NPY_UINT` (32 bits on every
//! platform numpy supports) is type number 6. The array's data pointer is the first field
//! after the object header, as numpy's `PyArray_DATA` reads it.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::os::raw::{c_int, c_void};

/// numpy's type number for `numpy.uint32` (`NPY_UINT`).
const NPY_UINT: c_int = 6;
/// The position of `PyArray_Type` in numpy's API table.
const ARRAY_TYPE: usize = 2;
/// The position of `PyArray_New` in numpy's API table.
const ARRAY_NEW: usize = 93;

/// `PyArray_New(subtype, nd, dims, type_num, strides, data, itemsize, flags, obj)`.
type ArrayNew = unsafe extern "C" fn(
    *mut ffi::PyTypeObject,
    c_int,
    *const ffi::Py_ssize_t,
    c_int,
    *const ffi::Py_ssize_t,
    *mut c_void,
    c_int,
    c_int,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

/// The two entries of numpy's API table this module uses.
struct Api {
    array_type: *mut ffi::PyTypeObject,
    array_new: ArrayNew,
}

// SAFETY: both are pointers into numpy's static data, valid while numpy is loaded (it is
// never unloaded once imported) and used only with the GIL held.
unsafe impl Send for Api {}
// SAFETY: as above.
unsafe impl Sync for Api {}

/// numpy's API table, importing numpy on first use.
fn api(py: Python<'_>) -> PyResult<&'static Api> {
    static API: PyOnceLock<Api> = PyOnceLock::new();
    API.get_or_try_init(py, || {
        let module = py
            .import("numpy._core._multiarray_umath")
            .or_else(|_| py.import("numpy.core._multiarray_umath"))?;
        let capsule = module.getattr("_ARRAY_API")?;
        // SAFETY: `_ARRAY_API` is a capsule whose name is NULL and whose pointer is numpy's
        // table of API entries (`void **`), which lives as long as numpy does.
        let table = unsafe { ffi::PyCapsule_GetPointer(capsule.as_ptr(), std::ptr::null()) };
        if table.is_null() {
            return Err(PyErr::fetch(py));
        }
        let table = table.cast::<*mut c_void>();
        // SAFETY: entries ARRAY_TYPE and ARRAY_NEW of numpy's table are the type object and
        // the function described above.
        unsafe {
            let array_type = (*table.add(ARRAY_TYPE)).cast::<ffi::PyTypeObject>();
            let array_new = std::mem::transmute::<*mut c_void, ArrayNew>(*table.add(ARRAY_NEW));
            Ok(Api {
                array_type,
                array_new,
            })
        }
    })
}

/// A new one-dimensional `numpy.uint32` array holding `ids`.
pub(crate) fn u32_array<'py>(py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    let api = api(py)?;
    let dims = [ids.len() as ffi::Py_ssize_t];
    // SAFETY: `PyArray_New` with a null data pointer allocates a C-contiguous array of
    // `ids.len()` uint32 values and returns a new reference (or null with an exception set).
    // Its data pointer, the field right after the object header, then points to room for
    // exactly `ids.len()` values, which the copy fills.
    unsafe {
        let array = (api.array_new)(
            api.array_type,
            1,
            dims.as_ptr(),
            NPY_UINT,
            std::ptr::null(),
            std::ptr::null_mut(),
            0,
            0,
            std::ptr::null_mut(),
        );
        let array = Bound::from_owned_ptr_or_err(py, array)?;
        if !ids.is_empty() {
            let data = *array
                .as_ptr()
                .cast::<u8>()
                .add(std::mem::size_of::<ffi::PyObject>())
                .cast::<*mut u32>();
            std::ptr::copy_nonoverlapping(ids.as_ptr(), data, ids.len());
        }
        Ok(array)
    }
}
