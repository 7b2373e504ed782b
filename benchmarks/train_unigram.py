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
32,000), nmt_nfkc normalization (``NORMALIZATION``, sentencepiece's default; tokensmith
builds the same charsmap itself, inside the timed call), character_coverage 0.9995, every other
option at sentencepiece's default, 2 threads.

Usage::

    python benchmarks/train_unigram.py --quick     # 5 MB, vocab 8,000
    python benchmarks/train_unigram.py --write     # 50 MB, appended to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from train import RESULTS, WORK_DIR, arguments, build_corpus, child, needs, run_with_usage
from train import markdown as train_markdown

TRAINERS = ("tokensmith", "sentencepiece")
THREADS = 2
# The normalization rule both trainers use.
NORMALIZATION = "nmt_nfkc"


@needs("tokensmith")
def train_tokensmith(corpus: Path, vocab: int) -> Any:
    import tokensmith

    sp = tokensmith.train_unigram(
        files=[str(corpus)],
        vocab_size=vocab,
        num_threads=THREADS,
        normalization_rule_name=NORMALIZATION,  # type: ignore[arg-type]
    )
    return lambda lines: sum(len(sp.encode(line)) for line in lines)


def sentencepiece_model(corpus: Path, vocab: int, model_type: str) -> Path:
    """Trains sentencepiece's ``model_type`` model with the benchmark's settings; its path."""
    import sentencepiece as spm

    prefix = WORK_DIR / f"spm-{model_type}"
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(prefix),
        vocab_size=vocab,
        model_type=model_type,
        normalization_rule_name=NORMALIZATION,
        num_threads=THREADS,
        minloglevel=2,
    )
    return Path(f"{prefix}.model")


@needs("sentencepiece")
def train_spm(corpus: Path, vocab: int) -> Any:
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(sentencepiece_model(corpus, vocab, "unigram")))
    return lambda lines: sum(len(ids) for ids in sp.encode(lines))


CHILDREN = {"tokensmith": train_tokensmith, "sentencepiece": train_spm}


def markdown(
    results: dict[str, dict[str, Any]],
    args: argparse.Namespace,
    corpus: Path,
    script: str = "train_unigram.py",
    model: str = f"Unigram, {NORMALIZATION} normalization, ",
) -> str:
    report = train_markdown(
        results,
        args,
        corpus,
        script=script,
        libraries=("tokensmith", "sentencepiece"),
        model=model,
    )
    ts, sp = results.get("tokensmith", {}), results.get("sentencepiece", {})
    if "wall" in ts and "wall" in sp:
        report += (
            f"\ntokensmith: {sp['wall'] / ts['wall']:.2f}× sentencepiece's speed (wall), peak RSS "
            f"{ts['rss_mib'] / sp['rss_mib']:.2f}× sentencepiece's, held-out bytes/token "
            f"{ts['heldout_bytes_per_token'] / sp['heldout_bytes_per_token'] - 1:+.2%}.\n"
        )
    return report


def compare(doc: str | None, children: dict[str, Any], script: str, model: str) -> None:
    """The command line of a tokensmith-versus-sentencepiece training benchmark: each trainer
    of ``children`` in its own process (``script --child``), one report."""
    args = arguments(doc, TRAINERS)
    if args.child:
        child(args.child, args.corpus, args.heldout, args.vocab, children)
        return
    corpus, heldout = build_corpus(args.mb, args.seed)
    results = {}
    for name in args.trainers:
        print(f"training {name} on {corpus.name} ...", file=sys.stderr, flush=True)
        results[name] = run_with_usage(name, corpus, heldout, args.vocab, script=script)
    report = markdown(results, args, corpus, script=Path(script).name, model=model)
    print(report)
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


def main() -> None:
    compare(__doc__, CHILDREN, __file__, f"Unigram, {NORMALIZATION} normalization, ")


if __name__ == "__main__":
    main()
