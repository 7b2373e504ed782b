//! Running work over many inputs on a fixed number of threads.
//!
//! Thread pools are cached by size: building one costs far more than encoding a short text.

use rayon::prelude::*;
use rayon::ThreadPool;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
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
pub struct Streamed<'a, R> {
    rx: Receiver<(usize, Vec<R>)>,
    remaining: usize,
    /// Claims the next chunk no thread has taken yet and computes it on the calling thread,
    /// or returns `None` when every chunk is taken.
    claim: &'a (dyn Fn() -> Option<(usize, Vec<R>)> + Sync),
}

impl<R> Streamed<'_, R> {
    /// The next finished chunk of results and the input index of its first item; `None` once
    /// all have arrived.
    ///
    /// When no other thread has a chunk ready, the calling thread computes the next untaken
    /// chunk itself instead of waiting; it blocks only once every chunk is taken.
    pub fn next_chunk(&mut self) -> Option<(usize, Vec<R>)> {
        if self.remaining == 0 {
            return None;
        }
        let (start, chunk) = match self.rx.try_recv() {
            Ok(done) => done,
            Err(_) => match (self.claim)() {
                Some(done) => done,
                None => self.rx.recv().ok()?,
            },
        };
        self.remaining = self.remaining.saturating_sub(chunk.len());
        Some((start, chunk))
    }
}

/// Maps `f` over `items` on `threads` threads, one of them the calling thread, which also
/// consumes the results as they finish.
///
/// This is for work whose results need a serial step on the caller (building Python objects
/// under the GIL): the step overlaps with the work on later items instead of following it.
/// The caller is one of the `threads` workers: between serial steps it computes chunks itself
/// (inside [`Streamed::next_chunk`]), so `threads` threads are busy in all, never `threads`
/// pool threads plus a caller that competes with them for the cores. Items are handed out
/// in chunks of consecutive items from a shared counter, so a thread that is slowed down
/// (by the serial step, or by another process) simply takes fewer of them.
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
    consume: impl FnOnce(&mut Streamed<'_, R>) -> O,
) -> O {
    let threads = effective_threads(threads).min(items.len().max(1));
    let (tx, rx) = channel();
    let chunk = (items.len() / (threads * 16)).max(1);
    let n_chunks = items.len().div_ceil(chunk);
    let next = AtomicUsize::new(0);
    let claim = || {
        let c = next.fetch_add(1, Ordering::Relaxed);
        (c < n_chunks).then(|| {
            let start = c * chunk;
            let part = &items[start..(start + chunk).min(items.len())];
            (start, part.iter().map(&f).collect::<Vec<R>>())
        })
    };
    let mut streamed = Streamed {
        rx,
        remaining: items.len(),
        claim: &claim,
    };
    if threads == 1 {
        drop(tx);
        return consume(&mut streamed);
    }
    pool(threads - 1).in_place_scope(|scope| {
        for _ in 1..threads {
            let tx = tx.clone();
            let claim = &claim;
            scope.spawn(move |_| {
                while let Some(done) = claim() {
                    // The receiver outlives the scope, so sending cannot fail.
                    let _ = tx.send(done);
                }
            });
        }
        drop(tx);
        let out = consume(&mut streamed);
        // A consumer that stopped early wants no more results: leave the rest untaken.
        next.store(n_chunks, Ordering::Relaxed);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn streamed_results_cover_every_item_once() {
        let items: Vec<usize> = (0..1000).collect();
        let mut seen = vec![0; items.len()];
        map_streamed(
            &items,
            2,
            |&x| x * 3,
            |results| {
                while let Some((start, chunk)) = results.next_chunk() {
                    for (i, r) in (start..).zip(chunk) {
                        assert_eq!(r, i * 3);
                        seen[i] += 1;
                    }
                }
            },
        );
        assert!(seen.iter().all(|&n| n == 1));
    }

    #[test]
    fn the_caller_computes_chunks_when_the_pool_is_busy() {
        // Occupy the pool's only thread until the consumer has everything: every chunk must
        // then have been computed by the calling thread (with the old design this waited).
        let (release, wait) = channel::<()>();
        pool(1).spawn(move || {
            let _ = wait.recv_timeout(Duration::from_secs(30));
        });
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..200).collect();
        let threads = map_streamed(
            &items,
            2,
            |_| std::thread::current().id(),
            |results| {
                let mut ids = Vec::new();
                while let Some((_, chunk)) = results.next_chunk() {
                    ids.extend(chunk);
                }
                let _ = release.send(());
                ids
            },
        );
        assert_eq!(threads.len(), items.len());
        assert!(threads.iter().all(|&t| t == caller));
    }
}
