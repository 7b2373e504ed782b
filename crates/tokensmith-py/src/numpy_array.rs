//! New numpy arrays of ids and offsets, made through numpy's C API without a numpy crate.
//!
//! Returning ids as `bytes` and wrapping them with `numpy.frombuffer` costs a `bytes` object,
//! a copy into it, a Python-level call and a second object per call: about a microsecond,
//! which is several percent of encoding a 4 KB text. Here the array is made directly, with
//! `PyArray_New`: either with its own buffer, into which the ids are copied once
//! ([`u32_array`]), or around a Rust vector it takes over, with no copy at all
//! ([`vec_array`]): the vector is kept alive by a capsule set as the array's base, and freed
//! when the array is.
//!
//! numpy publishes its C API as a table of pointers in the capsule
//! `numpy._core._multiarray_umath._ARRAY_API` (`numpy.core._multiarray_umath` before
//! numpy 2). The positions used here are part of numpy's ABI and the same in numpy 1.x and
//! 2.x: `PyArray_Type` is entry 2, `PyArray_New` entry 93 and `PyArray_SetBaseObject` entry
//! 282; `NPY_UINT` (32 bits on every platform numpy supports) is type number 6, and
//! `np.uint64` is `NPY_ULONG` (8) where C's `unsigned long` has 64 bits, else `NPY_ULONGLONG`
//! (10). The array's data pointer is the first field
//! after the object header, as numpy's `PyArray_DATA` reads it.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::os::raw::{c_int, c_void};

/// The position of `PyArray_Type` in numpy's API table.
const ARRAY_TYPE: usize = 2;
/// The position of `PyArray_New` in numpy's API table.
const ARRAY_NEW: usize = 93;
/// The position of `PyArray_SetBaseObject` in numpy's API table.
const SET_BASE: usize = 282;
/// `NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE` (`NPY_ARRAY_CARRAY`).
const CARRAY: c_int = 0x0001 | 0x0100 | 0x0400;

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

/// `PyArray_SetBaseObject(array, base)`: steals the reference to `base`; 0 on success.
type SetBase = unsafe extern "C" fn(*mut ffi::PyObject, *mut ffi::PyObject) -> c_int;

/// An element type numpy knows: Rust's `u32` and `u64`.
pub(crate) trait Element: Copy + Send + 'static {
    /// numpy's type number for it.
    const TYPE_NUM: c_int;
}

impl Element for u32 {
    /// `NPY_UINT`.
    const TYPE_NUM: c_int = 6;
}

impl Element for u64 {
    /// `NPY_ULONG` where C's `unsigned long` has 64 bits (Linux, macOS: the type behind
    /// `np.uint64` there), else `NPY_ULONGLONG` (Windows). Both hold the same values, but only
    /// this one makes `array.dtype.type is np.uint64`.
    const TYPE_NUM: c_int = if std::mem::size_of::<std::ffi::c_ulong>() == 8 {
        8
    } else {
        10
    };
}

/// The entries of numpy's API table this module uses.
struct Api {
    array_type: *mut ffi::PyTypeObject,
    array_new: ArrayNew,
    set_base: SetBase,
}

// SAFETY: all are pointers into numpy's static data, valid while numpy is loaded (it is
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
        // SAFETY: entries ARRAY_TYPE, ARRAY_NEW and SET_BASE of numpy's table are the type
        // object and the functions described above.
        unsafe {
            Ok(Api {
                array_type: (*table.add(ARRAY_TYPE)).cast::<ffi::PyTypeObject>(),
                array_new: std::mem::transmute::<*mut c_void, ArrayNew>(*table.add(ARRAY_NEW)),
                set_base: std::mem::transmute::<*mut c_void, SetBase>(*table.add(SET_BASE)),
            })
        }
    })
}

/// A new one-dimensional array of `len` values of `T` over `data`, or over a buffer of its
/// own when `data` is null.
///
/// # Safety
/// A non-null `data` must point to `len` values of `T` that outlive the array.
unsafe fn new_array<'py, T: Element>(
    py: Python<'py>,
    len: usize,
    data: *mut T,
) -> PyResult<Bound<'py, PyAny>> {
    let api = api(py)?;
    let dims = [len as ffi::Py_ssize_t];
    let flags = if data.is_null() { 0 } else { CARRAY };
    // SAFETY: `PyArray_New` returns a new reference (or null with an exception set); with a
    // null data pointer it allocates room for `len` values itself.
    let array = unsafe {
        (api.array_new)(
            api.array_type,
            1,
            dims.as_ptr(),
            T::TYPE_NUM,
            std::ptr::null(),
            data.cast::<c_void>(),
            0,
            flags,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: as above, `array` is a new reference or null.
    unsafe { Bound::from_owned_ptr_or_err(py, array) }
}

/// The data pointer of an array made by [`new_array`].
fn data_of<T>(array: &Bound<'_, PyAny>) -> *mut T {
    // SAFETY: the field right after the object header of a numpy array is its data pointer.
    unsafe {
        *array
            .as_ptr()
            .cast::<u8>()
            .add(std::mem::size_of::<ffi::PyObject>())
            .cast::<*mut T>()
    }
}

/// A new one-dimensional `numpy.uint32` array holding a copy of `ids`.
pub(crate) fn u32_array<'py>(py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: a null data pointer: the array owns its buffer.
    let array = unsafe { new_array::<u32>(py, ids.len(), std::ptr::null_mut())? };
    if !ids.is_empty() {
        // SAFETY: the array's buffer has room for exactly `ids.len()` values.
        unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), data_of::<u32>(&array), ids.len()) };
    }
    Ok(array)
}

/// Frees the vector a capsule made by [`vec_array`] holds.
unsafe extern "C" fn drop_vec<T>(capsule: *mut ffi::PyObject) {
    // SAFETY: numpy calls this once, when the array (the capsule's only owner) is freed; the
    // pointer is the `Box<Vec<T>>` that `vec_array` leaked into the capsule.
    unsafe {
        let pointer = ffi::PyCapsule_GetPointer(capsule, std::ptr::null());
        if !pointer.is_null() {
            drop(Box::from_raw(pointer.cast::<Vec<T>>()));
        }
    }
}

/// A new one-dimensional numpy array of `values`, which it takes over without copying them.
///
/// `vec_array(py, vec![1u32, 2])` is `numpy.array([1, 2], dtype=numpy.uint32)`, whose base is
/// the capsule that frees the vector.
pub(crate) fn vec_array<T: Element>(py: Python<'_>, values: Vec<T>) -> PyResult<Bound<'_, PyAny>> {
    if values.is_empty() {
        // SAFETY: a null data pointer: the array owns its (empty) buffer.
        return unsafe { new_array::<T>(py, 0, std::ptr::null_mut()) };
    }
    let mut boxed = Box::new(values);
    let (len, data) = (boxed.len(), boxed.as_mut_ptr());
    // SAFETY: the vector's buffer does not move when the box is leaked into the capsule below.
    let raw = Box::into_raw(boxed);
    // SAFETY: the capsule takes over the box and frees it with `drop_vec::<T>`.
    let capsule =
        unsafe { ffi::PyCapsule_New(raw.cast::<c_void>(), std::ptr::null(), Some(drop_vec::<T>)) };
    if capsule.is_null() {
        // SAFETY: the capsule was not made, so the box is still ours to free.
        drop(unsafe { Box::from_raw(raw) });
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `capsule` is a new reference; from here it frees the vector when dropped.
    let capsule = unsafe { Bound::from_owned_ptr(py, capsule) };
    // SAFETY: `data` points to `len` values that live as long as the capsule, which the
    // array keeps as its base below.
    let array = unsafe { new_array::<T>(py, len, data)? };
    // SAFETY: `PyArray_SetBaseObject` steals the reference passed to it (also on failure).
    let status = unsafe { (api(py)?.set_base)(array.as_ptr(), capsule.into_ptr()) };
    if status != 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(array)
}
