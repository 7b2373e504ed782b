"""Measurements that need a fresh process: pathological inputs under a time limit, and load time.

The parent side (``run_worst_case``, ``run_load``) starts ``python _isolated.py worst|load ...``
and reads one JSON object from the child's last line of output.

Worst cases and their prose reference are timed the same way (``target_and_warmup``): the child
builds the library, makes one warm-up call on a *different* string of the same kind (the same
generator with another seed and half the length; for prose, the other half of the English
documents), then times one call on the target string, whose short pieces are therefore not in any
cache yet, while long ones never are. Both wall and CPU time of that call are reported; the
worst-case cost per byte is divided by the prose cost per byte measured this way, so one-off costs
(first touches of buffers, building the ints of ids never returned before) count on both sides.
The child arms a real-time interval timer for the warm-up and the timed call. Python installs no
handler for SIGALRM, so when the timer fires the kernel ends the child even inside native code that
holds the GIL; the parent reads that as a timeout. Exceptions are caught as ``BaseException``
because PyO3's PanicException derives from it. The child reports a sha256 of the ids, so the
parent can compare with tiktoken.

Load time: the parent passes its wall clock at spawn; the child times the import, the construction
and a first encode, and "start to first encode" covers interpreter start-up as well.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import signal
import statistics
import subprocess
import sys
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import english_documents, worst_case_text
from _peers import PEERS_BY_NAME

SCRIPT = Path(__file__).resolve()
LOAD_ALLOWANCE_S = 300.0  # for building the library in the child, on top of the call's time limit
WARMUP_TEXT = "Hello, world! Warm-up text, 123."
PROSE = "prose"  # the reference input of the worst cases: English prose, timed the same way
ALL_OF_IT = 1 << 40  # a byte budget larger than the English corpus


@dataclass(frozen=True)
class WorstCase:
    """One pathological call: its time, or why there is none."""

    status: str  # ok | panic | error | timeout | crash
    seconds: float | None = None
    cpu_seconds: float | None = None
    n_tokens: int | None = None
    digest: str | None = None
    n_bytes: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class LoadTime:
    import_s: float
    construct_s: float
    first_encode_s: float
    start_to_first_s: float


def median_worst_case(results: list[WorstCase]) -> WorstCase:
    """One figure for the same call made in several processes: the first that did not succeed,
    or the medians of the times, provided every call gave the same ids.

    >>> ok = [WorstCase("ok", s, s, 3, "d", 9) for s in (0.3, 0.1, 0.2)]
    >>> median_worst_case(ok).seconds
    0.2
    >>> median_worst_case([*ok, WorstCase("timeout", detail="> 60 s")]).status
    'timeout'
    >>> median_worst_case([ok[0], WorstCase("ok", 0.1, 0.1, 4, "e", 9)]).status
    'error'
    """
    for result in results:
        if result.status != "ok":
            return result
    if len({(r.digest, r.n_tokens) for r in results}) > 1:
        return WorstCase("error", detail="the same call gave different ids in different processes")
    first = results[0]
    return WorstCase(
        "ok",
        seconds=statistics.median(r.seconds for r in results if r.seconds is not None),
        cpu_seconds=statistics.median(r.cpu_seconds for r in results if r.cpu_seconds is not None),
        n_tokens=first.n_tokens,
        digest=first.digest,
        n_bytes=first.n_bytes,
    )


def ids_digest(ids: Sequence[int]) -> str:
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()


# --------------------------------------------------------------------------------------------------
# Child side
# --------------------------------------------------------------------------------------------------


def target_and_warmup(key: str, n: int) -> tuple[str, str]:
    """The string to time for ``key`` and a different string of the same kind to warm up on.

    ``key`` is one of ``_common.WORST_CASES`` (``n`` characters, seed 0; the warm-up has seed 1
    and ``n // 2`` characters, so it differs even for "a"×N), or ``PROSE``: every other document
    of the English corpus (about half of it, whatever ``n``), the warm-up being the rest.
    """
    if key == PROSE:
        docs = english_documents(ALL_OF_IT, 0)
        return "".join(docs[0::2]), "".join(docs[1::2])
    return worst_case_text(key, n, seed=0), worst_case_text(key, n // 2, seed=1)


def worst_case_child(
    library: str, encoding: str, key: str, n: int, timeout: float
) -> dict[str, Any]:
    text, warmup = target_and_warmup(key, n)
    peer = PEERS_BY_NAME[library].load(encoding)
    peer.encode(WARMUP_TEXT)
    result: dict[str, Any] = {"n_bytes": len(text.encode("utf-8", errors="surrogatepass"))}
    signal.setitimer(signal.ITIMER_REAL, 2 * timeout)
    try:
        peer.encode(warmup)
    except BaseException:  # the timed call below reports the failure
        pass
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        ids = peer.encode(text)
    except BaseException as exc:  # a Rust panic reaches Python as a BaseException
        signal.setitimer(signal.ITIMER_REAL, 0)
        kind = "panic" if "Panic" in type(exc).__name__ else "error"
        return result | {"status": kind, "detail": f"{type(exc).__name__}: {exc}"[:200]}
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    signal.setitimer(signal.ITIMER_REAL, 0)
    return result | {
        "status": "ok",
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "n_tokens": len(ids),
        "digest": ids_digest(list(ids)),
    }


def load_child(library: str, encoding: str, spawned_at: float) -> dict[str, Any]:
    spec = PEERS_BY_NAME[library]
    t0 = time.perf_counter()
    importlib.import_module(spec.module)
    t1 = time.perf_counter()
    peer = spec.load(encoding)
    t2 = time.perf_counter()
    peer.encode(WARMUP_TEXT)
    t3 = time.perf_counter()
    return {
        "import_s": t1 - t0,
        "construct_s": t2 - t1,
        "first_encode_s": t3 - t2,
        "start_to_first_s": time.time() - spawned_at,
    }


# --------------------------------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------------------------------


def last_json_line(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            return parsed
    return None


def stderr_tail(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def run_worst_case(library: str, encoding: str, key: str, n: int, timeout: float) -> WorstCase:
    """Time ``library`` on the pathological input ``key`` in a child process."""
    args = ["worst", library, encoding, key, str(n), str(timeout)]
    try:
        proc = subprocess.run(
            [sys.executable, str(SCRIPT), *args],
            capture_output=True,
            text=True,
            timeout=timeout + LOAD_ALLOWANCE_S,
        )
    except subprocess.TimeoutExpired:
        return WorstCase("timeout", detail="the child did not finish loading in time")
    if proc.returncode == -signal.SIGALRM:
        return WorstCase("timeout", detail=f"> {timeout:g} s")
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        return WorstCase("crash", detail=f"{name}: {stderr_tail(proc.stderr)}")
    parsed = last_json_line(proc.stdout)
    if proc.returncode != 0 or parsed is None:
        return WorstCase("error", detail=f"exit {proc.returncode}: {stderr_tail(proc.stderr)}")
    return WorstCase(**parsed)


def run_load(library: str, encoding: str) -> LoadTime | str:
    """Load time of ``library`` in a fresh process, or the reason it failed."""
    spawned_at = time.time()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "load", library, encoding, repr(spawned_at)],
        capture_output=True,
        text=True,
        timeout=LOAD_ALLOWANCE_S,
    )
    parsed = last_json_line(proc.stdout)
    if proc.returncode != 0 or parsed is None:
        return f"exit {proc.returncode}: {stderr_tail(proc.stderr)}"
    return LoadTime(**parsed)


# --------------------------------------------------------------------------------------------------
# Entry point of the child
# --------------------------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    worst = sub.add_parser("worst")
    worst.add_argument("library")
    worst.add_argument("encoding")
    worst.add_argument("key")
    worst.add_argument("n", type=int)
    worst.add_argument("timeout", type=float)
    load = sub.add_parser("load")
    load.add_argument("library")
    load.add_argument("encoding")
    load.add_argument("spawned_at", type=float)
    args = parser.parse_args(argv)
    if args.what == "worst":
        out = worst_case_child(args.library, args.encoding, args.key, args.n, args.timeout)
    else:
        out = load_child(args.library, args.encoding, args.spawned_at)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
