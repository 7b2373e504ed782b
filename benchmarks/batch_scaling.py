"""How tokensmith's batch calls scale with threads: batch time over single-call time, paired.

``encode.py`` times its single-thread and batch sections one after the other, so on a shared
machine the load can change between the two medians it divides. Here every round times, back to
back in a rotated order and on the same documents: one ``encode_ordinary`` call per document
(list out), the numpy batch on 1 thread, and the list and numpy batches on ``--threads`` threads.
Each speed-up is taken within a round (paired) and the report gives the median over rounds, with
the range. ``cpu/wall`` is process CPU time over wall time of the batch on ``--threads`` threads:
below the thread count, some thread was idle, waiting or descheduled. Documents and classes are
``encode.py``'s (``_common.load_corpus``); the garbage collector is paused while timing.

Every timed call drops its result before the next, as a user's loop does, so its time includes
CPython freeing the lists, one reference count an id, on the calling thread, with the GIL held: no
number of threads shortens it. ``free`` is that part of the single-call time, timed alone (the
lists made, then dropped under the clock), with its share of the single-call time.

Usage::

    python benchmarks/batch_scaling.py                  # both encodings, 1 MB per class
    python benchmarks/batch_scaling.py --write          # and append to benchmarks/RESULTS.md

What it does not measure: other libraries (``encode.py`` does), or more threads than cores.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import tokensmith
from _common import MB, cpu_model, git_revision, load_corpus, publish

Call = Callable[[], Any]
T = TypeVar("T")


def time_call(call: Call, min_seconds: float) -> tuple[float, float]:
    """Wall and process-CPU seconds per call, over as many calls as fit in ``min_seconds``."""
    gc.disable()
    try:
        runs = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < min_seconds:
            call()
            runs += 1
        return (time.perf_counter() - wall) / runs, (time.process_time() - cpu) / runs
    finally:
        gc.enable()


def time_free(call: Call, min_seconds: float) -> float:
    """Seconds per call spent dropping ``call``'s result, over as many calls as fit in
    ``min_seconds`` (making the results is not counted)."""
    gc.disable()
    try:
        runs, freeing, start = 0, 0.0, time.perf_counter()
        while time.perf_counter() - start < min_seconds:
            result = call()
            t = time.perf_counter()
            del result
            freeing += time.perf_counter() - t
            runs += 1
        return freeing / runs
    finally:
        gc.enable()


def calls(enc: tokensmith.Encoding, docs: list[str], threads: int) -> dict[str, Call]:
    return {
        "single": lambda: [enc.encode_ordinary(d) for d in docs],
        "numpy 1": lambda: enc.encode_ordinary_batch_to_numpy(docs, num_threads=1),
        "list N": lambda: enc.encode_ordinary_batch(docs, num_threads=threads),
        "numpy N": lambda: enc.encode_ordinary_batch_to_numpy(docs, num_threads=threads),
    }


def rotated_rounds(
    call_set: dict[str, Call], rounds: int, timer: Callable[[Call], T]
) -> dict[str, list[T]]:
    """Per call kind, ``timer``'s result once per round, after one warm-up call of each kind
    (caches, ints, the thread pool); the order rotates by one each round, the collector is
    paused."""
    names = list(call_set)
    for call in call_set.values():
        call()
    times: dict[str, list[T]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                times[name].append(timer(call_set[name]))
    finally:
        gc.enable()
    return times


def spread(ratios: list[float]) -> str:
    """Median (min–max) of paired ratios."""
    return f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})"


def ratio_cell(over: list[Any], under: list[Any]) -> str:
    """Median (min–max) of the paired ratios over[i].wall / under[i].wall."""
    return spread([a[0] / b[0] for a, b in zip(over, under, strict=True)])


def report(args: argparse.Namespace) -> str:
    corpus = load_corpus(args.mb, args.seed)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    n = args.threads
    lines = [
        f"## batch_scaling.py, {now}",
        "",
        f"- command: `python benchmarks/batch_scaling.py --mb {args.mb} --rounds {args.rounds} "
        f"--threads {n}`; tree {git_revision()}",
        f"- machine: {cpu_model()}, Python {platform.python_version()}; load before the run: "
        f"{open('/proc/loadavg').read().split()[0]}",
        f"- {args.rounds} rounds, each call repeated for at least {args.min_seconds} s; paired "
        "medians (min–max) of single-call time over batch time",
        "",
        f"| encoding | class | MB | single MB/s | list, {n} threads | numpy, {n} threads | "
        f"numpy {n} over numpy 1 | cpu/wall list, numpy | free, share of single |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.encodings:
        enc = tokensmith.get_encoding(name)
        for cls, docs in corpus.items():
            mb = sum(len(d.encode()) for d in docs) / MB
            call_set = calls(enc, docs, n)
            t = rotated_rounds(call_set, args.rounds, lambda c: time_call(c, args.min_seconds))
            single = statistics.median(w for w, _ in t["single"])
            load = [statistics.median(c / w for w, c in t[k]) for k in ("list N", "numpy N")]
            free = statistics.median(
                time_free(call_set["single"], args.min_seconds) for _ in range(args.rounds)
            )
            lines.append(
                f"| {name} | {cls} | {mb:.2f} | {mb / single:.0f} | "
                f"{ratio_cell(t['single'], t['list N'])} | "
                f"{ratio_cell(t['single'], t['numpy N'])} | "
                f"{ratio_cell(t['numpy 1'], t['numpy N'])} | {load[0]:.2f}, {load[1]:.2f} | "
                f"{free * 1e3:.2f} ms, {free / single:.0%} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="MB per document class (default 1)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-seconds", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--encodings", nargs="+", default=["cl100k_base", "o200k_base"], help="encodings to run"
    )
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    publish(report(args), args.write)


if __name__ == "__main__":
    main()
