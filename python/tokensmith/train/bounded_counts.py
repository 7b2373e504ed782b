"""Counting pre-tokens within a memory budget: ``train_bpe(..., max_memory=...)``.

The counting stage of training holds one table entry per distinct pre-token, and on a large,
varied corpus that table is what grows. With a budget, the Rust core
(``tokensmith_core::trainers::bounded_counts``) keeps its estimate of the table's size under
``max_memory`` bytes:

- ``mode="exact"``: when the table is full it is written, sorted, to a run file in a temporary
  directory and emptied; at the end the runs are merged k ways, streaming, into the final
  counts. The counts are exact, so the merges equal those of unbounded training. The final
  table itself (one entry per distinct pre-token, compactly serialized) is still needed by the
  merge loop, so the budget bounds the counting stage, not the merge loop.
- ``mode="approximate"``: when the table is full the words counted most often stay, and the
  others are cut in two at the character boundary nearest their middle, each half taking the
  word's count, until the table fits (a single character that must still go is dropped).
  Halves are often words already, so the table shrinks, and every byte pair inside a half
  keeps its occurrences. **Error bound:** for every pair of adjacent bytes, its count inside
  the counted pieces is never more than the true count and at most
  :attr:`BoundedCounts.lost_pairs` less (the occurrences cut apart, reported). What the
  approximation loses is long tokens built from rare words. The merge loop, too, then runs on
  at most the budget's worth of words. How close the result stays depends on how much of the
  corpus' mass sits in rare words: on the 0.6 MB committed test text (a third of its
  pre-tokens distinct) held-out compression moves by -0.4% with 9/10 of the table, -0.9%
  with 1/2 and -4.8% with 1/10; large corpora, where rare words carry less of the mass, lose
  less (``docs/datasets.md`` has the measurements).

An entry is estimated at 80 bytes plus its word's length (hash slot, key vector, count, heap
block); the batch being counted comes on top (4,096 texts, fewer under a small budget: see
:func:`chunk_texts`).

>>> parse_memory("2GB"), parse_memory("512MiB"), parse_memory(1000)
(2000000000, 536870912, 1000)
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from tokensmith.errors import InvalidTrainerOptionError

__all__ = ["BoundedCounts", "CountMode", "count_bounded", "parse_memory", "scale_options"]

CountMode = Literal["exact", "approximate"]

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_MEMORY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


@dataclass(frozen=True)
class BoundedCounts:
    """The result of :func:`count_bounded`."""

    blob: bytes
    """The counts, in the core's serialized format (``train_bpe_bytes(counts=...)`` reads it)."""
    spills: int
    """Sorted runs written to disk (exact mode)."""
    prunes: int
    """Rounds of cutting words in two (approximate mode)."""
    lost_pairs: int
    """Byte-pair occurrences cut apart (approximate mode; 0 when exact): no byte pair's count
    falls short of the truth by more."""
    total: int
    """Pre-tokens counted in all."""


def parse_memory(value: int | str) -> int:
    """A byte count from an int or a string such as ``"2GB"``, ``"1.5GiB"``, ``"800M"``.

    Decimal units (KB, MB, GB, TB; K, M, G, T) are powers of 1,000, binary ones (KiB, MiB,
    GiB, TiB) powers of 1,024.

    Raises:
        InvalidTrainerOptionError: the value is not a positive size.
    """
    if isinstance(value, bool):
        raise InvalidTrainerOptionError(f"max_memory={value!r} is not a size in bytes")
    if isinstance(value, int):
        size = value
    else:
        match = _MEMORY.match(str(value))
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise InvalidTrainerOptionError(
                f"max_memory={value!r} is not a size; write bytes or a number with a unit, "
                'such as "2GB" or "512MiB"'
            )
        size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise InvalidTrainerOptionError(f"max_memory={value!r} must be more than 0 bytes")
    return size


def chunk_texts(budget: int) -> int:
    """Texts counted between two checks of the budget: 4,096, fewer under small budgets, so
    that a batch's own table stays small beside the budget.

    >>> chunk_texts(10**9), chunk_texts(200_000), chunk_texts(1000)
    (4096, 97, 16)
    """
    return max(16, min(4096, budget // 2048))


def count_bounded(
    texts: Iterable[str],
    *,
    pattern: str,
    max_memory: int | str,
    mode: CountMode = "exact",
    spill_dir: str | None = None,
) -> BoundedCounts:
    """Counts the pre-tokens of ``texts`` (split by ``pattern``) within ``max_memory``.

    Exact mode spills into a fresh directory under ``spill_dir`` (default: the system's
    temporary directory), deleted afterwards.
    """
    from tokensmith._core import count_words_bounded

    if mode not in ("exact", "approximate"):
        raise InvalidTrainerOptionError(
            f'count_mode={mode!r} is not known; use "exact" or "approximate"'
        )
    budget = parse_memory(max_memory)
    work = tempfile.mkdtemp(prefix="tokensmith-counts-", dir=spill_dir)
    try:
        blob, spills, prunes, lost, total = count_words_bounded(
            texts,
            pattern=pattern,
            max_memory=budget,
            mode=mode,
            spill_dir=work,
            chunk_size=chunk_texts(budget),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return BoundedCounts(blob, spills, prunes, lost, total)


def scale_options(
    engine: str, address: str | None, max_memory: str | None, approximate: bool
) -> dict[str, Any]:
    """``train_bpe`` keyword arguments from the command line's scale options (checked there).

    >>> scale_options("local", None, "2GB", True)
    {'engine': 'local', 'address': None, 'max_memory': '2GB', 'count_mode': 'approximate'}
    """
    mode = "approximate" if approximate else "exact"
    return {"engine": engine, "address": address, "max_memory": max_memory, "count_mode": mode}
