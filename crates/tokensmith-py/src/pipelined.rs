//! Pulling chunks from a Python iterable on this thread while a worker thread consumes the
//! previous one, so that reading (Python, one thread) and counting (Rust, the pool) overlap.
//!
//! Iterating a file line by line in Python took as long as normalizing and counting those
//! lines on two threads; one after the other, the counting threads sat idle half the time.
//! At most one chunk waits between the two. Chunks go back to this thread to be dropped, so
//! their Python strings are released with the GIL held.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel};

use pyo3::prelude::*;

use crate::chunks::for_each_owned_chunk;
use crate::errors::new_error;

/// Calls `consume` on each chunk of `items` (as [`crate::chunks::for_each_chunk_of`]) on a
/// worker thread, while this thread reads the next chunk. Once `consume` returns false, the
/// chunks after it are neither read nor consumed. Returns after every chunk sent was
/// consumed; an error reading `items` is returned after that.
pub fn for_each_chunk_pipelined<'py, T>(
    items: &Bound<'py, PyAny>,
    chunk_size: usize,
    expected: &str,
    mut consume: impl FnMut(&[T]) -> bool + Send,
) -> PyResult<()>
where
    T: for<'a> FromPyObject<'a, 'py> + Send,
{
    let py = items.py();
    let (to_worker, inbox) = sync_channel::<Vec<T>>(1);
    let (back, returned) = channel::<Vec<T>>();
    let stopped = AtomicBool::new(false);
    let (read, joined) = std::thread::scope(|scope| {
        let stopped = &stopped;
        let worker = scope.spawn(move || {
            for chunk in inbox {
                if !stopped.load(Ordering::Relaxed) && !consume(&chunk) {
                    stopped.store(true, Ordering::Relaxed);
                }
                let _ = back.send(chunk);
            }
        });
        let read = for_each_owned_chunk(items, chunk_size, expected, |chunk: Vec<T>| {
            let sent = py.detach(|| to_worker.send(chunk).is_ok());
            while let Ok(done) = returned.try_recv() {
                drop(done);
            }
            Ok(sent && !stopped.load(Ordering::Relaxed))
        });
        drop(to_worker);
        let joined = py.detach(|| worker.join());
        (read, joined)
    });
    while let Ok(done) = returned.try_recv() {
        drop(done);
    }
    if joined.is_err() {
        return Err(new_error(
            py,
            "InternalError",
            "counting stopped on an internal error; this is a bug in tokensmith: please \
             report it with the options and, if you can, the corpus"
                .into(),
        ));
    }
    read
}
