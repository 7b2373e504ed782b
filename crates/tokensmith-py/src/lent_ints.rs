//! One Python int per id for the whole process, lent to lists without a reference of their
//! own, on CPython before 3.12 with the GIL.
//!
//! Putting an int in a list increments its reference count: a write to the int's memory for
//! every id listed, which for ids spread over a large vocabulary is a cache miss each, and
//! which rules out filling a list without touching the ints. Here each int is made once for
//! the process and given, on top of its own references, [`LENT_REFS`] references that stand
//! for every list that will ever hold it: a list stores the int without incrementing, and
//! when the list is freed, its decrement takes one of those. Counting down from 2^60, one a
//! listed id, never reaches zero, so a lent int is never freed, and being shared by every
//! tokenizer of the process (at most [`LENT_IDS`] ints, 32 bytes each), none is lost when a
//! tokenizer goes.
//!
//! From CPython 3.12 a reference count is a saturating 32-bit count with "immortal" values
//! of its own, and a free-threaded build counts references per thread: there, lists take
//! references the usual way ([`LENDS`] is false).

/// Whether ints are lent to lists (without an increment each) on this interpreter.
pub(crate) const LENDS: bool = cfg!(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)));

/// Ids below this have a lent int; a list holding a larger id gets a new int of its own.
/// The largest vocabularies in use have about 256k tokens.
pub(crate) const LENT_IDS: usize = 1 << 18;

/// The references each lent int holds for the lists that will hold it.
#[cfg(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)))]
const LENT_REFS: pyo3::ffi::Py_ssize_t = 1 << 60;

/// The lent int of `id` (below [`LENT_IDS`]), made on first use. The caller may store it in
/// a list without incrementing its reference count.
#[cfg(not(any(Py_3_12, Py_GIL_DISABLED, PyPy)))]
pub(crate) fn lent_int(py: pyo3::Python<'_>, id: u32) -> *mut pyo3::ffi::PyObject {
    use pyo3::ffi::PyObject;
    use pyo3::IntoPyObject;
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::sync::OnceLock;

    static INTS: OnceLock<Box<[AtomicPtr<PyObject>]>> = OnceLock::new();
    let cells = INTS.get_or_init(|| {
        (0..LENT_IDS)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect()
    });
    let cell = &cells[id as usize];
    let stored = cell.load(Ordering::Acquire);
    if !stored.is_null() {
        return stored;
    }
    let Ok(int) = id.into_pyobject(py);
    let made = int.into_any().unbind().into_ptr();
    // SAFETY: `made` is a live int whose reference this function owns (with the GIL held,
    // no other thread changes its count meanwhile); the count cannot overflow, as no
    // program makes 2^62 references.
    unsafe { (*made).ob_refcnt += LENT_REFS };
    // SAFETY (of `discard`): the references given to `made` above, and its own, are this
    // function's; no list holds it.
    crate::int_cache::store_first(cell, made, |made| unsafe {
        (*made).ob_refcnt -= LENT_REFS;
        pyo3::ffi::Py_DECREF(made);
    })
}
