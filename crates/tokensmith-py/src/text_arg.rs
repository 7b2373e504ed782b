//! The text argument of the encoding calls, as UTF-8.
//!
//! pyo3's `&str` asks CPython for the string's UTF-8. A string that is all ASCII is its own
//! UTF-8. Any other string gets a UTF-8 copy, which CPython keeps with the string for as long
//! as the string lives.
//!
//! For a long string that is not all ASCII and has no such copy yet, the copy is made here
//! instead ([`tokensmith_core::code_units`]), into a buffer the calling thread keeps for the
//! next one (within the core's rule for kept buffers, `tokensmith_core::scratch`). Measured:
//! - On one million characters of random bytes decoded as UTF-8, CPython's converter took
//!   5 ns a character, about a tenth of the whole first call; the conversion here takes 2.3,
//!   or 0.6 where the CPU has AVX2.
//! - A long string no longer carries a second copy of itself after it has been encoded.
//!
//! Short strings still take CPython's copy: the same short text is often encoded again (a
//! prompt, a document in a loop), and the kept copy then costs nothing. A string with a lone
//! surrogate, which UTF-8 cannot hold, goes to CPython too, which raises
//! `UnicodeEncodeError` as before.

use std::ops::Deref;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;
use tokensmith_core::scratch::release_if_large;

/// Strings of at least this many characters are converted here (see the module's notes).
pub(crate) const CONVERT_FROM: usize = 1 << 16;
thread_local! {
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A `str` argument as UTF-8: CPython's own, or converted here.
pub(crate) enum Text {
    Python(PyBackedStr),
    Converted(String),
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Python(s) => s,
            Text::Converted(s) => s,
        }
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        if let Text::Converted(s) = self {
            give_back(std::mem::take(s).into_bytes());
        }
    }
}

impl FromPyObject<'_, '_> for Text {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let s = ob.cast::<PyString>()?;
        #[cfg(not(any(PyPy, GraalPy, Py_GIL_DISABLED, Py_3_14)))]
        // SAFETY: `s` is a str that the caller keeps alive for the call.
        if let Some(text) = unsafe { converted(s.as_ptr()) } {
            return Ok(text);
        }
        PyBackedStr::try_from(s.to_owned()).map(Text::Python)
    }
}

/// The UTF-8 of the str `op` made here, or `None` when CPython's should be used: the string
/// is all ASCII, short, already has its UTF-8 copy, or holds a surrogate.
///
/// # Safety
/// `op` is a live str, and the GIL is held.
#[cfg(not(any(PyPy, GraalPy, Py_GIL_DISABLED, Py_3_14)))]
unsafe fn converted(op: *mut pyo3::ffi::PyObject) -> Option<Text> {
    use pyo3::ffi;
    use tokensmith_core::code_units::push_utf8;
    // SAFETY: `op` is a str (the caller's promise); a compact str that is not ASCII is a
    // `PyCompactUnicodeObject` whose characters follow it, `len` units of `kind` bytes.
    unsafe {
        if ffi::PyUnicode_IS_COMPACT(op) == 0 || ffi::PyUnicode_IS_ASCII(op) != 0 {
            return None;
        }
        let len = usize::try_from(ffi::PyUnicode_GET_LENGTH(op)).ok()?;
        if len < CONVERT_FROM || !(*op.cast::<ffi::PyCompactUnicodeObject>()).utf8.is_null() {
            return None;
        }
        let data = ffi::PyUnicode_DATA(op);
        let mut out = SPARE.take();
        out.clear();
        let converted = match ffi::PyUnicode_KIND(op) {
            ffi::PyUnicode_1BYTE_KIND => {
                push_utf8(std::slice::from_raw_parts(data.cast::<u8>(), len), &mut out)
            }
            ffi::PyUnicode_2BYTE_KIND => push_utf8(
                std::slice::from_raw_parts(data.cast::<u16>(), len),
                &mut out,
            ),
            ffi::PyUnicode_4BYTE_KIND => push_utf8(
                std::slice::from_raw_parts(data.cast::<u32>(), len),
                &mut out,
            ),
            _ => false,
        };
        if !converted {
            give_back(out);
            return None;
        }
        // `push_utf8` wrote whole UTF-8 sequences of scalar values only.
        Some(Text::Converted(String::from_utf8_unchecked(out)))
    }
}

/// Keeps `buffer` for the thread's next long string, unless the rule for kept buffers
/// ([`release_if_large`]) frees it.
fn give_back(mut buffer: Vec<u8>) {
    buffer.clear();
    release_if_large(&mut buffer);
    SPARE.set(buffer);
}
