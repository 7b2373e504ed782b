//! Running work over many inputs on a fixed number of threads, the calling thread among them.
//!
//! Every function here makes the calling thread one of its `threads` workers, next to
//! `threads - 1` helpers from one cached pool. The caller starts on the first items at once
//! instead of blocking while pool threads wake up (an idle vCPU of a virtual machine can take
//! a long while to wake), and since [`map`], [`map_concat`] and [`map_streamed`] share the
//! same helpers, the per-thread caches of the encoders warm up once for all of them.
//!
//! Items are handed out as ranges of consecutive items from one shared counter: large ranges
//! first, shrinking toward the end (guided scheduling). A thread that starts late or is
//! slowed down simply takes fewer ranges, and the threads run out of work close together.
//!
//! After its part of a call, a helper stays awake for a while ([`linger_for`]): a program that
//! calls again soon (a loop over batches, which frees the previous results in between) finds
//! it running instead of asleep, and neither pays for waking it.

use rayon::ThreadPool;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The number of threads a batch call may use: at least 1, at most the machine's cores.
pub fn effective_threads(requested: usize) -> usize {
    // Asking the OS reads the CPU affinity and cgroup quota files (several microseconds, more
    // than encoding a short text), so the answer is read once per process.
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    requested.clamp(1, cores)
}

/// The thread pools of one process, by number of threads.
struct Pools {
    /// The process that built them.
    pid: u32,
    by_size: Mutex<HashMap<usize, Option<Arc<ThreadPool>>>>,
}

/// The pools of the process that last looked them up (leaked: a [`Pools`] is never freed).
static POOLS: AtomicPtr<Pools> = AtomicPtr::new(std::ptr::null_mut());

/// This process's pools, made anew on first use in a child created by `fork`.
///
/// A forked child has only the thread that called `fork`: the pool threads it inherits the
/// record of do not exist, so work handed to them would never run and the caller would wait
/// forever (this is how `multiprocessing` and `datasets.map(num_proc=...)` start workers).
/// The pools are therefore kept with the id of the process that built them, and a child
/// builds its own. The parent's record is left as it is, not freed: freeing it would signal
/// threads that are not there, and a lock in it may have been held at the fork by a thread
/// the child does not have. Reading the process id costs one system call per batch call.
fn pools() -> &'static Pools {
    let pid = std::process::id();
    let mut seen = POOLS.load(Ordering::Acquire);
    loop {
        // SAFETY: POOLS holds null or a pointer from `Box::leak`, never freed.
        if let Some(current) = unsafe { seen.as_ref() } {
            if current.pid == pid {
                return current;
            }
        }
        let fresh: &'static mut Pools = Box::leak(Box::new(Pools {
            pid,
            by_size: Mutex::new(HashMap::new()),
        }));
        match POOLS.compare_exchange(seen, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return fresh,
            Err(now) => {
                // Another thread of this process got there first: use its pools. The lost
                // record was never shared, so it can be freed.
                // SAFETY: `fresh` came from `Box::leak` above and no one else has seen it.
                drop(unsafe { Box::from_raw(fresh) });
                seen = now;
            }
        }
    }
}

/// The pool of `helpers` threads, built once per size and process (building one costs far
/// more than encoding a short text); `None` if the OS refuses to start threads.
fn pool(helpers: usize) -> Option<Arc<ThreadPool>> {
    let mut pools = lock(&pools().by_size);
    pools
        .entry(helpers)
        .or_insert_with(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(helpers)
                .thread_name(|i| format!("tokensmith-{i}"))
                .build()
                .ok()
                .map(Arc::new)
        })
        .clone()
}

/// Runs `f`, whose parallel iterators (rayon's `par_iter` and kin) run on one pool thread per
/// core of this process's pools, unless `f` is already running in a rayon pool (a caller's
/// `ThreadPool::install`), whose threads it then keeps.
///
/// Parallel iterators outside any pool would use rayon's global pool, which cannot be rebuilt:
/// in a child created by `fork` after the parent used it, they would wait forever for threads
/// that do not exist. Every parallel iterator of the crate runs inside this or inside a pool
/// its caller built.
///
/// ```
/// use rayon::prelude::*;
/// let sum: u64 = tokensmith_core::parallel::install(|| (1..=100u64).into_par_iter().sum());
/// assert_eq!(sum, 5050);
/// ```
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        return f();
    }
    // Lingering helpers of the other pools would only take cores from this one's threads.
    CALLS.fetch_add(1, Ordering::Relaxed);
    match pool(effective_threads(usize::MAX)) {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Hands out `0..len` as ranges of consecutive indices, each a share of what is left: large
/// ranges while much is left (few claims), single items at the end (a short tail).
///
/// A helper may claim by another rule than the caller ([`Ranges::claim_for_helper`]).
struct Ranges {
    next: AtomicUsize,
    len: usize,
    /// Each claim takes `1 / share` of the items left.
    share: usize,
    /// Each claim by a helper takes `1 / helper_share` of the items left, at most
    /// `helper_most`.
    helper_share: usize,
    helper_most: usize,
}

impl Ranges {
    fn new(len: usize, threads: usize) -> Self {
        Self::with_rules(len, 2 * threads, 2 * threads, usize::MAX)
    }

    /// Hands out `0..len` one index at a time.
    fn one_by_one(len: usize) -> Self {
        Self::with_rules(len, usize::MAX, usize::MAX, 1)
    }

    /// Hands out `0..len` one index at a time to the caller, and to helpers ranges of up to
    /// `most` indices, shares of what is left as in [`Ranges::new`] (so single ones at the end).
    fn one_by_one_to_the_caller(len: usize, threads: usize, most: usize) -> Self {
        Self::with_rules(len, usize::MAX, 2 * threads, most)
    }

    fn with_rules(len: usize, share: usize, helper_share: usize, helper_most: usize) -> Self {
        Self {
            next: AtomicUsize::new(0),
            len,
            share,
            helper_share,
            helper_most,
        }
    }

    /// The next untaken range, or `None` once every item is taken.
    fn claim(&self) -> Option<Range<usize>> {
        self.take(|left| (left / self.share).max(1))
    }

    /// [`Ranges::claim`] by the helpers' rule.
    fn claim_for_helper(&self) -> Option<Range<usize>> {
        self.take(|left| (left / self.helper_share).clamp(1, self.helper_most))
    }

    /// The next untaken range of `size(left)` indices (at least 1), where `left` indices are
    /// untaken; `None` once every item is taken.
    fn take(&self, size: impl Fn(usize) -> usize) -> Option<Range<usize>> {
        let mut start = self.next.load(Ordering::Relaxed);
        loop {
            let left = self.len.checked_sub(start).filter(|&n| n > 0)?;
            let end = start + size(left).clamp(1, left);
            match self
                .next
                .compare_exchange_weak(start, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(start..end),
                Err(now) => start = now,
            }
        }
    }

    /// Leaves every item not yet taken untaken.
    fn close(&self) {
        self.next.store(self.len, Ordering::Relaxed);
    }
}

/// How long a thread that has run out of work spins, waiting for another to hand over its
/// last results, before it goes to sleep: the other is then at most a small range from done,
/// and in a virtual machine waking a sleeping thread can take tens or hundreds of
/// microseconds (the idle vCPU has halted).
const SPIN: Duration = Duration::from_micros(200);

/// Polls `ready` until it returns `Some`, or [`SPIN`] has passed (then `None`).
fn spin_for<V>(mut ready: impl FnMut() -> Option<V>) -> Option<V> {
    let start = Instant::now();
    loop {
        if let Some(v) = ready() {
            return Some(v);
        }
        if start.elapsed() > SPIN {
            return None;
        }
        for _ in 0..64 {
            std::hint::spin_loop();
        }
    }
}

/// Calls that handed work to helpers so far: a change tells a lingering helper
/// ([`stay_awake`]) that new work is coming.
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// The longest a helper stays awake after its part of a call.
const MAX_LINGER: Duration = Duration::from_millis(1);

/// How long a helper stays awake after its part of a call that has run for `elapsed`: a
/// quarter of that, at most [`MAX_LINGER`].
///
/// Between two calls of a loop over batches, the caller frees the previous call's results
/// and prepares the next inputs: on 4 KB English documents with Python lists out, some 15%
/// of the call's time, during which a rayon thread goes to sleep (it yields a few dozen times
/// first). Waking it again costs the caller a system call and the helper the wake-up delay
/// of an idle core (in a virtual machine, its idle vCPU has halted), while the caller works
/// alone. A share of the call's own time covers that gap for calls of any size, and bounds the
/// extra CPU time of a call that is not followed by another to a quarter of a helper's time.
fn linger_for(elapsed: Duration) -> Duration {
    (elapsed / 4).min(MAX_LINGER)
}

/// Keeps this pool thread awake until another call starts (see [`CALLS`]) or `linger` has
/// passed, whichever comes first; `call` is the [`CALLS`] count of the call just done.
///
/// It yields its core between looks, as rayon's threads do before they sleep: on an idle core
/// that returns at once, and on a busy machine the core goes to whoever else waits for it.
fn stay_awake(call: usize, linger: Duration) {
    let start = Instant::now();
    while CALLS.load(Ordering::Relaxed) == call && start.elapsed() < linger {
        std::thread::yield_now();
    }
}

/// Runs `caller` on this thread while `threads - 1` pool threads run `helper`; returns
/// `caller`'s result once every helper has returned.
///
/// Helpers that start after the work is gone find nothing to claim and return at once. A
/// helper then stays awake for a while ([`linger_for`]) as a job of its own, outside this
/// call, which returns as soon as the helpers have.
fn with_helpers<O>(threads: usize, helper: &(dyn Fn() + Sync), caller: impl FnOnce() -> O) -> O {
    let Some(pool) = pool(threads - 1) else {
        return caller();
    };
    // Counted before the work is handed out: a helper lingering after the previous call
    // returns to its pool at once and picks the work up.
    let call = CALLS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    let started = Instant::now();
    let returned = AtomicUsize::new(0);
    pool.in_place_scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|_| {
                helper();
                returned.fetch_add(1, Ordering::Release);
                // On a pool thread, `rayon::spawn` queues the job in this pool, on this
                // thread, which runs it next.
                let linger = linger_for(started.elapsed());
                rayon::spawn(move || stay_awake(call, linger));
            });
        }
        let out = caller();
        // The helpers are about done: wait for them awake rather than asleep in the scope.
        spin_for(|| (returned.load(Ordering::Acquire) == threads - 1).then_some(()));
        out
    })
}

/// `threads` for `len` items: never more threads than items.
fn threads_for(len: usize, threads: usize) -> usize {
    effective_threads(threads).min(len.max(1))
}

/// Locks a mutex whose data stays valid even if a holder panicked.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Maps `f` over `items` on `threads` threads (the caller among them), keeping the input
/// order.
///
/// ```
/// let squares = tokensmith_core::parallel::map(&[1, 2, 3, 4], 2, |x| x * x);
/// assert_eq!(squares, [1, 4, 9, 16]);
/// ```
pub fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let threads = threads_for(items.len(), threads);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let ranges = Ranges::new(items.len(), threads);
    let parts = Mutex::new(Vec::new());
    let work = || {
        let mut mine = Vec::new();
        while let Some(r) = ranges.claim() {
            mine.push((r.start, items[r].iter().map(&f).collect::<Vec<R>>()));
        }
        lock(&parts).append(&mut mine);
    };
    with_helpers(threads, &work, work);
    let mut parts = parts.into_inner().unwrap_or_else(|p| p.into_inner());
    parts.sort_unstable_by_key(|&(start, _)| start);
    parts.into_iter().flat_map(|(_, part)| part).collect()
}

/// The outputs of [`map_concat`]: the outputs of all items, one after another in input order,
/// held as a few runs (one per range of items a thread took).
#[derive(Debug)]
pub struct Concat<U> {
    runs: Vec<Vec<U>>,
    /// `ends[i]`: the combined length of the outputs of items `0..=i`.
    ends: Vec<usize>,
}

impl<U: Copy> Concat<U> {
    /// The combined length of all outputs.
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Whether every output is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where each item's output starts in the concatenation, and then where the last ends:
    /// `items + 1` offsets from 0 to [`Concat::len`].
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(0).chain(self.ends.iter().copied())
    }

    /// The concatenation, as runs of consecutive outputs in input order.
    pub fn runs(&self) -> impl Iterator<Item = &[U]> + '_ {
        self.runs.iter().map(Vec::as_slice)
    }

    /// The concatenation as one vector.
    pub fn to_vec(&self) -> Vec<U> {
        self.runs.concat()
    }

    /// The concatenation as one vector, built on the first run: with a single run (one
    /// thread, or one range) nothing is copied, otherwise only the later runs are.
    ///
    /// ```
    /// let all = tokensmith_core::parallel::map_concat(&["ab", "c"], 2, |w, out: &mut Vec<u8>| {
    ///     out.extend(w.bytes());
    ///     Ok::<(), ()>(())
    /// })
    /// .unwrap();
    /// assert_eq!(all.into_vec(), b"abc");
    /// ```
    pub fn into_vec(self) -> Vec<U> {
        let total = self.len();
        let mut runs = self.runs.into_iter();
        let mut out = runs.next().unwrap_or_default();
        out.reserve_exact(total - out.len());
        for run in runs {
            out.extend_from_slice(&run);
        }
        out
    }

    /// Appends the outputs of `next`, a later batch of items: a batch run in slices (to
    /// handle signals between them) ends as one [`Concat`].
    ///
    /// ```
    /// use tokensmith_core::parallel::{map_concat, Concat};
    /// let push = |w: &&str, out: &mut Vec<u8>| {
    ///     out.extend(w.bytes());
    ///     Ok::<(), ()>(())
    /// };
    /// let mut all = Concat::default();
    /// all.append(map_concat(&["ab", ""], 2, push).unwrap());
    /// all.append(map_concat(&["cde"], 2, push).unwrap());
    /// assert_eq!(all.to_vec(), b"abcde");
    /// assert_eq!(all.offsets().collect::<Vec<_>>(), [0, 2, 2, 5]);
    /// ```
    pub fn append(&mut self, next: Concat<U>) {
        let base = self.len();
        self.ends
            .extend(next.ends.into_iter().map(|end| base + end));
        self.runs.extend(next.runs);
    }
}

impl<U> Default for Concat<U> {
    /// No items.
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            ends: Vec::new(),
        }
    }
}

/// One range of items done by [`map_concat`]: where it starts, each item's output length,
/// and the outputs one after another.
struct Run<U> {
    start: usize,
    lens: Vec<usize>,
    out: Vec<U>,
}

/// Runs `f(item, out)` over `items` on `threads` threads (the caller among them), where `f`
/// appends the item's output to `out`, and returns every output concatenated in input order.
///
/// Each thread appends the outputs of a whole range of items to one growing vector, so there
/// is no vector per item to allocate and then copy. If `f` fails on some items, the error of
/// the first of them (in input order) is returned.
///
/// ```
/// let words = ["ab", "", "cde"];
/// let all = tokensmith_core::parallel::map_concat(&words, 2, |w, out: &mut Vec<u8>| {
///     out.extend(w.bytes());
///     Ok::<(), ()>(())
/// })
/// .unwrap();
/// assert_eq!(all.to_vec(), b"abcde");
/// assert_eq!(all.offsets().collect::<Vec<_>>(), [0, 2, 2, 5]);
/// ```
pub fn map_concat<T: Sync, U: Copy + Send, E: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T, &mut Vec<U>) -> Result<(), E> + Sync,
) -> Result<Concat<U>, E> {
    let threads = threads_for(items.len(), threads);
    let ranges = Ranges::new(items.len(), threads);
    let runs = Mutex::new(Vec::new());
    // The first failing index seen so far: ranges that start after it need not run.
    let failed_at = AtomicUsize::new(usize::MAX);
    let failures = Mutex::new(Vec::new());
    let work = || {
        let mut mine = Vec::new();
        while let Some(r) = ranges.claim() {
            if r.start > failed_at.load(Ordering::Relaxed) {
                ranges.close();
                break;
            }
            let mut run = Run {
                start: r.start,
                lens: Vec::with_capacity(r.len()),
                out: Vec::new(),
            };
            for (i, item) in r.clone().zip(&items[r]) {
                let before = run.out.len();
                if let Err(e) = f(item, &mut run.out) {
                    failed_at.fetch_min(i, Ordering::Relaxed);
                    lock(&failures).push((i, e));
                    break;
                }
                run.lens.push(run.out.len() - before);
            }
            mine.push(run);
        }
        lock(&runs).append(&mut mine);
    };
    if threads == 1 {
        work();
    } else {
        with_helpers(threads, &work, work);
    }
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some((_, e)) = failures.into_iter().min_by_key(|&(i, _)| i) {
        return Err(e);
    }
    let mut runs = runs.into_inner().unwrap_or_else(|p| p.into_inner());
    runs.sort_unstable_by_key(|run| run.start);
    let mut ends = Vec::with_capacity(items.len());
    let mut total = 0;
    for run in &runs {
        for len in &run.lens {
            total += len;
            ends.push(total);
        }
    }
    let runs = runs.into_iter().map(|run| run.out).collect();
    Ok(Concat { runs, ends })
}

/// Results of [`map_streamed`], in completion order, as `(input index, result)`.
pub struct Streamed<'a, R> {
    rx: Receiver<(usize, Vec<R>)>,
    remaining: usize,
    /// Claims the next range no thread has taken yet and computes it on the calling thread,
    /// or returns `None` when every range is taken.
    claim: &'a (dyn Fn() -> Option<(usize, Vec<R>)> + Sync),
}

impl<R> Streamed<'_, R> {
    /// A chunk of results another thread has finished already, and the input index of its
    /// first item; `None` when none is waiting (or all have arrived). Unlike
    /// [`Streamed::next_chunk`], it neither computes nor waits: a caller that holds a lock
    /// (Python's GIL) can keep it while results are ready, and release it only to compute or
    /// to wait.
    pub fn ready_chunk(&mut self) -> Option<(usize, Vec<R>)> {
        if self.remaining == 0 {
            return None;
        }
        let (start, chunk) = self.rx.try_recv().ok()?;
        self.remaining = self.remaining.saturating_sub(chunk.len());
        Some((start, chunk))
    }

    /// The next finished chunk of results and the input index of its first item; `None` once
    /// all have arrived.
    ///
    /// When no other thread has a chunk ready, the calling thread computes the next untaken
    /// range itself instead of waiting; it blocks only once every range is taken.
    pub fn next_chunk(&mut self) -> Option<(usize, Vec<R>)> {
        if self.remaining == 0 {
            return None;
        }
        let (start, chunk) = match self.rx.try_recv() {
            Ok(done) => done,
            Err(_) => match (self.claim)() {
                Some(done) => done,
                None => match spin_for(|| self.rx.try_recv().ok()) {
                    Some(done) => done,
                    None => self.rx.recv().ok()?,
                },
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
/// Between serial steps the caller computes ranges itself (inside [`Streamed::next_chunk`]),
/// so `threads` threads are busy in all, never `threads` pool threads plus a caller that
/// competes with them for the cores.
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
    streamed(items, threads, Ranges::new, f, consume)
}

/// [`map_streamed`] for items that each hold much work (a group of texts rather than one
/// text): every thread takes one item at a time, and each result is handed over on its own.
///
/// With shares of what is left, the first claims are large: the caller, finding nothing ready
/// at the start, would compute a quarter of the items before consuming any result, and would
/// then face the helpers' results all at once at the end, when its serial step has nothing
/// left to overlap with. One item at a time, the caller computes only while no result waits,
/// its serial step keeps pace with the helpers, and at the end it waits for at most one item
/// per helper. A claim and a hand-over cost well under a microsecond, little next to an item
/// that takes tens of microseconds.
///
/// ```
/// let groups: Vec<Vec<u32>> = (0..10).map(|i| (0..i).collect()).collect();
/// let mut sizes = vec![0; groups.len()];
/// tokensmith_core::parallel::map_streamed_each(&groups, 2, |g| g.len(), |results| {
///     while let Some((start, chunk)) = results.next_chunk() {
///         assert_eq!(chunk.len(), 1);
///         sizes[start] = chunk[0];
///     }
/// });
/// assert_eq!(sizes, (0..10).collect::<Vec<usize>>());
/// ```
pub fn map_streamed_each<T: Sync, R: Send, O>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    consume: impl FnOnce(&mut Streamed<'_, R>) -> O,
) -> O {
    streamed(items, threads, |len, _| Ranges::one_by_one(len), f, consume)
}

/// How many texts a helper of [`map_streamed_texts`] takes at a time while many are left.
const HELPER_TEXTS: usize = 4;

/// [`map_streamed_each`] for items that each hold little work (one text of a few KB): the
/// caller still takes one item at a time, but a helper takes up to [`HELPER_TEXTS`] and hands
/// their results over together, single items again toward the end (a share of what is left,
/// as in [`map_streamed`]).
///
/// Each claim and each hand-over moves a few cache lines from one core to the other: with a
/// 4 KB English text encoded in some 9 microseconds, taking and handing over texts one at a
/// time cost the two threads together about 0.4 microseconds a text. The caller keeps taking
/// single items, so that it computes only while no result waits.
///
/// ```
/// let items: Vec<u32> = (0..100).collect();
/// let mut doubled = vec![0; items.len()];
/// tokensmith_core::parallel::map_streamed_texts(&items, 2, |x| x * 2, |results| {
///     while let Some((start, chunk)) = results.next_chunk() {
///         doubled[start..start + chunk.len()].copy_from_slice(&chunk);
///     }
/// });
/// assert_eq!(doubled, (0..100).map(|x| x * 2).collect::<Vec<u32>>());
/// ```
pub fn map_streamed_texts<T: Sync, R: Send, O>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    consume: impl FnOnce(&mut Streamed<'_, R>) -> O,
) -> O {
    let rule = |len, threads| Ranges::one_by_one_to_the_caller(len, threads, HELPER_TEXTS);
    streamed(items, threads, rule, f, consume)
}

/// [`map_streamed`] with the items handed out by the ranges `rule(len, threads)` makes, for
/// `len` items and the threads that will run.
fn streamed<T: Sync, R: Send, O>(
    items: &[T],
    threads: usize,
    rule: impl FnOnce(usize, usize) -> Ranges,
    f: impl Fn(&T) -> R + Sync,
    consume: impl FnOnce(&mut Streamed<'_, R>) -> O,
) -> O {
    let threads = threads_for(items.len(), threads);
    let ranges = rule(items.len(), threads);
    let (tx, rx) = channel();
    let run = |r: Range<usize>| (r.start, items[r].iter().map(&f).collect::<Vec<R>>());
    let claim = || ranges.claim().map(run);
    let mut streamed = Streamed {
        rx,
        remaining: items.len(),
        claim: &claim,
    };
    if threads == 1 {
        drop(tx);
        return consume(&mut streamed);
    }
    // One sender per helper, and none left here: if a helper dies (a panic in `f`), the
    // channel closes instead of leaving the caller waiting for its results forever.
    let senders = Mutex::new(vec![tx; threads - 1]);
    let helper = || {
        let Some(tx) = lock(&senders).pop() else {
            return;
        };
        while let Some(done) = ranges.claim_for_helper().map(run) {
            // The receiver outlives the helpers, so sending cannot fail.
            let _ = tx.send(done);
        }
    };
    with_helpers(threads, &helper, || {
        let out = consume(&mut streamed);
        // A consumer that stopped early wants no more results: leave the rest untaken.
        ranges.close();
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// Keeps the only helper of the 2-thread pool busy until the returned sender sends (or
    /// 30 s pass), so that work handed to it cannot start.
    fn occupy_the_helper() -> std::sync::mpsc::Sender<()> {
        let (release, wait) = channel::<()>();
        let started = Arc::new(AtomicBool::new(false));
        let flag = started.clone();
        pool(1).expect("a one-thread pool").spawn(move || {
            flag.store(true, Ordering::SeqCst);
            let _ = wait.recv_timeout(Duration::from_secs(30));
        });
        while !started.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        release
    }

    #[test]
    fn a_helper_lingers_a_quarter_of_the_call_at_most_a_millisecond() {
        assert_eq!(
            linger_for(Duration::from_micros(400)),
            Duration::from_micros(100)
        );
        assert_eq!(linger_for(Duration::ZERO), Duration::ZERO);
        assert_eq!(linger_for(Duration::from_secs(3)), MAX_LINGER);
    }

    #[test]
    fn a_lingering_helper_stops_when_the_next_call_starts() {
        let (done, stopped) = channel();
        let call = CALLS.load(Ordering::Relaxed);
        std::thread::spawn(move || {
            stay_awake(call, Duration::from_secs(600));
            let _ = done.send(());
        });
        let ran = AtomicUsize::new(0);
        with_helpers(
            2,
            &|| {
                ran.fetch_add(1, Ordering::Relaxed);
            },
            || (),
        );
        assert_eq!(ran.load(Ordering::Relaxed), 1, "the helper ran once");
        assert!(
            stopped.recv_timeout(Duration::from_secs(30)).is_ok(),
            "still lingering after the next call started"
        );
    }

    #[test]
    fn ranges_cover_every_index_once_in_order_shrinking_to_single_items() {
        for len in [0, 1, 2, 3, 7, 100, 1001] {
            let ranges = Ranges::new(len, 2);
            let mut taken = Vec::new();
            while let Some(r) = ranges.claim() {
                taken.push(r);
            }
            let flat: Vec<usize> = taken.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>(), "len {len}");
            let sizes: Vec<usize> = taken.iter().map(|r| r.len()).collect();
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
            assert_eq!(sizes.last().copied().unwrap_or(1), 1, "{sizes:?}");
            assert!(sizes.first().copied().unwrap_or(0) <= len.div_ceil(4).max(1));
        }
    }

    #[test]
    fn ranges_one_by_one_hand_out_each_index_alone_in_order() {
        for len in [0, 1, 2, 7, 100] {
            let ranges = Ranges::one_by_one(len);
            let mut taken = Vec::new();
            while let Some(r) = ranges.claim() {
                taken.push(r);
            }
            assert_eq!(taken, (0..len).map(|i| i..i + 1).collect::<Vec<_>>());
        }
    }

    #[test]
    fn helpers_claim_up_to_their_most_shrinking_to_single_items_and_the_caller_one() {
        for len in [0, 1, 5, 17, 100] {
            let ranges = Ranges::one_by_one_to_the_caller(len, 2, 4);
            let mut taken = Vec::new();
            // Alternately a caller's claim and a helper's.
            while let Some(mine) = ranges.claim() {
                assert_eq!(mine.len(), 1, "the caller takes one");
                taken.push(mine);
                let Some(helpers) = ranges.claim_for_helper() else {
                    break;
                };
                taken.push(helpers);
            }
            let flat: Vec<usize> = taken.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>(), "len {len}");
            let helper_sizes: Vec<usize> =
                taken.iter().skip(1).step_by(2).map(|r| r.len()).collect();
            assert!(
                helper_sizes.iter().all(|&n| (1..=4).contains(&n)),
                "{helper_sizes:?}"
            );
            if len >= 100 {
                assert_eq!(helper_sizes.first(), Some(&4), "{helper_sizes:?}");
                assert_eq!(helper_sizes.last(), Some(&1), "{helper_sizes:?}");
            }
        }
    }

    #[test]
    fn streamed_texts_hand_over_every_item_once_in_chunks_of_a_few() {
        for threads in [1, 2] {
            for len in [0, 1, 2, 3, 500] {
                let items: Vec<usize> = (0..len).collect();
                let mut chunks = Vec::new();
                map_streamed_texts(
                    &items,
                    threads,
                    |&x| x * 3,
                    |results| {
                        while let Some(done) = results.next_chunk() {
                            chunks.push(done);
                        }
                    },
                );
                assert!(chunks
                    .iter()
                    .all(|(_, c)| (1..=HELPER_TEXTS).contains(&c.len())));
                chunks.sort_unstable_by_key(|&(start, _)| start);
                let flat: Vec<usize> = chunks.into_iter().flat_map(|(_, c)| c).collect();
                let expected: Vec<usize> = items.iter().map(|x| x * 3).collect();
                assert_eq!(flat, expected, "threads {threads}, len {len}");
            }
        }
    }

    #[test]
    fn map_keeps_the_input_order() {
        for len in [0, 1, 2, 3, 1000] {
            let items: Vec<usize> = (0..len).collect();
            let out = map(&items, 2, |&x| x * 3 + 1);
            assert_eq!(out, items.iter().map(|x| x * 3 + 1).collect::<Vec<_>>());
        }
    }

    #[test]
    fn map_does_not_wait_for_a_busy_helper_to_start() {
        let release = Mutex::new(Some(occupy_the_helper()));
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..200).collect();
        let done = AtomicUsize::new(0);
        let threads = map(&items, 2, |_| {
            if done.fetch_add(1, Ordering::SeqCst) + 1 == items.len() {
                // Every item is done: free the helper so that the call can return.
                if let Some(tx) = lock(&release).take() {
                    let _ = tx.send(());
                }
            }
            std::thread::current().id()
        });
        assert_eq!(threads.len(), items.len());
        assert!(threads.iter().all(|&t| t == caller));
    }

    #[test]
    fn map_concat_matches_the_serial_concatenation() {
        let items: Vec<usize> = (0..777).collect();
        // Lengths 0..=6 in an irregular order, each output distinct.
        let emit = |&i: &usize, out: &mut Vec<u64>| {
            out.extend((0..(i * 7) % 5 + (i % 3)).map(|k| (i * 10 + k) as u64));
            Ok::<(), String>(())
        };
        let mut expected = Vec::new();
        let mut offsets = vec![0];
        for i in &items {
            emit(i, &mut expected).unwrap();
            offsets.push(expected.len());
        }
        for threads in [1, 2] {
            let all = map_concat(&items, threads, emit).unwrap();
            assert_eq!(all.to_vec(), expected);
            assert_eq!(all.len(), expected.len());
            assert_eq!(all.offsets().collect::<Vec<_>>(), offsets);
            assert_eq!(all.runs().flatten().count(), expected.len());
        }
        let none = map_concat(&[] as &[usize], 2, emit).unwrap();
        assert!(none.is_empty());
        assert_eq!(none.offsets().collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn map_concat_reports_the_first_failing_item_in_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        for threads in [1, 2] {
            for _ in 0..20 {
                let got = map_concat(&items, threads, |&i, out: &mut Vec<u32>| {
                    out.push(i as u32);
                    if i == 3 || i == 990 || i % 97 == 96 {
                        Err(i)
                    } else {
                        Ok(())
                    }
                });
                assert_eq!(got.unwrap_err(), 3);
            }
        }
    }

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
        // Every chunk must be computed by the calling thread while the helper is busy.
        let release = occupy_the_helper();
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

    #[test]
    fn ready_chunks_are_only_those_another_thread_finished() {
        // While the helper is busy nothing is ready, and asking computes nothing; the caller
        // computes a chunk only when it asks for the next one.
        let release = occupy_the_helper();
        let items: Vec<usize> = (0..50).collect();
        let computed = AtomicUsize::new(0);
        let seen = map_streamed_texts(
            &items,
            2,
            |&x| {
                computed.fetch_add(1, Ordering::SeqCst);
                x * 3
            },
            |results| {
                assert!(results.ready_chunk().is_none());
                assert_eq!(computed.load(Ordering::SeqCst), 0);
                assert_eq!(results.next_chunk(), Some((0, vec![0])));
                assert_eq!(computed.load(Ordering::SeqCst), 1);
                assert!(results.ready_chunk().is_none());
                let _ = release.send(());
                let mut seen = vec![0; items.len()];
                seen[0] = 1;
                while let Some((start, chunk)) =
                    results.ready_chunk().or_else(|| results.next_chunk())
                {
                    for (i, r) in (start..).zip(chunk) {
                        assert_eq!(r, i * 3);
                        seen[i] += 1;
                    }
                }
                assert!(results.ready_chunk().is_none(), "all have arrived");
                seen
            },
        );
        assert!(seen.iter().all(|&n| n == 1));
        assert_eq!(computed.load(Ordering::SeqCst), items.len());
    }

    #[test]
    fn streamed_each_hands_over_every_item_once_and_alone() {
        for threads in [1, 2] {
            for len in [0, 1, 2, 3, 500] {
                let items: Vec<usize> = (0..len).collect();
                let mut seen = vec![0; len];
                map_streamed_each(
                    &items,
                    threads,
                    |&x| x * 3,
                    |results| {
                        while let Some((start, chunk)) = results.next_chunk() {
                            assert_eq!(chunk, [start * 3], "threads {threads}, len {len}");
                            seen[start] += 1;
                        }
                    },
                );
                assert!(seen.iter().all(|&n| n == 1), "threads {threads}, len {len}");
            }
        }
    }

    #[test]
    fn streamed_each_caller_computes_one_item_at_a_time_when_the_pool_is_busy() {
        // The helper cannot start: every item is computed by the caller, one per chunk, so
        // the caller consumes each result before it computes the next item.
        let release = occupy_the_helper();
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..200).collect();
        let computed = AtomicUsize::new(0);
        let order = map_streamed_each(
            &items,
            2,
            |&x| {
                computed.fetch_add(1, Ordering::SeqCst);
                (x, std::thread::current().id())
            },
            |results| {
                let mut order = Vec::new();
                while let Some((start, chunk)) = results.next_chunk() {
                    assert_eq!(computed.load(Ordering::SeqCst), order.len() + 1);
                    order.extend(chunk.into_iter().map(|(x, t)| {
                        assert_eq!(t, caller);
                        assert_eq!(x as usize, start);
                        x
                    }));
                }
                let _ = release.send(());
                order
            },
        );
        assert_eq!(order, items);
    }

    #[test]
    #[should_panic(expected = "helper failed")]
    fn streamed_each_passes_a_panic_on_a_helper_to_the_caller() {
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..10_000).collect();
        map_streamed_each(
            &items,
            2,
            |&x| fails_on_a_helper(x, caller),
            |results| while results.next_chunk().is_some() {},
        );
    }

    #[test]
    #[should_panic(expected = "helper failed")]
    fn a_panic_on_a_helper_reaches_the_caller_instead_of_hanging_it() {
        let caller = std::thread::current().id();
        let items: Vec<u32> = (0..10_000).collect();
        map_streamed(
            &items,
            2,
            |&x| fails_on_a_helper(x, caller),
            |results| while results.next_chunk().is_some() {},
        );
    }

    /// Runs `child` in a process forked from this one and returns its exit status, or
    /// `None` if it has not exited after 30 s (it is then killed): a hang fails the test.
    #[cfg(unix)]
    fn in_forked_child(child: impl FnOnce() -> bool) -> Option<i32> {
        // SAFETY: the child runs only `child` and leaves by `_exit`, never returning into the
        // test harness, whose other threads it does not have.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)).unwrap_or(false);
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let start = Instant::now();
        let mut status = 0;
        while start.elapsed() < Duration::from_secs(30) {
            // SAFETY: `pid` is our child; `status` is a valid out pointer.
            if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
                return Some(libc::WEXITSTATUS(status));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, &mut status, 0);
        }
        None
    }

    #[cfg(unix)]
    #[test]
    fn every_function_works_in_a_child_forked_after_the_pools_ran() {
        use rayon::prelude::*;
        let items: Vec<u64> = (0..5000).collect();
        let expected: Vec<u64> = items.iter().map(|x| x * 3).collect();
        let run_all = || {
            let mapped = map(&items, 2, |x| x * 3);
            let concat = map_concat(&items, 2, |x, out: &mut Vec<u64>| {
                out.push(x * 3);
                Ok::<(), ()>(())
            });
            let mut streamed = vec![0; items.len()];
            map_streamed(
                &items,
                2,
                |x| x * 3,
                |results| {
                    while let Some((start, chunk)) = results.next_chunk() {
                        streamed[start..start + chunk.len()].copy_from_slice(&chunk);
                    }
                },
            );
            let summed: u64 = install(|| items.par_iter().map(|x| x * 3).sum());
            mapped == expected
                && concat.is_ok_and(|c| c.to_vec() == expected)
                && streamed == expected
                && summed == expected.iter().sum::<u64>()
        };
        // The parent's pools (and their threads) exist before the fork.
        assert!(run_all());
        assert_eq!(in_forked_child(run_all), Some(0));
        // A child of a child, too.
        assert_eq!(
            in_forked_child(|| in_forked_child(run_all) == Some(0)),
            Some(0)
        );
    }

    /// `x`, slowly on the calling thread (so that the helper claims work before the caller
    /// took it all), and a panic on any other thread.
    fn fails_on_a_helper(x: u32, caller: std::thread::ThreadId) -> u32 {
        if std::thread::current().id() != caller {
            panic!("helper failed");
        }
        std::thread::sleep(Duration::from_micros(20));
        x
    }
}
