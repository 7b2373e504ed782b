"""Train WordPiece with tokensmith and HF tokenizers on the same corpus, in one run.

Method: the corpus of ``train.py`` (shuffled multilingual text and Python code), its first
``--mb`` megabytes, as a list of lines. Each trainer runs once, one after the other, in this
process (the corpus read beforehand, not timed), with the same settings: BertNormalizer
(lowercase) + BertPreTokenizer, vocabulary ``--vocab``, BERT's five special tokens,
``min_frequency=2``. CPU time is this process's user + system time over the call. Also
timed: tokensmith's ``scoring="likelihood"`` (no HF peer). The vocabularies are compared as
sets (HF numbers ``##x`` variants in random order, which changes later merges a little).

Usage::

    python benchmarks/train_wordpiece.py            # 10 MB, vocab 30,000
    python benchmarks/train_wordpiece.py --write    # and append to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from _common import MB, cpu_model, git_revision, package_version
from train import RESULTS, corpus_lines

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _hf(lines: list[str], vocab: int) -> dict[str, int]:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab, special_tokens=SPECIALS, min_frequency=2, show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    vocab_map: dict[str, int] = tok.get_vocab()
    return vocab_map


def _ours(scoring: str) -> Callable[[list[str], int], dict[str, int]]:
    def train(lines: list[str], vocab: int) -> dict[str, int]:
        import tokensmith

        tok = tokensmith.train_wordpiece(
            lines, vocab_size=vocab, min_frequency=2, scoring=scoring  # type: ignore[arg-type]
        )
        return tok.get_vocab()

    return train


def _timed(train: Callable[[list[str], int], dict[str, int]], lines: list[str], vocab: int
           ) -> tuple[float, float, dict[str, int]]:
    t0, c0 = time.perf_counter(), os.times()
    out = train(lines, vocab)
    c1 = os.times()
    return time.perf_counter() - t0, (c1.user - c0.user) + (c1.system - c0.system), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=10.0)
    parser.add_argument("--vocab", type=int, default=30_000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    lines: list[str] = []
    size = 0
    for line in corpus_lines(0):
        if size >= args.mb * MB:
            break
        lines.append(line)
        size += len(line.encode()) + 1
    runs: dict[str, tuple[float, float, dict[str, Any]]] = {}
    for name, train in [("tokensmith", _ours("frequency")), ("hf-tokenizers", _hf),
                        ("tokensmith likelihood", _ours("likelihood"))]:
        runs[name] = _timed(train, lines, args.vocab)
    base = runs["tokensmith"][0]
    same = set(runs["tokensmith"][2]) & set(runs["hf-tokenizers"][2])
    rows = [
        f"| {name} | {wall:.1f} s | {cpu:.1f} s | {len(v):,} | {wall / base:.2f}× |"
        for name, (wall, cpu, v) in runs.items()
    ]
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n".join([
        f"## train_wordpiece.py, {now}",
        "",
        f"- command: `python benchmarks/train_wordpiece.py --mb {args.mb:g} --vocab {args.vocab}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}",
        f"- versions: tokensmith {package_version('tokensmith')}, "
        f"tokenizers {package_version('tokenizers')}",
        f"- corpus: {size / MB:.1f} MB, {len(lines):,} lines; one process, trainers in turn",
        "",
        "| trainer | wall | CPU | tokens | wall × tokensmith |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"tokensmith and HF share {len(same):,} of {len(runs['hf-tokenizers'][2]):,} tokens "
        "(HF numbers the ##x variants in random order, which moves later tie-breaks).",
        "",
    ])
    print(text)
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
