"""How tokensmith's SentencePiece batch scales with threads, robust to other jobs on the machine.

Every round times, back to back in a rotated order and on ``encode_spm.py``'s lines: one
``encode`` call per line (list out), the batch on 1 thread, and the batch on ``--threads``
threads. Speed-ups are paired within a round (median over rounds, with the range).

On a shared machine a thread of the batch may wait for a core while another job runs, and the
wall-clock speed-up then says more about the other jobs than about the batch. So for each batch
call this also reads, per thread of this process, the time it ran and the time it waited to run
(``/proc/self/task/*/schedstat``, Linux only). ``busy speed-up`` is the 1-thread batch's run time
over the longest-running thread of the ``--threads`` batch: the speed-up the batch would show if
no thread ever waited for a core. ``waited`` is the run-queue wait of the ``--threads`` batch as
a share of its wall time (summed over threads; 0 on an idle machine). The garbage collector is
paused while timing, and each call's result is freed outside the timed part.

Usage::

    python benchmarks/batch_scaling_spm.py                 # the four encode_spm.py models
    python benchmarks/batch_scaling_spm.py --models en     # one of them (en, ja, unigram, bpe)
    python benchmarks/batch_scaling_spm.py --write         # and append to benchmarks/RESULTS.md

What it does not measure: sentencepiece (``encode_spm.py`` does), or piece (``str``) output.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tokensmith
from _common import MB, cpu_model, git_revision, publish
from batch_scaling import rotated_rounds, spread
from encode_spm import corpus, models

MODELS = {
    "en": "shipped unigram 1k (en)",
    "ja": "shipped unigram 8k (ja)",
    "unigram": "trained unigram 8k (multilingual)",
    "bpe": "trained bpe 8k (multilingual)",
}
TASKS = Path("/proc/self/task")


@dataclass(frozen=True)
class Timing:
    """One call: wall seconds, and per thread of the process the seconds it ran and waited."""

    wall: float
    run: dict[str, float]
    waited: dict[str, float]


def thread_times() -> dict[str, tuple[float, float]]:
    """Seconds each thread of this process has run, and waited to run, so far."""
    out = {}
    for task in TASKS.iterdir():
        try:
            run, wait, _ = (task / "schedstat").read_text().split()
        except OSError:  # the thread ended meanwhile
            continue
        out[task.name] = (int(run) / 1e9, int(wait) / 1e9)
    return out


def time_call(call: Callable[[], Any]) -> Timing:
    before = thread_times()
    start = time.perf_counter()
    result = call()
    wall = time.perf_counter() - start
    after = thread_times()
    del result  # freed outside the timed part
    run = {t: after[t][0] - before.get(t, (0.0, 0.0))[0] for t in after}
    waited = {t: after[t][1] - before.get(t, (0.0, 0.0))[1] for t in after}
    return Timing(wall, run, waited)


def row(label: str, lines: list[str], proto: bytes, threads: int, rounds: int) -> str:
    sp = tokensmith.SentencePieceProcessor(model_proto=proto)
    t = rotated_rounds(
        {
            "single": lambda: [sp.encode(x) for x in lines],
            "batch 1": lambda: sp.encode(lines, num_threads=1),
            "batch N": lambda: sp.encode(lines, num_threads=threads),
        },
        rounds,
        time_call,
    )
    mb = sum(len(x.encode()) for x in lines) / MB
    single, one, many = t["single"], t["batch 1"], t["batch N"]
    busy = [sum(a.run.values()) / max(b.run.values()) for a, b in zip(one, many, strict=True)]
    waited = statistics.median(sum(x.waited.values()) / x.wall for x in many)
    cpu = statistics.median(sum(x.run.values()) / x.wall for x in many)
    extra = statistics.median(
        sum(b.run.values()) / sum(a.run.values()) for a, b in zip(one, many, strict=True)
    )
    return (
        f"| {label} | {mb / statistics.median(x.wall for x in single):.1f} | "
        f"{mb / statistics.median(x.wall for x in many):.1f} | "
        f"{spread([a.wall / b.wall for a, b in zip(single, many, strict=True)])} | "
        f"{spread([a.wall / b.wall for a, b in zip(one, many, strict=True)])} | {spread(busy)} | "
        f"{cpu:.2f} | {extra:.2f} | {waited:.2f} |"
    )


def report(args: argparse.Namespace) -> str:
    lines = corpus(args.mb)
    protos = models()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    n = args.threads
    out = [
        f"## batch_scaling_spm.py, {now}",
        "",
        f"- command: `python benchmarks/batch_scaling_spm.py --mb {args.mb} --rounds {args.rounds} "
        f"--threads {n} --models {' '.join(args.models)}`; tree {git_revision()}",
        f"- machine: {cpu_model()} ({os.cpu_count()} cores), Python {platform.python_version()}; "
        f"load before the run: {open('/proc/loadavg').read().split()[0]}",
        f"- {len(lines):,} lines; {args.rounds} rounds; paired medians (min–max)",
        "",
        f"| model | single MB/s | batch {n} MB/s | batch {n} over single | "
        f"batch {n} over batch 1 | busy speed-up | cpu/wall | run time over batch 1 | "
        "waited/wall |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key in args.models:
        out.append(row(MODELS[key], lines, protos[MODELS[key]], n, args.rounds))
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="megabytes of text (default 4)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    publish(report(args), args.write)


if __name__ == "__main__":
    main()
