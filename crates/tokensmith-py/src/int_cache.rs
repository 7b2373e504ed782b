//! Cached Python ints for lists of token ids, shared by every binding that returns ids.
//!
//! CPython keeps only the ints up to 256; any other id put in a list would be a new int object.
//! An [`IntCache`] holds one int per id, made the first time that id is listed, so a list of
//! ids is built from references and the first call pays only for the ids it uses. Ints are
//! immutable, so one object may sit in any number of lists and threads. Where ints are lent
//! ([`crate::lent_ints`]), every cache uses the process's one table of lent ints, and a
//! list stores them without an increment; elsewhere each cache has its own table, whose
//! cells own a reference each, and each listed id increments.

use std::ops::Deref;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

use pyo3::ffi::PyObject;
use pyo3::prelude::*;
use pyo3::types::PyList;
use tokensmith_core::models::bpe::prefetch;

use crate::lent_ints::{lend, take_back, LENDS};
use crate::unfilled_list::UnfilledList;

/// How many ids ahead [`IntCache::list`] prefetches (twice that for the cache cell).
const LIST_PREFETCH: usize = 8;
/// Tables whose listed ids all lie below this list without prefetching (the table of lent
/// ints counts every id the process listed): their cells and ints (40 bytes an id: 1.6 MiB
/// for 40k ids) stay within a core's L2 cache once used (2 MiB on the Xeon measured), and
/// the look-ahead would cost more than the misses it hides (the 1k and 8k SentencePiece
/// models, or a `tokenizer.json` of up to 40k tokens). A 32k byte-level BPE file's 2 KB documents listed and freed their ids in
/// 1.58-1.65 ns an id without the look-ahead, 1.75-1.83 ns with it.
const PREFETCH_ABOVE: usize = 40_960;
/// Ids below this have a lent int; a list holding a larger id gets a new int of its own.
/// The largest vocabularies in use have about 256k tokens.
const LENT_IDS: usize = 1 << 18;

/// One lazily made Python int per id below its length.
pub(crate) struct Table {
    /// Each id's int, or null until first listed. One pointer a cell, read with one load:
    /// the cell of a hot id is all a list costs.
    cells: Box<[AtomicPtr<PyObject>]>,
    /// One more than the highest id whose int was made: the cells in use lie below it.
    used: AtomicUsize,
}

impl Table {
    fn new(len: usize) -> Self {
        Self {
            cells: (0..len)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            used: AtomicUsize::new(0),
        }
    }
}

/// A cache's table: its own, or the process's table of lent ints.
enum Tables {
    Own(Table),
    Lent(&'static Table),
}

/// The ints of a vocabulary's ids, for lists.
pub(crate) struct IntCache {
    table: Tables,
}

impl IntCache {
    /// A cache for ids `0..len` (where ints are lent, the process's table of the ids below
    /// [`LENT_IDS`], whatever `len`); no int is made yet (the cells take 8 bytes each).
    pub(crate) fn new(len: usize) -> Self {
        static LENT: OnceLock<Table> = OnceLock::new();
        let table = if LENDS {
            Tables::Lent(LENT.get_or_init(|| Table::new(LENT_IDS)))
        } else {
            Tables::Own(Table::new(len))
        };
        Self { table }
    }

    /// A reference for a list to hold to the Python int of `id`: the cached one below the
    /// table's length (made on first use; lent, or with a new reference), else a new one.
    /// `cells` is the table's, passed as a local slice: a reference count written through
    /// an int's pointer could otherwise be the cache's own fields for all the compiler
    /// knows, and they would be read again for every id.
    #[inline(always)]
    fn int(&self, py: Python<'_>, cells: &[AtomicPtr<PyObject>], id: u32) -> *mut PyObject {
        let Some(cell) = cells.get(id as usize) else {
            return new_int(py, id);
        };
        let mut item = cell.load(Ordering::Acquire);
        if item.is_null() {
            item = self.fill(py, cell, id);
        }
        if !LENDS {
            // SAFETY: `item` is a live int the cache owns a reference to; the caller receives
            // a new strong reference, as it would from a fresh int.
            unsafe { pyo3::ffi::Py_INCREF(item) };
        }
        item
    }

    /// Makes the int of an empty cell (lent, where ints are) and stores it; when another
    /// thread stored one first, that one is kept and the new one dropped. Returns the stored
    /// int.
    #[cold]
    fn fill(&self, py: Python<'_>, cell: &AtomicPtr<PyObject>, id: u32) -> *mut PyObject {
        self.used.fetch_max(id as usize + 1, Ordering::Relaxed);
        let made = new_int(py, id);
        // SAFETY: `made` is a new int whose only reference this function owns; the GIL is
        // held (`py`).
        unsafe { lend(made) };
        match cell.compare_exchange(
            std::ptr::null_mut(),
            made,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => made,
            Err(stored) => {
                // SAFETY: no one else has seen `made`: what was lent goes back, and its own
                // reference is dropped.
                unsafe {
                    take_back(made);
                    pyo3::ffi::Py_DECREF(made);
                }
                stored
            }
        }
    }

    /// `ids` as a Python list of ints.
    pub(crate) fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        let list = UnfilledList::new(py, ids.len())?;
        // The slots are written through a pointer read once: an int's reference count,
        // written for each id, could otherwise be the list's own field for all the compiler
        // knows, and PyList_SET_ITEM would read it again for every id.
        let items = list.items();
        // SAFETY: the list has `ids.len()` slots and each one is written exactly once with a
        // reference the list may own (a new one, or a lent int's), which is what `finish`
        // requires.
        unsafe {
            if self.used.load(Ordering::Relaxed) > PREFETCH_ABOVE {
                self.fill_prefetching(py, ids, items);
            } else {
                self.fill_plain(py, ids, items);
            }
            Ok(list.finish(py))
        }
    }

    /// Writes the int of each id to `items` (one slot per id), four ids a step: the loop's
    /// own count and test then cost a quarter of an instruction pair an id.
    ///
    /// Kept out of line: inlined, it ran out of registers and read the ids' address from
    /// the stack for every id.
    ///
    /// # Safety
    /// `items` has room for `ids.len()` pointers, which the caller owns as references (new
    /// ones, or lent ints').
    #[inline(never)]
    unsafe fn fill_plain(&self, py: Python<'_>, ids: &[u32], items: *mut *mut PyObject) {
        let cells: &[AtomicPtr<PyObject>] = &self.cells;
        let mut fours = ids.chunks_exact(4);
        let mut at = items;
        for four in &mut fours {
            for &id in four {
                // SAFETY: `at` stays within the caller's `ids.len()` slots: one a listed id.
                unsafe {
                    at.write(self.int(py, cells, id));
                    at = at.add(1);
                }
            }
        }
        for &id in fours.remainder() {
            // SAFETY: as above.
            unsafe {
                at.write(self.int(py, cells, id));
                at = at.add(1);
            }
        }
    }

    /// Writes the int of each id to `items` (one slot per id), fetching ahead the cells and
    /// ints of later ids.
    ///
    /// # Safety
    /// `items` has room for `ids.len()` pointers, which the caller owns as references (new
    /// ones, or lent ints').
    unsafe fn fill_prefetching(&self, py: Python<'_>, ids: &[u32], items: *mut *mut PyObject) {
        let cells: &[AtomicPtr<PyObject>] = &self.cells;
        for (i, &id) in ids.iter().enumerate() {
            // The cached ints of a varied text are spread over megabytes, and each one's
            // reference count is written: fetch the cell of a later id, and the int of a
            // nearer one, so those misses overlap.
            if let Some(cell) = ids
                .get(i + 2 * LIST_PREFETCH)
                .and_then(|&n| cells.get(n as usize))
            {
                prefetch(cell);
            }
            // A lent int is not written: only its cell is read.
            if let Some(cell) = ids
                .get(i + LIST_PREFETCH)
                .and_then(|&n| cells.get(n as usize))
                .filter(|_| !LENDS)
            {
                // A prefetch of null (an id not yet listed) is harmless.
                prefetch(cell.load(Ordering::Relaxed));
            }
            // SAFETY: `i` is below `ids.len()`, within the caller's slots.
            unsafe { items.add(i).write(self.int(py, cells, id)) };
        }
    }
}

/// A new Python int (a strong reference): ids past a cache's end, which no vocabulary in use
/// has, so it is kept out of the list loops.
#[cold]
#[inline(never)]
fn new_int(py: Python<'_>, id: u32) -> *mut PyObject {
    let Ok(int) = id.into_pyobject(py);
    int.into_any().unbind().into_ptr()
}

impl Deref for IntCache {
    type Target = Table;

    fn deref(&self) -> &Table {
        match &self.table {
            Tables::Own(table) => table,
            Tables::Lent(table) => table,
        }
    }
}

impl Drop for IntCache {
    fn drop(&mut self) {
        // Lent ints belong to the process, and lists may hold them.
        let Tables::Own(table) = &mut self.table else {
            return;
        };
        let cells = std::mem::take(&mut table.cells);
        // When Python is shutting down, the ints are left to it.
        Python::try_attach(|py| {
            for cell in cells.iter() {
                let item = cell.load(Ordering::Acquire);
                if !item.is_null() {
                    // SAFETY: the cache owns this reference and gives it up here, once.
                    drop(unsafe { Bound::from_owned_ptr(py, item) });
                }
            }
        });
    }
}
