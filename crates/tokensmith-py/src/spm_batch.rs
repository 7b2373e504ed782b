//! The batch calls of `CoreSentencePiece`: many texts in, one Python list per text out.
//!
//! The texts are borrowed, not copied: the call takes a private list of the caller's texts (no
//! other code can reach it, so no string in it can be dropped while the GIL is released) and
//! reads each string's UTF-8 in place. Texts are encoded in groups whose ids share one buffer,
//! and the calling thread builds the Python lists of finished groups while the other threads
//! encode later ones, one group at a time (see [`parallel::map_streamed_each`]).

use std::ops::Range;

use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use tokensmith_core::parallel;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

use crate::int_cache::IntCache;
// Batches with fewer bytes than this are encoded without releasing the GIL, as single texts are.
use crate::sentencepiece::DETACH_AT;

/// Groups hold at least this many bytes of text (or a single longer text) when there are
/// enough texts: small enough that each thread gets many groups, large enough that handing
/// one over (a claim, a channel message and a release of the GIL to wait for the next: well
/// under a microsecond) costs little next to encoding it (about 12 µs for 2 KB).
const MIN_GROUP_BYTES: usize = 2048;
/// At most this many bytes in a group, so that the tail of a call stays short.
const MAX_GROUP_BYTES: usize = 8192;
/// On one thread, this many bytes are encoded per release of the GIL.
const SERIAL_GROUP_BYTES: usize = 64 * 1024;
/// Batches with fewer bytes than this run on the calling thread alone, whatever the number of
/// threads asked for: a call that uses a helper returns only once the helper has run, and
/// waking it (or waiting for a core on a busy machine) costs tens to hundreds of microseconds,
/// while 32 KB take about 0.8 ms to encode.
const PARALLEL_AT: usize = 32 * 1024;

/// Calls `f` with the UTF-8 of every string in the iterable `texts`, borrowed from a private
/// list of them (which the garbage collector does not walk). A `str` itself, or an item that is
/// not a `str`, is a `TypeError` naming it.
pub(crate) fn with_texts<R>(texts: &Bound<'_, PyAny>, f: impl FnOnce(&[&str]) -> R) -> PyResult<R> {
    let py = texts.py();
    if texts.is_instance_of::<pyo3::types::PyString>() {
        return Err(crate::errors::type_error(
            py,
            "expected a list of str, not a str (pass [text] to encode one text)".into(),
        ));
    }
    // SAFETY: PySequence_List returns a new reference (or NULL with an exception set).
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PySequence_List(texts.as_ptr()))? };
    let list = list.cast_into::<PyList>()?;
    // The copy is hidden from the garbage collector: the lists this call makes trigger
    // collections, and each would otherwise walk the copy's texts (tens of thousands of
    // scattered objects) as well. Nothing else can reach the copy, so it cannot be part of a
    // cycle, and it is freed before this function returns.
    // SAFETY: untracking a tracked list is allowed, and so is freeing an untracked one.
    unsafe { ffi::PyObject_GC_UnTrack(list.as_ptr().cast()) };
    let mut strs = Vec::with_capacity(list.len());
    for index in 0..list.len() {
        // SAFETY: `index` is in bounds of a list only this function can reach; the item is a
        // borrowed reference that the list keeps alive.
        let item = unsafe { ffi::PyList_GET_ITEM(list.as_ptr(), index as ffi::Py_ssize_t) };
        if unsafe { ffi::PyUnicode_Check(item) } == 0 {
            let kind = unsafe { Bound::from_borrowed_ptr(py, item) }
                .get_type()
                .name()?;
            return Err(crate::errors::type_error(
                py,
                format!("texts[{index}] has type {kind}, not str"),
            ));
        }
        let mut size: ffi::Py_ssize_t = 0;
        // SAFETY: `item` is a str; the UTF-8 returned lives as long as the string (str objects
        // are immutable and keep their UTF-8 form once made), and the private list holds the
        // string until this function returns.
        let text = unsafe {
            let data = ffi::PyUnicode_AsUTF8AndSize(item, &mut size);
            if data.is_null() {
                return Err(PyErr::fetch(py));
            }
            let bytes = std::slice::from_raw_parts(data.cast::<u8>(), size as usize);
            std::str::from_utf8_unchecked(bytes)
        };
        strs.push(text);
    }
    Ok(f(&strs))
}

/// Consecutive ranges of `texts`, each of about `target` bytes (a longer text alone).
fn groups(texts: &[&str], target: usize) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(texts.iter().map(|t| t.len()).sum::<usize>() / target + 1);
    let mut start = 0;
    let mut bytes = 0;
    for (i, text) in texts.iter().enumerate() {
        bytes += text.len() + 1;
        if bytes >= target {
            out.push(start..i + 1);
            start = i + 1;
            bytes = 0;
        }
    }
    if start < texts.len() {
        out.push(start..texts.len());
    }
    out
}

/// The ids of `texts` one after another into `ids`, and where each text's ids end into `ends`.
fn encode_group(
    sp: &SentencePieceProcessor,
    texts: &[&str],
    ids: &mut Vec<u32>,
    ends: &mut Vec<usize>,
) {
    for text in texts {
        sp.with_ids(text, |some| ids.extend_from_slice(some));
        ends.push(ids.len());
    }
}

/// A new Python list of `len` slots, each to be set exactly once by [`OutList::set`].
///
/// Until every slot is set the list is hidden from the garbage collector, so that no other
/// Python thread can reach it (through `gc.get_objects()`) while the GIL is released and see
/// an empty slot. Its items, the new lists of ids, are hidden too until then: the collections
/// that the call's own allocations trigger (one per 700 lists) would otherwise walk every list
/// made so far in the call, again and again, although none can be garbage yet. On the first
/// 8 MB of the 50 MB benchmark corpus (159,432 lists a call), the 2-thread batch ran at 17–19
/// MB/s with the collector running and at 24–29 MB/s with it paused during the call.
struct OutList<'py> {
    list: Bound<'py, PyList>,
    filled: usize,
}

impl<'py> OutList<'py> {
    fn new(py: Python<'py>, len: usize) -> PyResult<Self> {
        // SAFETY: PyList_New returns a new list of `len` NULL slots (or NULL with an exception
        // set); a list with NULL slots may be freed, and is never handed out (see `finish`).
        let list: Bound<'py, PyList> = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len as ffi::Py_ssize_t))?
                .cast_into_unchecked()
        };
        // SAFETY: a new list is tracked; untracking it is undone in `finish`, and freeing an
        // untracked list is allowed.
        unsafe { ffi::PyObject_GC_UnTrack(list.as_ptr().cast()) };
        Ok(Self { list, filled: 0 })
    }

    /// Puts `item`, a new list that nothing else refers to, in slot `i`, which no call has set
    /// before.
    fn set(&mut self, i: usize, item: Bound<'py, PyList>) {
        debug_assert!(i < self.list.len());
        // SAFETY: untracking a tracked list is allowed; from here on only this (untracked)
        // list refers to the item, so it cannot join a cycle, and `finish` tracks it again
        // before anyone else can reach it (freeing it untracked, on an error, is allowed).
        unsafe { ffi::PyObject_GC_UnTrack(item.as_ptr().cast()) };
        // SAFETY: `i` is in bounds and its slot is still NULL (every index is set once), so
        // stealing the reference leaks nothing.
        unsafe { ffi::PyList_SET_ITEM(self.list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
        self.filled += 1;
    }

    /// The list, once every slot is set.
    fn finish(self) -> PyResult<Bound<'py, PyList>> {
        if self.filled != self.list.len() {
            return Err(PyRuntimeError::new_err(format!(
                "a batch encode finished {} of {} texts",
                self.filled,
                self.list.len()
            )));
        }
        for i in 0..self.filled {
            // SAFETY: `i` is in bounds and every slot is set; each item is a distinct list,
            // untracked in `set`, so tracking it once is allowed.
            unsafe {
                let item = ffi::PyList_GET_ITEM(self.list.as_ptr(), i as ffi::Py_ssize_t);
                ffi::PyObject_GC_Track(item.cast());
            }
        }
        // SAFETY: the list is complete and untracked (see `new`).
        unsafe { ffi::PyObject_GC_Track(self.list.as_ptr().cast()) };
        Ok(self.list)
    }
}

/// The ids of every text of `texts` as a list of Python lists, on `num_threads` threads.
pub(crate) fn ids_batch<'py>(
    py: Python<'py>,
    sp: &SentencePieceProcessor,
    ints: &IntCache,
    texts: &[&str],
    num_threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let mut out = OutList::new(py, texts.len())?;
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let threads = parallel::effective_threads(num_threads);
    if threads == 1 || texts.len() < 2 || bytes < PARALLEL_AT {
        serial(py, sp, ints, texts, bytes, &mut out)?;
        return out.finish();
    }
    let target = (bytes / (threads * 64)).clamp(MIN_GROUP_BYTES, MAX_GROUP_BYTES);
    let groups = groups(texts, target);
    // The first failure in input order, whichever thread finished first.
    let mut failure: Option<(usize, PyErr)> = None;
    parallel::map_streamed_each(
        &groups,
        threads,
        |range| {
            // About one id per 3 bytes, so that the buffer rarely grows.
            let group = &texts[range.clone()];
            let bytes: usize = group.iter().map(|t| t.len()).sum();
            let mut ids = Vec::with_capacity(bytes / 3 + 16);
            let mut ends = Vec::with_capacity(group.len());
            encode_group(sp, group, &mut ids, &mut ends);
            (ids, ends)
        },
        |results| {
            while let Some((first, chunk)) = py.detach(|| results.next_chunk()) {
                for (range, (ids, ends)) in groups[first..].iter().zip(chunk) {
                    let mut begin = 0;
                    for (i, end) in range.clone().zip(ends) {
                        match ints.list(py, &ids[begin..end]) {
                            Ok(list) => out.set(i, list),
                            Err(e) => {
                                if failure.as_ref().is_none_or(|&(f, _)| i < f) {
                                    failure = Some((i, e));
                                }
                            }
                        }
                        begin = end;
                    }
                }
            }
        },
    );
    match failure {
        Some((_, e)) => Err(e),
        None => out.finish(),
    }
}

/// [`ids_batch`] on this thread alone: groups of texts are encoded into one reused buffer with
/// the GIL released, then listed.
fn serial<'py>(
    py: Python<'py>,
    sp: &SentencePieceProcessor,
    ints: &IntCache,
    texts: &[&str],
    bytes: usize,
    out: &mut OutList<'py>,
) -> PyResult<()> {
    let mut ids = Vec::new();
    let mut ends = Vec::new();
    for range in groups(texts, SERIAL_GROUP_BYTES) {
        ids.clear();
        ends.clear();
        let group = &texts[range.clone()];
        if bytes < DETACH_AT {
            encode_group(sp, group, &mut ids, &mut ends);
        } else {
            py.detach(|| encode_group(sp, group, &mut ids, &mut ends));
        }
        let mut begin = 0;
        for (i, &end) in range.zip(&ends) {
            out.set(i, ints.list(py, &ids[begin..end])?);
            begin = end;
        }
    }
    Ok(())
}

/// The pieces of every text of `texts`, on `num_threads` threads.
pub(crate) fn pieces_batch(
    py: Python<'_>,
    sp: &SentencePieceProcessor,
    texts: &[&str],
    num_threads: usize,
) -> Vec<Vec<String>> {
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let threads = if bytes < PARALLEL_AT { 1 } else { num_threads };
    let encode = || {
        parallel::map(texts, threads, |t| {
            sp.encode(t).into_iter().map(|(p, _)| p).collect()
        })
    };
    if bytes < DETACH_AT {
        encode()
    } else {
        py.detach(encode)
    }
}
