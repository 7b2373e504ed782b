//! Running work over many inputs on a fixed number of threads.
//!
//! Thread pools are cached by size: building one costs far more than encoding a short text.

use rayon::prelude::*;
use rayon::ThreadPool;
use std::collections::HashMap;
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
