//! Ints lent to lists without a reference of their own, on CPython before 3.12 with the GIL.
//!
//! Putting an int in a list increments its reference count: a write to the int's memory for
//! every id listed, which for ids spread over a large vocabulary is a cache miss each. Here
//! an int made for the process's one table of cached ints ([`crate::int_cache`]) is given,
//! on top of its own reference, [`LENT_REFS`] references that stand for every list that
//! will ever hold it: a list stores the int without incrementing, and when the list is
//! freed, its decrement takes one of those. Counting down from 2^60, one a listed id, never
//! reaches zero, so a lent int is never freed; the table is shared by every tokenizer of
//! the process, so none is lost when a tokenizer goes.
//!
//! From CPython 3.12 a reference count is a saturating 32-bit count with "immortal" values
//! of its own, and a free-threaded build counts references per thread: there, [`LENDS`] is
//! false, lending does nothing, and lists take references the usual way.

use pyo3::ffi::PyObject;

/// Whether ints are lent to lists (without an increment each) on this interpreter.
pub(crate) const LENDS: bool = cfg!(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)));

/// The references each lent int holds for the lists that will hold it.
#[cfg(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)))]
const LENT_REFS: pyo3::ffi::Py_ssize_t = 1 << 60;

/// Gives `int` the references of every list that will hold it, where ints are lent.
///
/// # Safety
/// `int` is a live int whose reference the caller owns, and the GIL is held (no other
/// thread changes its count meanwhile).
#[allow(unused_variables)]
pub(crate) unsafe fn lend(int: *mut PyObject) {
    // SAFETY: the caller's promise; the count cannot overflow, as no program makes 2^62
    // references.
    #[cfg(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)))]
    unsafe {
        (*int).ob_refcnt += LENT_REFS
    };
}

/// Takes back from `int` what [`lend`] gave it.
///
/// # Safety
/// `int` was given to [`lend`] and no list holds it; the GIL is held.
#[allow(unused_variables)]
pub(crate) unsafe fn take_back(int: *mut PyObject) {
    // SAFETY: the caller's promise.
    #[cfg(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)))]
    unsafe {
        (*int).ob_refcnt -= LENT_REFS
    };
}
