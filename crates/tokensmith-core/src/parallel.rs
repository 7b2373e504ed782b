//! Running work over many inputs on a fixed number of threads.
//!
//! Thread pools are cached by size: building one costs far more than encoding a short text.

use rayon::prelude::*;
use rayon::ThreadPool;
use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex, OnceLock};

/// The number of threads a batch call may use: at least 1, at most the machine's cores.
pub fn effective_threads(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    requested.clamp(1, cores)
}

fn pool(threads: usize) -> Arc<ThreadPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut pools = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pools
        .entry(threads)
        .or_insert_with(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("tokensmith-{i}"))
                    .build()
                    // Spawning threads fails only when the OS refuses; then work runs inline.
                    .unwrap_or_else(|_| {
                        rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .use_current_thread()
                            .build()
                            .expect("a one-thread pool on the current thread always builds")
                    }),
            )
        })
        .clone()
}

/// Maps `f` over `items` on `threads` threads, keeping the input order.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let threads = effective_threads(threads).min(items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    pool(threads).install(|| items.par_iter().with_min_len(1).map(f).collect())
}

/// Results of [`map_streamed`], in completion order, as `(input index, result)`.
pub struct Streamed<R> {
    rx: Receiver<(usize, Vec<R>)>,
    remaining: usize,
}

impl<R> Streamed<R> {
    /// The next finished chunk of results and the input index of its first item, blocking
    /// until one is ready; `None` once all have arrived.
    pub fn next_chunk(&mut self) -> Option<(usize, Vec<R>)> {
        if self.remaining == 0 {
            return None;
        }
        let (start, chunk) = self.rx.recv().ok()?;
        self.remaining = self.remaining.saturating_sub(chunk.len());
        Some((start, chunk))
    }
}

/// Maps `f` over `items` on `threads` pool threads while the calling thread consumes the
/// results as they finish.
///
/// This is for work whose results need a serial step on the caller (building Python objects
/// under the GIL): the step overlaps with the encoding of later items instead of following it.
/// Results arrive in chunks of consecutive items, so the caller wakes a few dozen times per
/// batch rather than once per item.
///
/// ```
/// let items: Vec<u32> = (0..100).collect();
/// let mut sum = 0;
/// tokensmith_core::parallel::map_streamed(&items, 2, |x| x * 2, |results| {
///     while let Some((_, chunk)) = results.next_chunk() {
///         sum += chunk.iter().sum::<u32>();
///     }
/// });
/// assert_eq!(sum, 9900);
/// ```
pub fn map_streamed<T: Sync, R: Send, O>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    consume: impl FnOnce(&mut Streamed<R>) -> O,
) -> O {
    let threads = effective_threads(threads).min(items.len().max(1));
    let (tx, rx) = channel();
    let chunk = (items.len() / (threads * 16)).max(1);
    pool(threads).in_place_scope(|scope| {
        for (c, part) in items.chunks(chunk).enumerate() {
            let tx = tx.clone();
            let f = &f;
            scope.spawn(move |_| {
                // The receiver lives until the scope ends, so sending cannot fail.
                let _ = tx.send((c * chunk, part.iter().map(f).collect()));
            });
        }
        drop(tx);
        consume(&mut Streamed {
            rx,
            remaining: items.len(),
        })
    })
}
