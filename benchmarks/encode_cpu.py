"""Single-thread encode speed by CPU time: tokensmith over tiktoken, and worst cases over prose.

On a machine shared with other jobs, wall time measures the neighbours as much as the encoder.
This script complements ``encode.py`` with the CPU time of this process (``time.process_time``,
user + system, all threads), which another process's load changes far less.

- Ratio to tiktoken: in each round, both libraries encode every document of a class (one call per
  document, list output) back to back, the order alternating; the ratio is taken within the round
  (paired) and the median over rounds is reported, with the range.
- Worst cases: one string of ``--worst-n`` characters per input of ``_common.WORST_CASES``, in this
  process after a warm-up; the cost per byte is divided by tokensmith's cost per byte on English
  prose from the same run (target: at most 3x). ``encode.py`` times the same inputs in a fresh
  process by wall time.

Usage::

    python benchmarks/encode_cpu.py                  # 1 MB per class, 5 rounds
    python benchmarks/encode_cpu.py --write          # and append the table to RESULTS.md
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
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
    worst_case_text,
)

CLASSES = ("English", "code", "multilingual")


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


def encoding_rows(name: str, corpus: dict[str, list[str]], rounds: int, worst_n: int) -> list[str]:
    import tokensmith

    ours = tokensmith.get_encoding(name)
    theirs = tiktoken_encoding(name)
    rows: list[str] = []
    prose_cost = 0.0
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
        size = utf8_size(docs)
        cost = statistics.median(seconds) / size
        if cls == "English":
            prose_cost = cost
        rows.append(
            f"| {name} | {cls} | {1 / cost / 1e6:.1f} | {statistics.median(ratios):.2f}× "
            f"({min(ratios):.2f}–{max(ratios):.2f}) |"
        )
    for key, (label, _) in WORST_CASES.items():
        text = worst_case_text(key, worst_n)
        ours.encode_ordinary(text[:1000])
        call = every_doc(ours.encode_ordinary, [text])
        try:
            took = statistics.median(cpu_seconds(call) for _ in range(3))
        except Exception as exc:  # an input the encoding refuses is reported, not fatal
            rows.append(f"| {name} | worst: {label} | {type(exc).__name__} | |")
            continue
        per_prose = took / len(text.encode("utf-8", errors="surrogatepass")) / prose_cost
        rows.append(f"| {name} | worst: {label} | {took:.3f} s | {per_prose:.2f}× prose/byte |")
    return rows


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--mb", type=float, default=1.0, help="MB per document class")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worst-n", type=int, default=1_000_000)
    parser.add_argument("--write", action="store_true", help="append the report to RESULTS.md")
    args = parser.parse_args(argv)
    corpus = load_corpus(args.mb, 0)
    rows = [
        "| encoding | input | tokensmith MB/s (CPU) | × tiktoken, CPU (range) |",
        "|---|---|---|---|",
    ]
    for name in ENCODINGS:
        rows += encoding_rows(name, corpus, args.rounds, args.worst_n)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = [
        f"## encode_cpu.py, {when}",
        "",
        f"- command: `python benchmarks/{' '.join(['encode_cpu.py', *argv])}`",
        f"- machine: {cpu_model()}; Python {sys.version.split()[0]}",
        f"- versions: tiktoken {package_version('tiktoken')}, tokensmith "
        f"{package_version('tokensmith')}; tree {git_revision()}",
        f"- {args.mb:g} MB per class (seed 0), {args.rounds} paired rounds, worst cases of "
        f"{args.worst_n:,} characters; CPU time of this process (user + system)",
        "",
    ]
    publish("\n".join(header + rows) + "\n", args.write)


if __name__ == "__main__":
    main(sys.argv[1:])
