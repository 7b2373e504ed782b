//! The entry point of a facade's compiled `encode` (a [`PlainEncode`]): a builtin method whose
//! C function looks at the shape of the call itself.
//!
//! Nearly every call is `sp.encode(text)`: one `str`, no keywords. For that call, and for one
//! that only names its output type (`int` or `str`, by position or as `out_type=` or
//! `return_type=`), the function goes straight to the encoder (a list of texts straight to the
//! batch, as the general method sends it); any other call is handed, with the same arguments,
//! to [`PlainEncode`]'s own `encode` method, which parses the options.
//! Parsing eleven optional arguments cost about 175 instructions a call (of ~1,900 for a short
//! text, ~11,000 for a line of the 50 MB corpus).
//!
//! The C function is wrapped in the trampoline pyo3's own methods use (`pyo3::impl_`, not a
//! stable API: pyo3 is pinned to 0.30.1 in Cargo.toml), so that panics and errors are raised as they are there.

use pyo3::ffi;
use pyo3::impl_::trampoline::get_trampoline_function;
use pyo3::intern;
use pyo3::prelude::*;

use crate::sentencepiece::{output_is_ids, PlainEncode};

/// The method definition CPython calls through; it never changes.
struct Definition(ffi::PyMethodDef);

// SAFETY: the definition is immutable and only holds pointers to static data.
unsafe impl Sync for Definition {}

static ENCODE: Definition = Definition(ffi::PyMethodDef {
    ml_name: c"encode".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer {
        PyCFunctionFastWithKeywords: get_trampoline_function!(
            fastcall_cfunction_with_keywords,
            encode
        ),
    },
    ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
    // CPython reads the signature (`__text_signature__`, for `inspect.signature`) from the
    // first line of the doc, up to the `--` line; it is that of `PlainEncode.encode`.
    ml_doc: c"encode($self, input, out_type=None, add_bos=None, add_eos=None, reverse=None, \
emit_unk_piece=None, enable_sampling=None, nbest_size=None, alpha=None, num_threads=None, \
return_type=None, thread_pool=None, return_bytes=None)\n--\n\nEncodes a text (or a list of texts) as \
`SentencePieceProcessor.encode` does."
        .as_ptr(),
});

/// The builtin method `encode` bound to `plain`.
pub(crate) fn bound_encode<'py>(plain: &Bound<'py, PlainEncode>) -> PyResult<Bound<'py, PyAny>> {
    let py = plain.py();
    // SAFETY: the definition is static; the new function holds its own reference to `plain`.
    unsafe {
        let method = ffi::PyCFunction_NewEx(
            std::ptr::from_ref(&ENCODE.0).cast_mut(),
            plain.as_ptr(),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, method)
    }
}

/// The arguments of one vectorcall, as CPython passed them: `nargs` positional ones, then one
/// value per name in `kwnames` (null when there are none).
#[derive(Clone, Copy)]
struct Call {
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
}

/// The C function of [`ENCODE`], called through pyo3's trampoline (which traps panics and
/// raises the returned error).
///
/// # Safety
///
/// Called by CPython only, with `slf` the [`PlainEncode`] the method was bound to and
/// `args[..nargs + len(kwnames)]` the arguments of a vectorcall.
unsafe fn encode(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    let call = Call {
        args,
        nargs,
        kwnames,
    };
    // SAFETY: `slf` is the PlainEncode this method was made for (see `bound_encode`).
    let plain = unsafe { Borrowed::from_ptr(py, slf).cast_unchecked::<PlainEncode>() };
    // SAFETY: the arguments of a vectorcall, as described above.
    if let Some((input, as_ids)) = unsafe { output_only(py, plain.get(), call) } {
        if let Some(done) = plain.get().encode_plain(py, &input, as_ids, true) {
            return done.map(Bound::into_ptr);
        }
    }
    // SAFETY: as above.
    unsafe { general(py, slf, call) }
}

/// The input and the output (`true` for ids) of a call that names at most its output type:
/// `(input)`, `(input, int|str)`, `(input, out_type=int|str)` or `(input, return_type=int|str)`;
/// `None` for any other call.
///
/// # Safety
///
/// `call` holds the arguments of a vectorcall (see [`encode`]).
unsafe fn output_only<'py>(
    py: Python<'py>,
    plain: &PlainEncode,
    call: Call,
) -> Option<(Bound<'py, PyAny>, bool)> {
    let Call {
        args,
        nargs,
        kwnames,
    } = call;
    let keywords = if kwnames.is_null() {
        0
    } else {
        // SAFETY: `kwnames` is the tuple of keyword names of a vectorcall.
        unsafe { ffi::PyTuple_GET_SIZE(kwnames) }
    };
    // SAFETY: a vectorcall passes `nargs` positional arguments, then one value per keyword.
    let arg = |i: usize| unsafe { Borrowed::from_ptr(py, *args.add(i)) };
    let as_ids = match (nargs, keywords) {
        (1, 0) => plain.as_ids(),
        (2, 0) => output_is_ids(py, &arg(1))?,
        (1, 1) => {
            // SAFETY: `kwnames` holds one name.
            let name = unsafe { Borrowed::from_ptr(py, ffi::PyTuple_GET_ITEM(kwnames, 0)) };
            let known = [intern!(py, "out_type"), intern!(py, "return_type")];
            // Names in compiled calls are interned: one pointer comparison each, usually.
            if !known
                .iter()
                .any(|k| name.is(k) || name.eq(k).unwrap_or(false))
            {
                return None;
            }
            output_is_ids(py, &arg(1))?
        }
        _ => return None,
    };
    Some((arg(0).to_owned(), as_ids))
}

/// Calls `PlainEncode.encode` (the general method, which parses every option) on `slf` with
/// the same arguments.
///
/// # Safety
///
/// `slf` is a live [`PlainEncode`] and `call` the arguments of a vectorcall (see [`encode`]).
unsafe fn general(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    call: Call,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: `slf` is a live PlainEncode (see `encode`).
    let method = unsafe { Borrowed::from_ptr(py, slf) }.getattr(intern!(py, "encode"))?;
    // SAFETY: the arguments of a vectorcall, passed on as they came.
    let out = unsafe {
        ffi::PyObject_Vectorcall(
            method.as_ptr(),
            call.args,
            call.nargs as usize,
            call.kwnames,
        )
    };
    if out.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(out)
    }
}
