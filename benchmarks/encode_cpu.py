"""Single-thread encode speed by CPU time: tokensmith over tiktoken, and worst cases over prose.

On a machine shared with other jobs, wall time measures the neighbours as much as the encoder.
This script complements ``encode.py`` with the CPU time of this process (``time.process_time``,
user + system, all threads), which another process's load changes far less.

- Ratio to tiktoken: in each round, both libraries encode every document of a class (one call per
  document, list output) back to back, the order alternating; the ratio is taken within the round
  (paired) and the median over rounds is reported, with the range.
- Worst cases: one string of ``--worst-n`` characters per input of ``_common.WORST_CASES``, each
  timed in ``--worst-repeats`` fresh processes exactly as ``encode.py`` does (``_isolated.py``: one
  warm-up call on a different string of the same kind, then the timed call), and so is the
  reference, English prose; the median CPU cost per byte is divided by that of prose (target: at
  most 3x), with the range over the repeats.
- Batch (``--batch``): in each round, tokensmith's one-call-per-document encode and
  ``encode_ordinary_batch(num_threads=2)`` (list output) run back to back on the same documents.
  Reported: the median wall speedup of the batch with its range (meaningful only when two cores
  are free), the CPU time of the batch over that of the single-thread calls (1.0: no parallel
  overhead), and the share of the batch's CPU time spent on the calling thread, which also builds
  the Python lists (per thread from ``/proc/self/task/*/schedstat``; Linux only). On a quiet
  2-core machine the wall time is at least half the batch's CPU time and at least the busiest
  thread's; the last column is the speedup that bound allows, ``single CPU / max(batch CPU / 2,
  busiest thread)``.

Usage::

    python benchmarks/encode_cpu.py                  # 1 MB per class, 5 rounds
    python benchmarks/encode_cpu.py --write          # and append the table to RESULTS.md
    python benchmarks/encode_cpu.py --batch --rounds 15   # batch(2) against one thread
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from _common import (
    ENCODINGS,
    WORST_CASES,
    cpu_model,
    git_revision,
    load_corpus,
    package_version,
    publish,
    tiktoken_encoding,
    utf8_size,
)
from _isolated import PROSE, run_worst_case
from _timing import SUBJECT

CLASSES = ("English", "code", "multilingual")
TIMEOUT_S = 60.0


def cpu_seconds(run: Callable[[], Any]) -> float:
    """CPU seconds of one call, with the garbage collector paused; the result is freed after."""
    gc.disable()
    start = time.process_time()
    kept = run()
    elapsed = time.process_time() - start
    gc.enable()
    del kept
    return elapsed


def every_doc(encode: Callable[[str], Any], docs: list[str]) -> Callable[[], Any]:
    return lambda: [encode(d) for d in docs]


def thread_cpu_seconds() -> dict[str, float]:
    """CPU seconds of each thread of this process so far, by thread id (empty off Linux)."""
    out = {}
    tasks = Path("/proc/self/task")
    for task in tasks.iterdir() if tasks.exists() else []:
        try:
            out[task.name] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            continue
    return out


def batch_rows(name: str, corpus: dict[str, list[str]], rounds: int) -> list[str]:
    import tokensmith

    ours = tokensmith.get_encoding(name)
    caller = str(threading.get_native_id())
    rows = []
    for cls in CLASSES:
        docs = corpus[cls]
        if ours.encode_ordinary_batch(docs, num_threads=2) != [
            ours.encode_ordinary(d) for d in docs
        ]:
            raise SystemExit(f"{name} {cls}: the batch differs from one call per document")
        speedups, cpu_ratios, caller_shares, bounds = [], [], [], []
        for _ in range(rounds):
            wall = time.perf_counter()
            single = cpu_seconds(every_doc(ours.encode_ordinary, docs))
            single_wall = time.perf_counter() - wall
            before = thread_cpu_seconds()
            wall = time.perf_counter()
            batch = cpu_seconds(partial(ours.encode_ordinary_batch, docs, num_threads=2))
            batch_wall = time.perf_counter() - wall
            after = thread_cpu_seconds()
            used = {t: after[t] - before.get(t, 0.0) for t in after}
            speedups.append(single_wall / batch_wall)
            cpu_ratios.append(batch / single)
            if used:
                caller_shares.append(used.get(caller, 0.0) / max(sum(used.values()), 1e-9))
                bounds.append(single / max(batch / 2, max(used.values())))
        share = f"{statistics.median(caller_shares):.0%}" if caller_shares else "–"
        bound = f"{statistics.median(bounds):.2f}×" if bounds else "–"
        rows.append(
            f"| {name} | {cls} | {statistics.median(speedups):.2f}× "
            f"({min(speedups):.2f}–{max(speedups):.2f}) | {statistics.median(cpu_ratios):.2f} "
            f"({min(cpu_ratios):.2f}–{max(cpu_ratios):.2f}) | {share} | {bound} |"
        )
    return rows


def worst_cost(name: str, key: str, n: int, repeats: int) -> list[float] | str:
    """CPU seconds per byte of tokensmith on input ``key``, one fresh process per repeat, or why
    there is none."""
    costs = []
    for _ in range(repeats):
        result = run_worst_case(SUBJECT, name, key, n, TIMEOUT_S)
        if result.status != "ok" or not result.cpu_seconds or not result.n_bytes:
            return f"{result.status}: {result.detail}"
        costs.append(result.cpu_seconds / result.n_bytes)
    return costs


def encoding_rows(
    name: str, corpus: dict[str, list[str]], rounds: int, worst_n: int, repeats: int
) -> list[str]:
    import tokensmith

    ours = tokensmith.get_encoding(name)
    theirs = tiktoken_encoding(name)
    rows: list[str] = []
    for cls in CLASSES:
        docs = corpus[cls]
        if any(ours.encode_ordinary(d) != theirs.encode_ordinary(d) for d in docs):
            raise SystemExit(f"{name} {cls}: tokensmith's ids differ from tiktoken's")
        ratios, seconds = [], []
        for r in range(rounds):
            order = [ours, theirs] if r % 2 == 0 else [theirs, ours]
            timed = {id(enc): cpu_seconds(every_doc(enc.encode_ordinary, docs)) for enc in order}
            seconds.append(timed[id(ours)])
            ratios.append(timed[id(theirs)] / timed[id(ours)])
        cost = statistics.median(seconds) / utf8_size(docs)
        rows.append(
            f"| {name} | {cls} | {1 / cost / 1e6:.1f} | {statistics.median(ratios):.2f}× "
            f"({min(ratios):.2f}–{max(ratios):.2f}) |"
        )
    prose_cost = worst_cost(name, PROSE, worst_n, repeats)
    for key, (label, _) in WORST_CASES.items():
        costs = worst_cost(name, key, worst_n, repeats)
        if isinstance(costs, str) or isinstance(prose_cost, str):
            failure = costs if isinstance(costs, str) else prose_cost
            rows.append(f"| {name} | worst: {label} | {failure} | |")
            continue
        ratios = [c / statistics.median(prose_cost) for c in costs]
        rows.append(
            f"| {name} | worst: {label} | {statistics.median(costs) * 1e9:.1f} ns/byte | "
            f"{statistics.median(ratios):.2f}× prose/byte ({min(ratios):.2f}–{max(ratios):.2f}) |"
        )
    return rows


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--mb", type=float, default=1.0, help="MB per document class")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worst-n", type=int, default=1_000_000)
    parser.add_argument("--worst-repeats", type=int, default=3, help="fresh processes per input")
    parser.add_argument("--encodings", nargs="+", default=list(ENCODINGS), choices=ENCODINGS)
    parser.add_argument("--batch", action="store_true", help="only the batch table, no worst cases")
    parser.add_argument("--write", action="store_true", help="append the report to RESULTS.md")
    args = parser.parse_args(argv)
    corpus = load_corpus(args.mb, 0)
    if args.batch:
        rows = [
            "| encoding | input | batch(2) wall speedup (range) | batch CPU / single CPU (range) "
            "| caller's share of batch CPU | speedup bound on 2 free cores |",
            "|---|---|---|---|---|---|",
        ]
        for name in args.encodings:
            rows += batch_rows(name, corpus, args.rounds)
    else:
        rows = [
            "| encoding | input | tokensmith MB/s (CPU) | × tiktoken, CPU (range) |",
            "|---|---|---|---|",
        ]
        for name in args.encodings:
            rows += encoding_rows(name, corpus, args.rounds, args.worst_n, args.worst_repeats)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = [
        f"## encode_cpu.py, {when}",
        "",
        f"- command: `python benchmarks/{' '.join(['encode_cpu.py', *argv])}`",
        f"- machine: {cpu_model()}; Python {sys.version.split()[0]}",
        f"- versions: tiktoken {package_version('tiktoken')}, tokensmith "
        f"{package_version('tokensmith')}; tree {git_revision()}",
        f"- {args.mb:g} MB per class (seed 0), {args.rounds} paired rounds"
        + (
            ", batch on 2 threads vs one call per document"
            if args.batch
            else f", worst cases of {args.worst_n:,} characters, {args.worst_repeats} fresh "
            "processes each; CPU time (user + system)"
        ),
        "",
    ]
    publish("\n".join(header + rows) + "\n", args.write)


if __name__ == "__main__":
    main(sys.argv[1:])
