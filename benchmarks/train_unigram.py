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
import os
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import MB, cpu_model, git_revision, package_version
from train import RESULTS, WORK_DIR, arguments, build_corpus, child, run_with_usage

TRAINERS = ("tokensmith", "sentencepiece")
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
    args = arguments(__doc__, TRAINERS)
    if args.child:
        child(args.child, args.corpus, args.heldout, args.vocab, CHILDREN)
        return
    corpus, heldout = build_corpus(args.mb, args.seed)
    results = {}
    for name in args.trainers:
        print(f"training {name} on {corpus.name} ...", file=sys.stderr, flush=True)
        results[name] = run_with_usage(name, corpus, heldout, args.vocab, script=__file__)
    report = markdown(results, args, corpus)
    print(report)
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


if __name__ == "__main__":
    main()
