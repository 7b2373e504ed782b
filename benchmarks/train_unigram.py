"""Train a Unigram model with tokensmith and sentencepiece on the same corpus, in one run.

Method
------
The corpus is the one ``benchmarks/train.py`` builds (``--mb``, default 50 MB of real
multilingual text and code, shuffled with a fixed seed, every 50th line held out), and the two
trainers read the same file. Each trainer runs in its own fresh process (``--child``) with 2
threads: it reports its own peak RSS (``VmHWM``), and the parent reads its CPU time from
``os.wait4``. Wall time covers reading the corpus and training, not imports or saving.
Held-out compression is the UTF-8 bytes of the held-out lines over the tokens the trained
model gives them (each model encodes with its own library).

Settings, the same for both: ``model_type=unigram``, vocabulary ``--vocab`` (default
32,000), identity normalization (the only one tokensmith's trainer has yet; sentencepiece's
default is nmt_nfkc), character_coverage 0.9995, every other option at sentencepiece's
default, 2 threads.

Usage::

    python benchmarks/train_unigram.py --quick     # 5 MB, vocab 8,000
    python benchmarks/train_unigram.py --write     # 50 MB, appended to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
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

from _common import MB, cpu_model, git_revision, package_version
from train import WORK_DIR, build_corpus, peak_rss_mib

TRAINERS = ("tokensmith", "sentencepiece")
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
THREADS = 2


def train_tokensmith(corpus: Path, vocab: int) -> Any:
    import tokensmith

    sp = tokensmith.train_unigram(files=[str(corpus)], vocab_size=vocab, num_threads=THREADS)
    return lambda lines: sum(len(sp.encode(line)) for line in lines)


def train_spm(corpus: Path, vocab: int) -> Any:
    import sentencepiece as spm

    prefix = WORK_DIR / "spm-unigram"
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(prefix),
        vocab_size=vocab,
        model_type="unigram",
        normalization_rule_name="identity",
        num_threads=THREADS,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    return lambda lines: sum(len(ids) for ids in sp.encode(lines))


CHILDREN = {"tokensmith": train_tokensmith, "sentencepiece": train_spm}


def child(name: str, corpus: Path, heldout: Path, vocab: int) -> None:
    start = time.perf_counter()
    count_tokens = CHILDREN[name](corpus, vocab)
    wall = time.perf_counter() - start
    lines = heldout.read_text(encoding="utf-8").splitlines()
    tokens = count_tokens(lines)
    n_bytes = sum(len(x.encode("utf-8")) for x in lines)
    report = {"wall": wall, "heldout_bytes_per_token": n_bytes / tokens, "rss_mib": peak_rss_mib()}
    print(json.dumps(report))


def run_with_usage(name: str, corpus: Path, heldout: Path, vocab: int) -> dict[str, Any]:
    """Runs one child and reads its own CPU time from the kernel."""
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    cmd = [sys.executable, __file__, "--child", name, "--corpus", str(corpus)]
    cmd += ["--heldout", str(heldout), "--vocab", str(vocab)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code != 0:
            tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
            return {"error": " ".join(tail) or f"exit code {code}"}
        report: dict[str, Any] = json.loads(out.read().decode().strip().splitlines()[-1])
    report["cpu"] = usage.ru_utime + usage.ru_stime
    return report


def markdown(results: dict[str, dict[str, Any]], args: argparse.Namespace, corpus: Path) -> str:
    versions = ", ".join(
        f"{d} {package_version(d) or 'missing'}" for d in ("tokensmith", "sentencepiece")
    )
    lines = [
        f"## train_unigram.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}",
        f"- versions: {versions}",
        f"- corpus: {corpus.stat().st_size / MB:.1f} MB ({corpus.name}), Unigram, vocab "
        f"{args.vocab:,}, identity normalization, {THREADS} threads, each trainer in its own "
        "process",
        "",
        "| trainer | wall | CPU | peak RSS | held-out bytes/token | wall ÷ tokensmith's |",
        "|---|---|---|---|---|---|",
    ]
    ours = results.get("tokensmith", {}).get("wall")
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | failed: {r['error']} | | | | |")
            continue
        ratio = f"{r['wall'] / ours:.2f}×" if ours else ""
        lines.append(
            f"| {name} | {r['wall']:.1f} s | {r['cpu']:.1f} s | {r['rss_mib']:.0f} MiB | "
            f"{r['heldout_bytes_per_token']:.3f} | {ratio} |"
        )
    ts, sp = results.get("tokensmith", {}), results.get("sentencepiece", {})
    if "wall" in ts and "wall" in sp:
        lines += [
            "",
            f"tokensmith: {sp['wall'] / ts['wall']:.2f}× faster, peak RSS "
            f"{ts['rss_mib'] / sp['rss_mib']:.2f}× sentencepiece's, held-out bytes/token "
            f"{ts['heldout_bytes_per_token'] / sp['heldout_bytes_per_token'] - 1:+.2%}.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=50.0, help="training corpus size")
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trainers", nargs="*", default=list(TRAINERS), choices=TRAINERS)
    parser.add_argument("--quick", action="store_true", help="5 MB, vocab 8,000")
    parser.add_argument("--write", action="store_true", help=f"append to {RESULTS.name}")
    parser.add_argument("--child", choices=TRAINERS, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--heldout", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.corpus, args.heldout, args.vocab)
        return
    if args.quick:
        args.mb, args.vocab = 5.0, 8_000
    corpus, heldout = build_corpus(args.mb, args.seed)
    results = {}
    for name in args.trainers:
        print(f"training {name} on {corpus.name} ...", file=sys.stderr, flush=True)
        results[name] = run_with_usage(name, corpus, heldout, args.vocab)
    report = markdown(results, args, corpus)
    print(report)
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


if __name__ == "__main__":
    main()
