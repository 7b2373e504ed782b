"""Exact differences between two tokenizers' merge lists and normalizers, for ``diff``.

Merges (of BPE models, as ``"left right"`` strings) are compared as lists: the merges only
one side has, and the merges both have whose order differs. "Reordered" is the smallest set
of shared merges that, moved, make the two orders equal: the shared merges outside a longest
common ordering (a longest increasing run of B's ranks taken in A's order).

>>> found = merge_differences(["a b", "c d", "e f", "g h"], ["c d", "a b", "e f", "x y"])
>>> found["removed"], found["added"]
([{'rank': 3, 'merge': 'g h'}], [{'rank': 3, 'merge': 'x y'}])
>>> found["reordered"]
[{'merge': 'a b', 'rank_a': 0, 'rank_b': 1}]

Normalizers are compared field by field: each is flattened into ``path -> value`` (``normalizer.
normalizers[1].lowercase``), and each path whose value differs is listed with both values.

>>> field_differences({"type": "BertNormalizer", "lowercase": True},
...                   {"type": "BertNormalizer", "lowercase": False}, "normalizer")
[{'field': 'normalizer.lowercase', 'a': True, 'b': False}]
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from typing import Any

__all__ = ["field_differences", "flatten", "merge_differences"]

#: Longer strings (a compiled charsmap) are shown by length and digest.
_LONGEST_SHOWN = 80


def _longest_increasing(values: Sequence[int]) -> set[int]:
    """The positions of one longest strictly increasing subsequence of ``values``."""
    tails: list[int] = []  # the smallest last value of an increasing run of each length
    tail_at: list[int] = []  # the position of that value
    before = [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_at.append(i)
        else:
            tails[k], tail_at[k] = v, i
        before[i] = tail_at[k - 1] if k else -1
    out: set[int] = set()
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        out.add(i)
        i = before[i]
    return out


def merge_differences(a: Sequence[str] | None, b: Sequence[str] | None) -> dict[str, Any] | None:
    """The merges only A has (``removed``), only B has (``added``), and those both have in
    another order (``reordered``, with each side's rank); ``None`` when the lists are equal.
    A side without a merge list (not a BPE) counts as empty, and ``a_is_bpe``/``b_is_bpe``
    say which."""
    if a == b:
        return None
    left, right = list(a or []), list(b or [])
    rank_a = {m: i for i, m in reversed(list(enumerate(left)))}
    rank_b = {m: i for i, m in reversed(list(enumerate(right)))}
    shared = [m for i, m in enumerate(left) if rank_a[m] == i and m in rank_b]
    kept = _longest_increasing([rank_b[m] for m in shared])
    return {
        "a_is_bpe": a is not None,
        "b_is_bpe": b is not None,
        "removed": [{"rank": i, "merge": m} for i, m in enumerate(left) if m not in rank_b],
        "added": [{"rank": i, "merge": m} for i, m in enumerate(right) if m not in rank_a],
        "reordered": [
            {"merge": m, "rank_a": rank_a[m], "rank_b": rank_b[m]}
            for n, m in enumerate(shared)
            if n not in kept
        ],
    }


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """``{"a": {"b": [1, 2]}}`` as ``{"a.b[0]": 1, "a.b[1]": 2}``; an empty dict or list,
    and any other value, is a leaf."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key in value:
            out.update(flatten(value[key], f"{path}.{key}" if path else str(key)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{path}[{i}]"))
        return out
    return {path: value}


def _shown(value: Any) -> Any:
    if isinstance(value, (str, bytes)) and len(value) > _LONGEST_SHOWN:
        data = value.encode("utf-8") if isinstance(value, str) else value
        return f"<{len(value)} chars, sha256 {hashlib.sha256(data).hexdigest()[:12]}>"
    return value


def field_differences(a: Any, b: Any, name: str) -> list[dict[str, Any]]:
    """Each field (a path under ``name``) whose value differs between ``a`` and ``b``, with
    both values (``None`` where a side lacks the field); long strings are shown by length
    and digest."""
    flat_a, flat_b = flatten(a, name), flatten(b, name)
    missing = object()
    out = []
    for path in list(flat_a) + [p for p in flat_b if p not in flat_a]:
        va, vb = flat_a.get(path, missing), flat_b.get(path, missing)
        if va is missing or vb is missing or va != vb or type(va) is not type(vb):
            out.append(
                {
                    "field": path,
                    "a": None if va is missing else _shown(va),
                    "b": None if vb is missing else _shown(vb),
                }
            )
    return out
