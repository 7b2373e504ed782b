"""Memory-bounded BPE training: unbounded, exact (spill and merge) and approximate, one run.

Method
------
The corpus is ``benchmarks/train.py``'s (:func:`train.build_corpus`: the shared multilingual
text and Python code, every 50th line held out). First tokensmith trains unbounded; its word
table size (distinct pre-tokens, estimated as the core does: 80 bytes plus the word) and its
own peak RSS (``VmHWM``) are recorded. Then it trains twice more with ``max_memory`` set to
``--fraction`` (default 1/10) of that table (or, with ``--of peak``, of that peak RSS):
``count_mode="exact"`` and ``count_mode="approximate"``. Each run is its own process with 2
threads. Reported: wall time, peak RSS, spills/prunes, whether the merges equal the unbounded
ones, and held-out bytes per token.

With ``--sizes 5,50 --max-memory 5MB`` it answers another question instead: does a corpus 10x
larger train with no more peak RAM? Each corpus (built the same way) is trained unbounded, then
exact and approximate under the same ``--max-memory``, each run in its own process; the table
gives peak RSS per corpus size.

Usage::

    python benchmarks/train_bounded.py --mb 20
    python benchmarks/train_bounded.py --write       # 50 MB, appended to RESULTS.md
    python benchmarks/train_bounded.py --sizes 5,50 --max-memory 5MB --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import MB, cpu_model, git_revision, package_version, publish
from train import build_corpus, peak_rss_mib

RUNS = ("unbounded", "exact", "approximate")


def child(mode: str, corpus: Path, heldout: Path, vocab: int, budget: int) -> None:
    import tokensmith
    from tokensmith._core import count_words
    from tokensmith.corpus import Corpus
    from tokensmith.train.bounded_counts import count_bounded

    start = time.perf_counter()
    options: dict[str, Any] = {}
    if mode != "unbounded":
        options = {"max_memory": budget, "count_mode": mode}
    enc = tokensmith.train_bpe(files=[str(corpus)], vocab_size=vocab, **options)
    wall = time.perf_counter() - start
    rss = peak_rss_mib()
    report: dict[str, Any] = {"wall": wall, "rss_mib": rss}
    merges = b"".join(a + b"\0" + b + b"\n" for a, b in enc._bpe_merges or [])
    report["merges_sha256"] = hashlib.sha256(merges).hexdigest()
    if mode == "unbounded":
        blob = count_words(Corpus(str(corpus)), pattern=tokensmith.O200K_PATTERN)
        n = int.from_bytes(blob[8:16], "little")
        report["distinct"] = n
        report["table_bytes"] = n * 80 + (len(blob) - 16 - 12 * n)
    else:
        counted = count_bounded(
            Corpus(str(corpus)), pattern=tokensmith.O200K_PATTERN, max_memory=budget, mode=mode
        )
        report["spills"], report["prunes"] = counted.spills, counted.prunes
        report["lost_pairs"], report["total"] = counted.lost_pairs, counted.total
    lines = heldout.read_text(encoding="utf-8").splitlines()
    tokens = sum(len(ids) for ids in enc.encode_ordinary_batch(lines, num_threads=2))
    report["heldout_bytes_per_token"] = sum(len(x.encode("utf-8")) for x in lines) / tokens
    print(json.dumps(report))


def run(mode: str, args: argparse.Namespace, corpus: Path, heldout: Path, budget: int) -> Any:
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    cmd = [sys.executable, __file__, "--child", mode, "--corpus", str(corpus)]
    cmd += ["--heldout", str(heldout), "--vocab", str(args.vocab), "--budget", str(budget)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        code = subprocess.run(cmd, stdout=out, stderr=err, env=env, check=False).returncode
        out.seek(0)
        err.seek(0)
        if code != 0:
            return {"error": err.read().decode(errors="replace").strip().splitlines()[-1:]}
        return json.loads(out.read().decode().strip().splitlines()[-1])


def markdown(results: dict[str, Any], args: argparse.Namespace, corpus: Path, budget: int) -> str:
    base = results["unbounded"]
    lines = [
        f"## train_bounded.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}, tokensmith {package_version('tokensmith')}",
        f"- corpus: {corpus.stat().st_size / MB:.1f} MB ({corpus.name}), vocab {args.vocab:,}, "
        f"o200k pattern, 2 threads; unbounded word table: {base['distinct']:,} distinct "
        f"pre-tokens, about {base['table_bytes'] / MB:.1f} MB; max_memory = "
        f"{budget / MB:.2f} MB ({args.fraction:g} of the unbounded "
        f"{'table' if args.of == 'table' else 'peak RSS'})",
        "",
        "| run | wall | peak RSS | spills / prunes | merges = unbounded | held-out bytes/token "
        "| Δ compression |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {name} | {cells(r, base)}" for name, r in results.items()]
    return "\n".join(lines) + "\n"


def cells(r: dict[str, Any], base: dict[str, Any]) -> str:
    """One run's table cells after its name, compared with the unbounded run ``base``."""
    if "error" in r:
        return f"failed: {r['error']} | | | | | |"
    same = "yes" if r["merges_sha256"] == base["merges_sha256"] else "no"
    delta = r["heldout_bytes_per_token"] / base["heldout_bytes_per_token"] - 1
    work = f"{r.get('spills', 0)} / {r.get('prunes', 0)}"
    return (
        f"{r['wall']:.1f} s | {r['rss_mib']:.0f} MiB | {work} | {same} | "
        f"{r['heldout_bytes_per_token']:.4f} | {delta * 100:+.2f}% |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fraction", type=float, default=0.1, help="budget / unbounded size")
    parser.add_argument(
        "--of",
        choices=("table", "peak"),
        default="table",
        help="the unbounded size the fraction is taken of: word table or peak RSS",
    )
    parser.add_argument("--sizes", help="corpus sizes in MB, e.g. 5,50: the scaling table")
    parser.add_argument("--max-memory", help="with --sizes: the budget of every bounded run")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--child", choices=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--heldout", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.corpus, args.heldout, args.vocab, args.budget)
        return
    if args.sizes:
        scaling(args)
        return
    corpus, heldout = build_corpus(args.mb, args.seed)
    results: dict[str, Any] = {}
    print("unbounded ...", file=sys.stderr, flush=True)
    results["unbounded"] = run("unbounded", args, corpus, heldout, 0)
    if "error" in results["unbounded"]:
        sys.exit(f"unbounded training failed: {results['unbounded']['error']}")
    base = results["unbounded"]
    size = base["table_bytes"] if args.of == "table" else base["rss_mib"] * 2**20
    budget = int(size * args.fraction)
    for mode in ("exact", "approximate"):
        print(f"{mode} ...", file=sys.stderr, flush=True)
        results[mode] = run(mode, args, corpus, heldout, budget)
    publish(markdown(results, args, corpus, budget), args.write)


def scaling(args: argparse.Namespace) -> None:
    """Every run on every corpus size, under one budget (``--max-memory``)."""
    from tokensmith.train.bounded_counts import parse_memory

    if not args.max_memory:
        sys.exit("--sizes needs --max-memory (the same budget for every size)")
    budget = parse_memory(args.max_memory)
    sizes = [float(x) for x in args.sizes.split(",")]
    results: dict[float, dict[str, Any]] = {}
    corpora = {}
    for mb in sizes:
        corpora[mb] = build_corpus(mb, args.seed)
        results[mb] = {}
        for mode in RUNS:
            print(f"{mb:g} MB, {mode} ...", file=sys.stderr, flush=True)
            results[mb][mode] = run(mode, args, *corpora[mb], budget)
    publish(scaling_markdown(results, args, corpora, budget), args.write)


def scaling_markdown(
    results: dict[float, dict[str, Any]],
    args: argparse.Namespace,
    corpora: dict[float, tuple[Path, Path]],
    budget: int,
) -> str:
    lines = [
        f"## train_bounded.py --sizes (10x the corpus, same budget), "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs (shared; one run)",
        f"- tokensmith tree: {git_revision()}, tokensmith {package_version('tokensmith')}",
        f"- vocab {args.vocab:,}, o200k pattern, 2 threads, each run its own process; "
        f"max_memory = {budget / MB:.2f} MB for every bounded run",
        "",
        "| corpus | distinct pre-tokens (table) | run | wall | peak RSS | spills / prunes "
        "| merges = unbounded | held-out bytes/token | Δ compression |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mb, runs in results.items():
        base = runs["unbounded"]
        size = corpora[mb][0].stat().st_size / MB
        table = f"{base.get('distinct', 0):,} ({base.get('table_bytes', 0) / MB:.1f} MB)"
        lines += [
            f"| {size:.1f} MB | {table} | {name} | {cells(r, base)}" for name, r in runs.items()
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
