"""Paired timing of rows over workloads, exactness checks against a reference, and markdown tables.

A *row* is one way of calling one library (say, riptoken's single-text encode, list output); a
*workload* is a list of inputs with the outputs the reference gives for them (one table column).
``measure`` first runs every row once and compares each output with the reference, then times the
rows round by round, back to back on the same inputs, in an order rotated by one each round, with
the garbage collector paused during each timed call. ``summarize`` turns those times into medians
and paired ratios: within a round, the reference row's time over this row's time.

What this module does not handle: noise from other processes. It makes results comparable within
one run, not across machines or runs.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from _common import MB

BASELINE = "tiktoken"
SUBJECT = "tokensmith"


@dataclass(frozen=True)
class Workload:
    """Inputs for one table column, the outputs expected from them, and their size in units."""

    name: str
    inputs: list[Any]
    expected: list[Any]
    size: int


@dataclass(frozen=True)
class Row:
    """One timed call over a whole workload. ``unpack`` turns its result into one item per input."""

    label: str
    library: str
    output: str  # list | numpy | text: rows are only ranked against rows with the same output
    run: Callable[[list[Any]], Any]
    unpack: Callable[[Any], list[Any]]
    # what this row should give for one reference output (a count row: its length)
    expect: Callable[[Any], Any] | None = None


@dataclass
class Outcome:
    """What one row did on one workload: how often it disagreed with the reference; its times."""

    error: str | None = None
    mismatched: int = 0
    example: str = ""
    seconds: list[float] = field(default_factory=list)


Results = dict[str, dict[str, Outcome]]  # workload name -> row label -> outcome


# --------------------------------------------------------------------------------------------------
# Checking and timing
# --------------------------------------------------------------------------------------------------


def first_difference(expected: Any, got: Any) -> str:
    """Where two outputs first part, with a few items of context.

    >>> first_difference([1, 2, 3], [1, 5, 3])
    'at item 1 of 3 (got 3): reference [2, 3], this row [5, 3]'
    """
    if isinstance(expected, int) or isinstance(got, int):
        return f"expected {expected}, got {got}"
    if isinstance(expected, str) or isinstance(got, str):
        return f"text differs: expected {expected[:60]!r}, got {got[:60]!r}"
    pairs = enumerate(zip(expected, got, strict=False))
    at = next((i for i, (a, b) in pairs if a != b), min(len(expected), len(got)))
    return (
        f"at item {at} of {len(expected)} (got {len(got)}): "
        f"reference {expected[at : at + 6]}, this row {got[at : at + 6]}"
    )


def check(row: Row, workload: Workload) -> Outcome:
    """Run a row once (this is also its warm-up) and compare every item with the reference."""
    try:
        result = row.run(workload.inputs)
    except Exception as exc:  # a peer may refuse an input: report it rather than stop
        return Outcome(error=f"{type(exc).__name__}: {exc}"[:200])
    return check_result(row, workload, result)


def check_result(row: Row, workload: Workload, result: Any) -> Outcome:
    """Compare what a row returned for a workload with the reference, item by item."""
    try:
        got = row.unpack(result)
    except Exception as exc:
        return Outcome(error=f"{type(exc).__name__}: {exc}"[:200])
    if len(got) != len(workload.expected):
        return Outcome(error=f"returned {len(got)} results for {len(workload.expected)} inputs")
    outcome = Outcome()
    for index, (reference, actual) in enumerate(zip(workload.expected, got, strict=True)):
        expected = reference if row.expect is None else row.expect(reference)
        if expected != actual:
            if not outcome.mismatched:
                where = first_difference(expected, actual)
                outcome.example = f"{workload.name} item {index}: {where}"
            outcome.mismatched += 1
    return outcome


# A measurement repeats its workload until at least this long has passed. A fast library runs
# a megabyte in ~10 ms, where thread wake-ups and the shared machine's jitter would dominate.
MIN_SECONDS = 0.25


def time_once(run: Callable[[list[Any]], Any], inputs: list[Any]) -> float:
    """Seconds per run of ``run(inputs)``, averaged over as many runs as fit in MIN_SECONDS."""
    gc.collect()
    gc.disable()
    try:
        runs = 0
        start = time.perf_counter()
        while True:
            run(inputs)
            runs += 1
            elapsed = time.perf_counter() - start
            if elapsed >= MIN_SECONDS:
                return elapsed / runs
    finally:
        gc.enable()


def rotated(rows: list[Row], shift: int) -> list[Row]:
    """The rows starting at ``shift``, wrapping around.

    >>> [r.label for r in rotated([Row(x, x, "list", len, list) for x in "abc"], 1)]
    ['b', 'c', 'a']
    """
    if not rows:
        return []
    shift %= len(rows)
    return rows[shift:] + rows[:shift]


def measure(rows: list[Row], workloads: list[Workload], rounds: int) -> Results:
    """Check every row on every workload, then time the rows in rotating order, round by round."""
    results: Results = {}
    for workload in workloads:
        outcomes = {row.label: check(row, workload) for row in rows}
        timed = [row for row in rows if outcomes[row.label].error is None]
        for r in range(rounds):
            for row in rotated(timed, r):
                outcomes[row.label].seconds.append(time_once(row.run, workload.inputs))
        results[workload.name] = outcomes
    return results


# --------------------------------------------------------------------------------------------------
# Summaries: medians and paired ratios
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    throughput: float  # millions of units (bytes or tokens) per second
    vs_baseline: float | None
    vs_best: float | None


def paired_ratio(reference: list[float], seconds: list[float]) -> float:
    """Median over rounds of reference time / row time: above 1 means the row is faster."""
    return statistics.median(ref / s for ref, s in zip(reference, seconds, strict=True))


def throughput(size: int, seconds: list[float]) -> float:
    return statistics.median(size / s for s in seconds) / MB


def exact_and_timed(outcome: Outcome) -> bool:
    return outcome.error is None and not outcome.mismatched and bool(outcome.seconds)


def fastest_exact_peer(rows: list[Row], outcomes: dict[str, Outcome], output: str) -> str | None:
    """The exact, non-tokensmith row with this output kind and the lowest median time."""
    candidates = [
        row.label
        for row in rows
        if row.output == output and row.library != SUBJECT and exact_and_timed(outcomes[row.label])
    ]
    return min(candidates, key=lambda lb: statistics.median(outcomes[lb].seconds), default=None)


def summarize(
    rows: list[Row], workload: Workload, outcomes: dict[str, Outcome]
) -> tuple[dict[str, Cell], dict[str, str | None]]:
    """A cell per timed row, and the fastest exact peer per output kind."""
    baseline = outcomes.get(BASELINE)
    base_seconds = baseline.seconds if baseline and baseline.seconds else None
    best = {kind: fastest_exact_peer(rows, outcomes, kind) for kind in {r.output for r in rows}}
    cells = {}
    for row in rows:
        outcome = outcomes[row.label]
        if not outcome.seconds:
            continue
        best_label = best[row.output]
        cells[row.label] = Cell(
            throughput(workload.size, outcome.seconds),
            paired_ratio(base_seconds, outcome.seconds) if base_seconds else None,
            paired_ratio(outcomes[best_label].seconds, outcome.seconds) if best_label else None,
        )
    return cells, best


def cell_of(rows: list[Row], workload: Workload, results: Results, label: str) -> Cell | None:
    """The summarized cell of one row on one workload, if it was timed there."""
    outcomes = results.get(workload.name, {})
    if label not in outcomes:
        return None
    return summarize(rows, workload, outcomes)[0].get(label)


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def table(header: list[str], body: list[list[str]]) -> str:
    """A markdown table.

    >>> print(table(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def format_cell(cell: Cell | None, outcome: Outcome | None) -> str:
    """``throughput (× baseline · × best)``, with ✗ where the row disagreed with the reference."""
    if outcome is None:
        return "–"
    if outcome.error is not None:
        return "error"
    if cell is None:
        return "–"
    mark = " ✗" if outcome.mismatched else ""
    return f"{cell.throughput:.1f} ({ratio(cell.vs_baseline)} · {ratio(cell.vs_best)}){mark}"


def row_label(row: Row, results: Results) -> str:
    inexact = any(outcomes[row.label].mismatched for outcomes in results.values())
    return f"{row.label} **INEXACT**" if inexact else row.label


def throughput_table(
    rows: list[Row], workloads: list[Workload], results: Results
) -> tuple[str, list[str]]:
    """The table of one section, and per workload a note naming the fastest exact peers."""
    summaries = {w.name: summarize(rows, w, results[w.name]) for w in workloads}
    body = []
    for row in rows:
        cells = [
            format_cell(summaries[w.name][0].get(row.label), results[w.name][row.label])
            for w in workloads
        ]
        body.append([row_label(row, results), row.output, *cells])
    notes = []
    for w in workloads:
        best = summaries[w.name][1]
        named = ", ".join(f"{label} ({kind})" for kind, label in sorted(best.items()) if label)
        notes.append(f"{w.name}: {named or 'none'}")
    return table(["library", "out", *[w.name for w in workloads]], body), notes


@dataclass(frozen=True)
class Pair:
    """Two calls timed back to back: the median seconds of each, and two paired ratios (the
    median over rounds of ``b``'s time over ``a``'s), one of wall time and one of process CPU
    time. A ratio above 1 means ``a`` is faster."""

    wall_a: float
    wall_b: float
    wall_ratio: float
    cpu_ratio: float


def paired(
    a: Callable[[], object], b: Callable[[], object], rounds: int, gc_paused: bool = False
) -> Pair:
    """Times ``a()`` and ``b()`` back to back each round, alternating which goes first.

    On a shared machine other processes steal wall time from whichever call runs, so the ratio
    of the two calls of one round (and CPU time, which waiting does not count) is steadier than
    the ratio of two medians. The results are kept until the timer stops, so freeing them is not
    timed but building them is, and so is the garbage collector's work while they pile up unless
    ``gc_paused`` (then the collector is off during each call, as in ``timeit`` and
    ``measure``)."""
    walls: dict[str, list[float]] = {"a": [], "b": []}
    cpus: dict[str, list[float]] = {"a": [], "b": []}
    for r in range(rounds):
        order = [("a", a), ("b", b)] if r % 2 == 0 else [("b", b), ("a", a)]
        for name, fn in order:
            was_enabled = gc.isenabled()
            if gc_paused:
                gc.disable()
            wall, cpu = time.perf_counter(), time.process_time()
            kept = fn()
            walls[name].append(time.perf_counter() - wall)
            cpus[name].append(time.process_time() - cpu)
            if was_enabled:
                gc.enable()
            del kept
    med = statistics.median
    return Pair(
        med(walls["a"]),
        med(walls["b"]),
        med(tb / ta for ta, tb in zip(walls["a"], walls["b"], strict=True)),
        med(tb / max(ta, 1e-9) for ta, tb in zip(cpus["a"], cpus["b"], strict=True)),
    )


# --------------------------------------------------------------------------------------------------
# Cold: text the library has never seen in this process
# --------------------------------------------------------------------------------------------------


def cold_slices(workload: Workload, parts: int) -> list[Workload]:
    """The workload cut into ``parts`` disjoint slices (every ``parts``-th input), each keeping
    the whole workload's ``size`` so that throughputs stay in the same units; ``scale`` below
    converts a slice's time.

    >>> w = Workload("w", ["a", "bb", "c"], [[1], [2], [3]], 4)
    >>> [s.inputs for s in cold_slices(w, 2)]
    [['a', 'c'], ['bb']]
    """
    return [
        Workload(
            workload.name, workload.inputs[k::parts], workload.expected[k::parts], workload.size
        )
        for k in range(parts)
    ]


COLD_WARM_UP = "0"  # one digit: a single piece, a single token in every encoding


def measure_cold(
    rows: list[Row], workload: Workload, slices: list[Workload], size_of: Callable[[list[Any]], int]
) -> dict[str, Outcome]:
    """Each row runs once per slice (a round), never twice on one text, in rotated order.

    A single call's wall time is at the mercy of the shared machine, so each call is timed in CPU
    time of the calling thread (these rows are single-threaded). Times are scaled to the whole
    workload's size: ``size / slice size`` times the slice's time.
    """
    outcomes = {row.label: Outcome() for row in rows}
    for row in rows:
        # one-time set-up a library defers to its first call is not what "cold" measures
        try:
            row.run([COLD_WARM_UP])
        except Exception as exc:
            outcomes[row.label].error = f"{type(exc).__name__}: {exc}"[:200]
    for r, part in enumerate(slices):
        scale = workload.size / max(1, size_of(part.inputs))
        for row in rotated(rows, r):
            outcome = outcomes[row.label]
            if outcome.error is not None:
                continue
            gc.collect()
            gc.disable()
            try:
                start = time.thread_time()
                result = row.run(part.inputs)
                elapsed = time.thread_time() - start
            except Exception as exc:
                outcome.error = f"{type(exc).__name__}: {exc}"[:200]
                continue
            finally:
                gc.enable()
            checked = check_result(row, part, result)
            if checked.error is not None:
                outcome.error = checked.error
                continue
            if checked.mismatched and not outcome.mismatched:
                outcome.example = checked.example
            outcome.mismatched += checked.mismatched
            outcome.seconds.append(max(elapsed, 1e-9) * scale)
    return outcomes
