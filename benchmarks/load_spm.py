"""Time to the first ids of a freshly loaded SentencePiece model: tokensmith against sentencepiece.

For each model, each round loads it from its bytes with each library in turn
(``SentencePieceProcessor(model_proto=...)``), encodes a short text (the first call, which
pays for anything built lazily) and another text (new words: the second call), and prints
the median of each time over the rounds and of load plus first call. The processors are
dropped (and collected) outside the timed spans.

    python benchmarks/load_spm.py [--rounds N] MODEL...
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import sentencepiece
import tokensmith

FIRST = "Hello world"
SECOND = "Другой текст 日本語"


def one_round(make: Callable[..., Any], proto: bytes) -> tuple[float, float, float]:
    """Milliseconds for the load, the first call and the second call."""
    t0 = time.perf_counter()
    sp = make(model_proto=proto)
    t1 = time.perf_counter()
    sp.encode(FIRST)
    t2 = time.perf_counter()
    sp.encode(SECOND)
    t3 = time.perf_counter()
    # A processor can sit in a reference cycle: collected here, its drop (milliseconds for a
    # large vocabulary) is not timed as part of a later round's load or call.
    del sp
    gc.collect()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    libraries: list[tuple[str, Callable[..., Any]]] = [
        ("tokensmith", tokensmith.SentencePieceProcessor),
        ("sentencepiece", sentencepiece.SentencePieceProcessor),
    ]
    for model in args.models:
        with open(model, "rb") as f:
            proto = f.read()
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in libraries}
        for r in range(args.rounds):
            # Alternating which goes first, as `_timing.paired` does.
            for name, make in libraries if r % 2 == 0 else libraries[::-1]:
                times[name].append(one_round(make, proto))
        print(model)
        for name, rows in times.items():
            load, first, second = (statistics.median(r[i] for r in rows) for i in range(3))
            both = statistics.median(r[0] + r[1] for r in rows)
            print(
                f"  {name:<13} load {load:.2f} ms, first call {first:.3f} ms, "
                f"second call {second:.3f} ms, load + first {both:.2f} ms (medians)"
            )


if __name__ == "__main__":
    main()
