"""Time tokensmith's encoder against its peers side by side, in one run, and report ratios.

Method
------
Inputs (``_common.load_corpus``): English prose, Python source from the standard library and
multilingual text, each cut into ~4 KB documents on line boundaries and sampled with a fixed seed,
about ``--mb`` MB per class (English is capped at what ``docs/en.txt.gz`` holds, ~0.9 MB).

Exactness first: before a row is timed, its output on every document is compared with tiktoken's
``encode_ordinary`` (for decode rows: with the original text). A row that differs anywhere is still
timed, but is marked INEXACT and never counts as the "fastest exact peer".

Throughput (``_timing.measure``): ``--rounds`` rounds; in each round every row runs over the same
documents back to back, in an order rotated by one each round, with the garbage collector paused
during the timed loop. Each measurement repeats the workload until at least 0.25 s has passed
(``_timing.MIN_SECONDS``), so fast rows are not timed on a few milliseconds of a noisy machine.
A row's ratios to tiktoken and to the fastest exact peer are taken within each round (paired);
the report gives medians over rounds of the throughput and of the ratios. The
fastest exact peer is, per document class, the exact non-tokensmith row with the best median time
among rows with the same output kind (Python lists, or flat numpy arrays).

- cold (first): a single pass over text the library has never seen in this process. Each class's
  documents are cut into ``2 * rounds`` disjoint slices; in round r every library's one-text
  numpy call encodes slice r once and its list call slice ``rounds + r``, in rotated order, after
  one call on a one-digit text (lazy set-up is not "cold"). Each call is timed in the calling
  thread's CPU time, which the other jobs on a shared machine disturb less than wall time;
- single thread (warm: the same documents again and again): each library's one-text encode, list
  out; its one-text numpy encode and its count where it has them; where a library has a batch API
  with numpy output, that API on one thread is an extra row;
- batch: each library's batch API on 2 threads (rayon pools are sized by RAYON_NUM_THREADS=2);
- decode: each library's decode of tiktoken's ids of every document, in Mtok/s.

Worst cases (one string of ``--worst-n`` characters each: "a"*N, random CJK, random digits, random
bytes decoded with errors="replace", N spaces) and load time (import, construct and first encode of
o200k_base) run in a fresh process per measurement, see ``_isolated.py``. Each worst case is timed
after one warm-up call on a different string of the same kind (tokensmith in ``--rounds`` processes,
the median reported; the peers once), and so is its reference, English
prose (half the English documents, warmed up on the other half): the "cost/byte vs prose" row
compares CPU time per byte of two calls measured the same way. (Until 2026-11-30 that row divided a
cold first call by the warm single-thread prose speed of the main process.) A worst-case call that
passes ``--timeout`` is stopped and reported as a timeout; a Rust panic is reported as "panic".

Rows are ranked only against rows with the same output (list, numpy, count, numpy batch); a row
that differs from tiktoken anywhere is marked INEXACT and never ranked. The report closes each
encoding with tokensmith's paired ratios to the rows issue 26's targets name (gigatoken's numpy
encode, its ``as_tiktoken()`` lists, tiktoken).

The peers install with ``pip install -e '.[bench]'``; tokendagger builds from source and needs the
PCRE2 headers (Debian: ``libpcre2-dev``). A library that is missing or fails to build is reported
as unavailable.

Usage::

    python benchmarks/encode.py --quick      # smoke run: 0.3 MB per class, 2 rounds, N=100,000
    python benchmarks/encode.py --write      # full run, appended to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import gc
import os
import shlex
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BATCH_THREADS = 2
# Rayon-based peers size their pools from the environment, before their first parallel call.
os.environ["RAYON_NUM_THREADS"] = str(BATCH_THREADS)
os.environ["TOKENIZERS_PARALLELISM"] = "true"

from _common import (  # noqa: E402
    ENCODINGS,
    MB,
    WORST_CASES,
    cpu_model,
    git_revision,
    load_corpus,
    package_version,
    utf8_size,
)
from _isolated import PROSE as PROSE_REFERENCE  # noqa: E402
from _isolated import (  # noqa: E402
    LoadTime,
    WorstCase,
    median_worst_case,
    run_load,
    run_worst_case,
)
from _peers import PEERS, PEERS_BY_NAME, Peer, split_flat  # noqa: E402
from _report_isolated import render_load, render_worst  # noqa: E402
from _timing import (  # noqa: E402
    BASELINE,
    SUBJECT,
    Results,
    Row,
    Workload,
    cell_of,
    cold_slices,
    exact_and_timed,
    format_cell,
    measure,
    measure_cold,
    paired_ratio,
    table,
    throughput_table,
)

RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"
LOAD_ENCODING = "o200k_base"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------
# Rows: the calls that get timed
# --------------------------------------------------------------------------------------------------


def each_as_list(result: list[Sequence[int]]) -> list[list[int]]:
    return [list(ids) for ids in result]


def as_is(result: list[Any]) -> list[Any]:
    return result


def encode_each(encode: Callable[[str], Sequence[int]]) -> Callable[[list[str]], list[Any]]:
    return lambda docs: [encode(doc) for doc in docs]


def decode_each(decode: Callable[[Sequence[int]], str]) -> Callable[[list[Any]], list[str]]:
    return lambda batch: [decode(ids) for ids in batch]


def on_threads(batch: Callable[[list[str], int], Any], threads: int) -> Callable[[list[str]], Any]:
    return lambda docs: batch(docs, threads)


def numpy_label(name: str, threads: int) -> str:
    return f"{name} batch → numpy, {threads} thread{'s' if threads > 1 else ''}"


def numpy_batch_row(name: str, peer: Peer, threads: int) -> Row | None:
    if peer.batch_numpy is None:
        return None
    unpack = peer.batch_numpy_lists or split_flat
    run = on_threads(peer.batch_numpy, threads)
    return Row(numpy_label(name, threads), name, "numpy batch", run, unpack)


def list_rows(peers: dict[str, Peer]) -> list[Row]:
    """One call per document, Python list out."""
    return [
        Row(name, name, "list", encode_each(p.encode), each_as_list) for name, p in peers.items()
    ]


def numpy_rows(peers: dict[str, Peer]) -> list[Row]:
    """One call per document, one numpy array out."""
    return [
        Row(f"{name} → numpy", name, "numpy", encode_each(p.numpy), each_as_list)
        for name, p in peers.items()
        if p.numpy is not None
    ]


def single_thread_rows(peers: dict[str, Peer]) -> list[Row]:
    rows = list_rows(peers) + numpy_rows(peers)
    for name, peer in peers.items():
        if peer.count is not None:
            run = encode_each(peer.count)
            rows.append(Row(f"{name} count", name, "count", run, as_is, expect=len))
    rows += [row for name, p in peers.items() if (row := numpy_batch_row(name, p, 1))]
    return rows


# tokensmith's one-call-per-document list row, timed again in the batch section (see batch_rows)
SINGLE_IN_BATCH = f"{SUBJECT}, one call per doc"


def batch_rows(peers: dict[str, Peer], threads: int) -> list[Row]:
    """Each library's batch calls; tokensmith's single-thread rows too, timed in the same rounds,
    so that its speed-up over itself is a paired ratio (see batch_speedups)."""
    rows = []
    for name, peer in peers.items():
        if peer.batch is not None:
            rows.append(Row(name, name, "list", on_threads(peer.batch, threads), each_as_list))
        if row := numpy_batch_row(name, peer, threads):
            rows.append(row)
        if name == SUBJECT:
            rows.append(Row(SINGLE_IN_BATCH, name, "list", encode_each(peer.encode), each_as_list))
            if row := numpy_batch_row(name, peer, 1):
                rows.append(row)
    return rows


def cold_rows(peers: dict[str, Peer]) -> tuple[list[Row], list[Row]]:
    """The numpy rows and the list rows, each library's first calls in this process."""
    return numpy_rows(peers), list_rows(peers)


def decode_rows(peers: dict[str, Peer]) -> list[Row]:
    return [
        Row(name, name, "text", decode_each(peer.decode), as_is)
        for name, peer in peers.items()
        if peer.decode is not None
    ]


# --------------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------------


@dataclass
class Section:
    rows: list[Row]
    workloads: list[Workload]
    results: Results


@dataclass
class EncodingRun:
    """Everything measured in this process for one encoding."""

    encoding: str
    workloads: list[Workload]
    cold: Section | None = None
    single: Section | None = None
    batch: Section | None = None
    decode: Section | None = None


def load_peers(encoding: str, names: list[str]) -> tuple[dict[str, Peer], dict[str, str]]:
    """Every library that loads for this encoding, and why the others did not."""
    peers: dict[str, Peer] = {}
    missing: dict[str, str] = {}
    for name in names:
        try:
            peers[name] = PEERS_BY_NAME[name].load(encoding)
        except Exception as exc:  # a peer that fails to install or build is reported, not fatal
            why = " ".join(f"{type(exc).__name__}: {exc}".split())  # one table cell
            missing[name] = why[:200]
    return peers, missing


def encode_workloads(corpus: dict[str, list[str]], reference: Peer) -> list[Workload]:
    return [
        Workload(name, docs, [list(reference.encode(d)) for d in docs], utf8_size(docs))
        for name, docs in corpus.items()
    ]


def decode_workload(workloads: list[Workload]) -> Workload:
    inputs = [ids for w in workloads for ids in w.expected]
    texts = [doc for w in workloads for doc in w.inputs]
    return Workload("all classes", inputs, texts, sum(len(ids) for ids in inputs))


def measured(rows: list[Row], workloads: list[Workload], rounds: int) -> Section:
    return Section(rows, workloads, measure(rows, workloads, rounds))


def measured_cold(peers: dict[str, Peer], workloads: list[Workload], rounds: int) -> Section:
    """Before anything else runs: numpy rows on one half of the slices, list rows on the other."""
    numpy, lists = cold_rows(peers)
    results: Results = {}
    for w in workloads:
        slices = cold_slices(w, 2 * rounds)
        results[w.name] = measure_cold(numpy, w, slices[:rounds], utf8_size)
        results[w.name].update(measure_cold(lists, w, slices[rounds:], utf8_size))
    return Section(numpy + lists, workloads, results)


def run_encoding(
    encoding: str, corpus: dict[str, list[str]], peers: dict[str, Peer], args: argparse.Namespace
) -> EncodingRun:
    run = EncodingRun(encoding, encode_workloads(corpus, peers[BASELINE]))
    if "cold" in args.sections:
        log(f"  {encoding}: cold, one pass over text never seen")
        run.cold = measured_cold(peers, run.workloads, args.rounds)
    if "single" in args.sections:
        log(f"  {encoding}: single-thread encode")
        run.single = measured(single_thread_rows(peers), run.workloads, args.rounds)
    if "batch" in args.sections:
        log(f"  {encoding}: batch encode on {BATCH_THREADS} threads")
        run.batch = measured(batch_rows(peers, BATCH_THREADS), run.workloads, args.rounds)
    if "decode" in args.sections:
        log(f"  {encoding}: decode")
        run.decode = measured(decode_rows(peers), [decode_workload(run.workloads)], args.rounds)
    return run


def run_worst_cases(
    encoding: str, libraries: list[str], n: int, timeout: float, rounds: int
) -> dict[str, dict[str, WorstCase]]:
    """Per input, per library: one timed call in its own process, repeated in ``rounds``
    processes for tokensmith (its median is the figure the target reads), once for the peers.

    A 5-40 ms call timed once on a shared machine is at the mercy of one page-fault or
    scheduling spike: a single timing of random bytes once came out 35 ns a byte where the
    other calls took 22. Rounds go over every input in turn, so a slow spell touches each
    input's median about alike.
    """
    calls: dict[str, dict[str, list[WorstCase]]] = {
        key: {library: [] for library in libraries} for key in [PROSE_REFERENCE, *WORST_CASES]
    }
    for r in range(rounds):
        for key, by_library in calls.items():
            for library in libraries:
                if r > 0 and library != SUBJECT:
                    continue
                log(f"  {encoding}: worst case {key}, {library}, round {r + 1}")
                by_library[library].append(run_worst_case(library, encoding, key, n, timeout))
    return {
        key: {library: median_worst_case(results) for library, results in by_library.items()}
        for key, by_library in calls.items()
    }


def median_load(samples: list[LoadTime]) -> LoadTime:
    """Field by field median of several loads."""
    medians = {
        f.name: statistics.median(getattr(s, f.name) for s in samples) for f in fields(LoadTime)
    }
    return LoadTime(**medians)


def run_load_times(encoding: str, libraries: list[str], repeats: int) -> dict[str, LoadTime | str]:
    results: dict[str, LoadTime | str] = {}
    for library in libraries:
        log(f"  {encoding}: load time, {library}")
        samples = [run_load(library, encoding) for _ in range(repeats)]
        failure = next((s for s in samples if isinstance(s, str)), None)
        loads = [s for s in samples if isinstance(s, LoadTime)]
        results[library] = failure if failure is not None else median_load(loads)
    return results


# --------------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------------


def legend(unit: str, rounds: int) -> str:
    return (
        f"_Each cell: {unit} (× tiktoken · × fastest exact peer with the same output), "
        f"paired medians over {rounds} rounds; ✗ marks a class where the row disagreed "
        "with tiktoken._"
    )


def render_header(args: argparse.Namespace, corpus: dict[str, list[str]]) -> str:
    versions = ", ".join(
        f"{spec.name} {package_version(spec.distribution) or '(not installed)'}" for spec in PEERS
    )
    classes = ", ".join(
        f"{name} {utf8_size(docs) / MB:.2f} MB in {len(docs)} docs" for name, docs in corpus.items()
    )
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    python = sys.version.split()[0]
    return "\n".join(
        [
            f"## encode.py, {stamp}",
            "",
            f"- command: `{shlex.join(sys.orig_argv)}`",
            f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {python}",
            f"- versions: {versions}; tokensmith tree: {git_revision()}",
            f"- corpus (seed {args.seed}): {classes}",
            f"- rounds: {args.rounds}; batch threads: {BATCH_THREADS}; worst-case strings: "
            f"{args.worst_n:,} characters, limit {args.timeout:g} s per call",
        ]
    )


def availability_status(name: str, problems: dict[str, str]) -> str:
    if not problems:
        return "available"
    reasons = list(problems.values())
    if name == SUBJECT and all("ModuleNotFoundError" in why for why in reasons):
        return "**not built yet: skipped**"
    return "unavailable: " + "; ".join(f"{enc}: {why}" for enc, why in problems.items())


def render_libraries(availability: dict[str, dict[str, str | None]]) -> str:
    body = []
    for spec in PEERS:
        if spec.name in availability:
            problems = {enc: why for enc, why in availability[spec.name].items() if why}
            version = package_version(spec.distribution) or "–"
            status = availability_status(spec.name, problems)
            name = f"`{spec.module}` {version}"
            body.append([spec.name, name, spec.construction, spec.batch_note, status])
    header = ["library", "import name, version", "constructed as", "batch API", "status"]
    return "### Libraries\n\n" + table(header, body)


def render_section(title: str, unit: str, rounds: int, section: Section) -> str:
    text, notes = throughput_table(section.rows, section.workloads, section.results)
    best = "Fastest exact peer: " + "; ".join(notes)
    return "\n\n".join([f"#### {title}", legend(unit, rounds), text, best])


def paired_in(section: Section, w: Workload, row: str, reference: str) -> float | None:
    """The median over ``section``'s rounds of ``reference``'s time over ``row``'s on ``w``
    (above 1: ``row`` is faster), where both rows gave the right ids and were timed."""
    outcomes = section.results.get(w.name, {})
    a, b = outcomes.get(row), outcomes.get(reference)
    if a and b and exact_and_timed(a) and exact_and_timed(b):
        return paired_ratio(b.seconds, a.seconds)
    return None


def batch_speedups(run: EncodingRun) -> str | None:
    """tokensmith's batch on 2 threads over its own single thread, for list and numpy output.

    Both rows are timed in the batch section's rounds, in rotating order, and the ratio is taken
    within each round (median over rounds): the two rows see the same state of a shared machine,
    where a ratio of two sections' medians, timed minutes apart, moved by up to 0.5.
    """
    if run.batch is None:
        return None
    pairs = [
        ("list", SINGLE_IN_BATCH, SUBJECT),
        ("numpy", numpy_label(SUBJECT, 1), numpy_label(SUBJECT, BATCH_THREADS)),
    ]
    parts = []
    for kind, single, batch in pairs:
        for w in run.workloads:
            value = paired_in(run.batch, w, batch, single)
            if value is not None:
                parts.append(f"{kind} {w.name} {value:.2f}×")
    if not parts:
        return None
    return (
        f"{SUBJECT} batch speed-up over its own single thread (paired within the rounds of this "
        "section): " + ", ".join(parts) + "."
    )


COLD_TITLE = "Cold: single thread, one pass over text never seen in this process (CPU time), MB/s"


# issue 26's targets: (what, tokensmith's row, the other row, section) with paired ratios
TARGETS = (
    ("numpy out, one call per doc", "tokensmith → numpy", "gigatoken → numpy", "single"),
    ("list out, one call per doc", "tokensmith", "gigatoken", "single"),
    ("list out vs tiktoken", "tokensmith", "tiktoken", "single"),
    ("count vs gigatoken numpy", "tokensmith count", "gigatoken → numpy", "single"),
    ("numpy batch, 2 threads", numpy_label(SUBJECT, 2), numpy_label("gigatoken", 2), "batch"),
    ("list batch, 2 threads", "tokensmith", "gigatoken", "batch"),
    ("list batch over own single thread", SUBJECT, SINGLE_IN_BATCH, "batch"),
    ("cold numpy out", "tokensmith → numpy", "gigatoken → numpy", "cold"),
    ("cold list out", "tokensmith", "gigatoken", "cold"),
)


def render_targets(run: EncodingRun) -> str | None:
    """tokensmith's paired ratio to the row each target names, per document class."""
    body = []
    for what, ours, theirs, name in TARGETS:
        section = getattr(run, name)
        if section is None:
            continue
        cells = []
        for w in run.workloads:
            value = paired_in(section, w, ours, theirs)
            cells.append("–" if value is None else f"{value:.2f}×")
        body.append([what, f"{ours} / {theirs}", *cells])
    if not body:
        return None
    title = "#### tokensmith against the targets (paired ratio, above 1 means tokensmith is faster)"
    return title + "\n\n" + table(["target", "rows", *[w.name for w in run.workloads]], body)


def render_encoding(run: EncodingRun, rounds: int) -> str:
    parts = [f"### {run.encoding}"]
    if run.cold:
        parts.append(render_section(COLD_TITLE, "MB/s", rounds, run.cold))
    if run.single:
        parts.append(render_section("Single-thread encode, MB/s", "MB/s", rounds, run.single))
    if run.batch:
        title = f"Batch encode on {BATCH_THREADS} threads, MB/s"
        parts.append(render_section(title, "MB/s", rounds, run.batch))
        parts.append(batch_speedups(run) or "")
    parts.append(render_targets(run) or "")
    return "\n\n".join(p for p in parts if p)


def render_decode(runs: list[EncodingRun], rounds: int) -> str | None:
    decoded = [(run.encoding, run.decode) for run in runs if run.decode]
    if not decoded:
        return None
    labels = list(dict.fromkeys(row.label for _, section in decoded for row in section.rows))
    body = []
    for label in labels:
        cells = []
        for _, section in decoded:
            workload = section.workloads[0]
            outcome = section.results[workload.name].get(label)
            cells.append(
                format_cell(cell_of(section.rows, workload, section.results, label), outcome)
            )
        body.append([label, *cells])
    header = ["library", *[f"{encoding}" for encoding, _ in decoded]]
    note = "Decoding tiktoken's ids of every document, one call per document."
    return "\n\n".join(["### Decode, Mtok/s", legend("Mtok/s", rounds), note, table(header, body)])


def disagreements(encoding: str, section_name: str, section: Section) -> list[str]:
    lines = []
    for row in section.rows:
        for workload, outcomes in section.results.items():
            outcome = outcomes[row.label]
            where = f"- {encoding}, {section_name}, {row.label}, {workload}"
            if outcome.error:
                lines.append(f"{where}: error: {outcome.error}")
            elif outcome.mismatched:
                lines.append(f"{where}: {outcome.mismatched} items differ; {outcome.example}")
    return lines


def render_exactness(runs: list[EncodingRun]) -> str:
    lines = []
    for run in runs:
        sections = (
            ("cold", run.cold),
            ("single", run.single),
            ("batch", run.batch),
            ("decode", run.decode),
        )
        for name, section in sections:
            if section is not None:
                lines += disagreements(run.encoding, name, section)
    if not lines:
        lines = ["Every row gave tiktoken's output on every benchmark document."]
    title = "### Exactness on the benchmark documents (worst cases are noted under their tables)"
    return title + "\n\n" + "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------

SECTIONS = ("cold", "single", "batch", "decode", "worst", "load")
QUICK = {"mb": 0.3, "rounds": 2, "worst_n": 100_000}
FULL = {"mb": 3.0, "rounds": 5, "worst_n": 1_000_000}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--quick", action="store_true", help="smoke run: 0.3 MB per class, 2 rounds, N=100,000")
    add("--mb", type=float, help="MB per document class (default 3)")
    add("--rounds", type=int, help="timing rounds (default 5)")
    add("--worst-n", type=int, help="characters per worst-case string (default 1,000,000)")
    add("--timeout", type=float, default=60.0, help="seconds allowed per worst-case call")
    add("--seed", type=int, default=0, help="corpus sampling seed (default 0)")
    add("--encodings", nargs="+", choices=ENCODINGS, default=list(ENCODINGS))
    names = [spec.name for spec in PEERS]
    add("--libraries", nargs="+", choices=names, default=names, help="tiktoken always runs")
    add("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    add("--write", action="store_true", help=f"append the report to benchmarks/{RESULTS_FILE.name}")
    args = parser.parse_args(argv)
    for key, value in (QUICK if args.quick else FULL).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if BASELINE not in args.libraries:
        args.libraries.insert(0, BASELINE)
    return args


def append_results(report: str) -> None:
    if not RESULTS_FILE.exists():
        RESULTS_FILE.write_text("# Benchmark results\n\nAppended by `--write`, newest last.\n")
    with RESULTS_FILE.open("a", encoding="utf-8") as f:
        f.write("\n" + report + "\n")


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    log(f"loading corpus: {args.mb:g} MB per class, seed {args.seed}")
    corpus = load_corpus(args.mb, args.seed)
    runs: list[EncodingRun] = []
    availability: dict[str, dict[str, str | None]] = {name: {} for name in args.libraries}
    for encoding in args.encodings:
        log(f"{encoding}: loading libraries")
        peers, missing = load_peers(encoding, args.libraries)
        for name in args.libraries:
            availability[name][encoding] = missing.get(name)
        if BASELINE not in peers:
            sys.exit(f"tiktoken could not be built for {encoding}: {missing[BASELINE]}")
        runs.append(run_encoding(encoding, corpus, peers, args))
        del peers
        gc.collect()

    def available(encoding: str) -> list[str]:
        return [name for name in args.libraries if availability[name].get(encoding) is None]

    worst: dict[str, dict[str, dict[str, WorstCase]]] = {}
    if "worst" in args.sections:
        for encoding in args.encodings:
            worst[encoding] = run_worst_cases(
                encoding, available(encoding), args.worst_n, args.timeout, args.rounds
            )
    load_encoding = LOAD_ENCODING if LOAD_ENCODING in args.encodings else args.encodings[0]
    load_repeats = min(args.rounds, 3)
    load = {}
    if "load" in args.sections:
        load = run_load_times(load_encoding, available(load_encoding), load_repeats)

    parts = [render_header(args, corpus), render_libraries(availability)]
    parts += [render_encoding(run, args.rounds) for run in runs]
    parts.append(render_decode(runs, args.rounds) or "")
    parts.append(render_worst(worst, args.worst_n) if worst else "")
    parts.append(render_load(load, load_encoding, load_repeats) if load else "")
    parts.append(render_exactness(runs))
    report = "\n\n".join(p for p in parts if p)
    print(report)
    if args.write:
        append_results(report)
        log(f"appended to {RESULTS_FILE}")


if __name__ == "__main__":
    main(sys.argv[1:])
