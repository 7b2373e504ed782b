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

- single thread: each library's one-text encode, list out; where a library has a batch API with
  numpy output, that API on one thread is an extra row;
- batch: each library's batch API on 2 threads (rayon pools are sized by RAYON_NUM_THREADS=2);
- decode: each library's decode of tiktoken's ids of every document, in Mtok/s.

Worst cases (one string of ``--worst-n`` characters each: "a"*N, random CJK, random digits, random
bytes decoded with errors="replace", N spaces) and load time (import, construct and first encode of
o200k_base) run in a fresh process per measurement, see ``_isolated.py``. Each worst case is timed
after one warm-up call on a different string of the same kind, and so is its reference, English
prose (half the English documents, warmed up on the other half): the "cost/byte vs prose" row
compares CPU time per byte of two calls measured the same way. (Until 2026-11-30 that row divided a
cold first call by the warm single-thread prose speed of the main process.) A worst-case call that
passes ``--timeout`` is stopped and reported as a timeout; a Rust panic is reported as "panic".

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
from _isolated import LoadTime, WorstCase, run_load, run_worst_case  # noqa: E402
from _peers import PEERS, PEERS_BY_NAME, Peer  # noqa: E402
from _timing import (  # noqa: E402
    BASELINE,
    SUBJECT,
    Results,
    Row,
    Workload,
    cell_of,
    format_cell,
    measure,
    table,
    throughput_table,
)

RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"
WORST_COST_TARGET = 3.0  # tokensmith's cost per byte on a worst case, relative to prose
LOAD_ENCODING = "o200k_base"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------
# Rows: the calls that get timed
# --------------------------------------------------------------------------------------------------


def each_as_list(result: list[Sequence[int]]) -> list[list[int]]:
    return [list(ids) for ids in result]


def split_flat(result: tuple[Any, Any]) -> list[list[int]]:
    """(tokens, offsets) as one list per document: doc i is tokens[offsets[i]:offsets[i+1]]."""
    tokens, offsets = result
    return [tokens[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


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


def single_thread_rows(peers: dict[str, Peer]) -> list[Row]:
    rows = [
        Row(name, name, "list", encode_each(p.encode), each_as_list) for name, p in peers.items()
    ]
    for name, peer in peers.items():
        if peer.batch_numpy is not None:
            run = on_threads(peer.batch_numpy, 1)
            rows.append(Row(numpy_label(name, 1), name, "numpy", run, split_flat))
    return rows


def batch_rows(peers: dict[str, Peer], threads: int) -> list[Row]:
    rows = []
    for name, peer in peers.items():
        if peer.batch is not None:
            rows.append(Row(name, name, "list", on_threads(peer.batch, threads), each_as_list))
        if peer.batch_numpy is not None:
            run = on_threads(peer.batch_numpy, threads)
            rows.append(Row(numpy_label(name, threads), name, "numpy", run, split_flat))
    return rows


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
            missing[name] = f"{type(exc).__name__}: {exc}"[:200]
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


def run_encoding(
    encoding: str, corpus: dict[str, list[str]], peers: dict[str, Peer], args: argparse.Namespace
) -> EncodingRun:
    run = EncodingRun(encoding, encode_workloads(corpus, peers[BASELINE]))
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
    encoding: str, libraries: list[str], n: int, timeout: float
) -> dict[str, dict[str, WorstCase]]:
    """Per input, per library: one timed call in its own process."""
    results: dict[str, dict[str, WorstCase]] = {}
    for key in [PROSE_REFERENCE, *WORST_CASES]:
        results[key] = {}
        for library in libraries:
            log(f"  {encoding}: worst case {key}, {library}")
            results[key][library] = run_worst_case(library, encoding, key, n, timeout)
    return results


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


def speedup(one: Section, two: Section, w: Workload, single: str, batch: str) -> float | None:
    a = cell_of(one.rows, w, one.results, single)
    b = cell_of(two.rows, w, two.results, batch)
    return b.throughput / a.throughput if a and b else None


def batch_speedups(run: EncodingRun) -> str | None:
    """tokensmith's batch on 2 threads over its own single thread, for list and numpy output."""
    if run.single is None or run.batch is None:
        return None
    pairs = [("list", SUBJECT, SUBJECT)]
    pairs.append(("numpy", numpy_label(SUBJECT, 1), numpy_label(SUBJECT, BATCH_THREADS)))
    parts = []
    for kind, single, batch in pairs:
        for w in run.workloads:
            value = speedup(run.single, run.batch, w, single, batch)
            if value is not None:
                parts.append(f"{kind} {w.name} {value:.2f}×")
    if not parts:
        return None
    return f"{SUBJECT} batch speed-up over its own single thread: " + ", ".join(parts) + "."


def render_encoding(run: EncodingRun, rounds: int) -> str:
    parts = [f"### {run.encoding}"]
    if run.single:
        parts.append(render_section("Single-thread encode, MB/s", "MB/s", rounds, run.single))
    if run.batch:
        title = f"Batch encode on {BATCH_THREADS} threads, MB/s"
        parts.append(render_section(title, "MB/s", rounds, run.batch))
        parts.append(batch_speedups(run) or "")
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


def differs_from_reference(result: WorstCase, reference: WorstCase | None) -> bool:
    return (
        result.status == "ok"
        and reference is not None
        and reference.status == "ok"
        and reference.digest != result.digest
    )


def worst_cell(result: WorstCase, reference: WorstCase | None) -> str:
    if result.status == "ok" and result.seconds is not None:
        return f"{result.seconds:.3f} s" + (
            " ✗" if differs_from_reference(result, reference) else ""
        )
    if result.status == "timeout":
        return f"timeout, {result.detail}"
    return result.status


def worst_notes(by_key: dict[str, dict[str, WorstCase]]) -> list[str]:
    """One line per call that failed or gave ids other than tiktoken's."""
    notes = []
    for key, results in by_key.items():
        reference = results.get(BASELINE)
        for library, result in results.items():
            where = f"- {library}, {worst_label(key)}"
            if differs_from_reference(result, reference) and reference is not None:
                counts = f"{result.n_tokens} tokens, tiktoken {reference.n_tokens}"
                notes.append(f"{where}: ids differ from tiktoken's ({counts})")
            elif result.status not in ("ok", "timeout"):
                notes.append(f"{where}: {result.status}: {result.detail}")
    return notes


def prose_cost_ratio(result: WorstCase, prose: WorstCase | None) -> str:
    """CPU cost per byte on a worst case over that on prose, both timed the same way in a fresh
    process after a warm-up on a different string of the same kind: 1.0 means as fast as prose."""
    if result.status != "ok" or not result.cpu_seconds or not result.n_bytes:
        return "–"
    if prose is None or prose.status != "ok" or not prose.cpu_seconds or not prose.n_bytes:
        return "–"
    value = (result.cpu_seconds / result.n_bytes) / (prose.cpu_seconds / prose.n_bytes)
    verdict = "ok" if value <= WORST_COST_TARGET else "**over target**"
    return f"{value:.2f}× ({verdict})"


def worst_label(key: str) -> str:
    return "English prose (reference)" if key == PROSE_REFERENCE else WORST_CASES[key][0]


def render_worst_table(by_key: dict[str, dict[str, WorstCase]]) -> str:
    libraries = list(dict.fromkeys(lib for results in by_key.values() for lib in results))
    body = [
        [lib, *[worst_cell(by_key[key][lib], by_key[key].get(BASELINE)) for key in by_key]]
        for lib in libraries
    ]
    if SUBJECT in libraries:
        label = f"{SUBJECT} CPU cost/byte vs prose (target ≤ {WORST_COST_TARGET:g}×)"
        prose = by_key.get(PROSE_REFERENCE, {}).get(SUBJECT)
        body.append([label, *[prose_cost_ratio(by_key[key][SUBJECT], prose) for key in by_key]])
    text = table(["library", *[worst_label(key) for key in by_key]], body)
    notes = worst_notes(by_key)
    return text + ("\n\n" + "\n".join(notes) if notes else "")


def render_worst(worst: dict[str, dict[str, dict[str, WorstCase]]], n: int) -> str:
    intro = (
        f"### Worst cases: one string of {n:,} characters, seconds per call (wall)\n\n"
        "_Each call in a fresh process, after one warm-up call on a different string of the same "
        "kind (another seed, half the length); English prose (half the English documents, the "
        "other half as warm-up) is timed the same way as the reference. random CJK: "
        'U+4E00..U+9FFF; random bytes: bytes 0..255 decoded as UTF-8 with errors="replace"; all '
        "seeded. ✗ marks ids that differ from tiktoken's. The cost/byte row divides tokensmith's "
        "CPU seconds per byte on each input by its CPU seconds per byte on that prose._"
    )
    parts = [intro]
    for encoding, by_key in worst.items():
        parts.append(f"#### {encoding}\n\n" + render_worst_table(by_key))
    return "\n\n".join(parts)


def render_load(load: dict[str, LoadTime | str], encoding: str, repeats: int) -> str:
    body = []
    for library, result in load.items():
        if isinstance(result, str):
            body.append([library, "failed", result[:80], "", ""])
            continue
        ms = [f"{1000 * s:.0f} ms" for s in (result.import_s, result.construct_s)]
        first = f"{1000 * result.first_encode_s:.2f} ms"
        body.append([library, *ms, first, f"{1000 * result.start_to_first_s:.0f} ms"])
    header = ["library", "import", "construct", "first encode", "process start → first encode"]
    note = (
        f"_Fresh process per load, median of {repeats}. Peers built from the shared ranks parse "
        "the gzipped .tiktoken file in Python and import tiktoken_ext (for the pattern) while "
        "constructing._"
    )
    return "\n\n".join([f"### Load time, {encoding}", note, table(header, body)])


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
        for name, section in (("single", run.single), ("batch", run.batch), ("decode", run.decode)):
            if section is not None:
                lines += disagreements(run.encoding, name, section)
    if not lines:
        lines = ["Every row gave tiktoken's output on every benchmark document."]
    title = "### Exactness on the benchmark documents (worst cases are noted under their tables)"
    return title + "\n\n" + "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------

SECTIONS = ("single", "batch", "decode", "worst", "load")
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
                encoding, available(encoding), args.worst_n, args.timeout
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
