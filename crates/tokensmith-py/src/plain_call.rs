//! The entry point of a facade's compiled `encode` (a [`PlainEncode`]): a builtin method whose
//! C function looks at the shape of the call itself.
//!
//! Nearly every call is `sp.encode(text)`: one `str`, no keywords. For that call the function
//! goes straight to the encoder; any other call is handed, with the same arguments, to
//! [`PlainEncode`]'s own `encode` method, which parses the options. The general method's
//! parsing of its eleven optional arguments costs about as much again as the rest of the call
//! glue, which a line of text otherwise pays on every call.

use pyo3::ffi;
use pyo3::impl_::trampoline::get_trampoline_function;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::sentencepiece::PlainEncode;

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
return_type=None)\n--\n\nEncodes a text (or a list of texts) as \
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
    // SAFETY: `slf` is the PlainEncode this method was made for (see `bound_encode`).
    let plain = unsafe { Borrowed::from_ptr(py, slf).cast_unchecked::<PlainEncode>() };
    if nargs == 1 && kwnames.is_null() {
        // SAFETY: there is one positional argument.
        let input = unsafe { Borrowed::from_ptr(py, *args) };
        if let Ok(text) = input.cast_exact::<PyString>() {
            return plain.get().encode_text(py, &text).map(Bound::into_ptr);
        }
    }
    let general = plain.getattr(intern!(py, "encode"))?;
    // SAFETY: the arguments are passed on exactly as they came; `nargs` is a count without
    // the offset flag, which vectorcall accepts.
    let out = unsafe { ffi::PyObject_Vectorcall(general.as_ptr(), args, nargs as usize, kwnames) };
    if out.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(out)
    }
}
