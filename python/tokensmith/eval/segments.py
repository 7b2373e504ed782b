"""Units of text that token counts are compared with: words, characters, numbers.

Fertility needs a "word". For languages that put spaces between words it is a run of
non-whitespace; for scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer,
Myanmar, Tibetan) it is a character. Real text mixes both ("解析 %s 失败"), so the default
``"mixed"`` segmentation makes every character of those scripts its own unit and keeps
whitespace words elsewhere: 解 / 析 / %s / 失 / 败.

Why not decide per corpus by the share of whitespace? On the parallel corpus the Chinese
translations are 22-25% whitespace (placeholders, option lists, column padding), more than the
German ones (13-17%), so that rule calls Chinese a spaced language. Deciding per character by
script does not depend on what else the text holds.

All spans are byte positions in the joined text of :class:`~tokensmith.eval.corpus.Geometry`,
and every function is vectorized.

>>> import numpy as np
>>> cps = np.array([ord(c) for c in "ab 解析"])
>>> int(whitespace_mask(cps).sum()), spaceless_mask(cps).tolist()
(1, [False, False, False, True, True])
"""

from __future__ import annotations

from functools import cache
from typing import Literal

import numpy as np
import numpy.typing as npt

from tokensmith.errors import InvalidArgumentError
from tokensmith.eval.adapters import IntArray
from tokensmith.eval.corpus import Geometry

Units = Literal["mixed", "words", "chars"]
BoolArray = npt.NDArray[np.bool_]

# Unicode blocks of scripts written without spaces between words (inclusive ranges).
SPACELESS_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x0F00, 0x0FFF),  # Tibetan (Dzongkha)
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended-B
    (0xAA60, 0xAA7F),  # Myanmar extended-A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half- and full-width forms
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


@cache
def _whitespace_codepoints() -> IntArray:
    # Every code point str.isspace() accepts is below U+3001.
    return np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.int64)


def whitespace_mask(codepoints: IntArray) -> BoolArray:
    """Which code points are whitespace (``str.isspace``)."""
    return np.isin(codepoints, _whitespace_codepoints())


def spaceless_mask(codepoints: IntArray) -> BoolArray:
    """Which code points belong to a script written without spaces."""
    mask = np.zeros(codepoints.shape, dtype=bool)
    for lo, hi in SPACELESS_RANGES:
        mask |= (codepoints >= lo) & (codepoints <= hi)
    return mask


@cache
def _bmp_decimal_table() -> BoolArray:
    return np.fromiter((chr(c).isdecimal() for c in range(_BMP)), dtype=bool, count=_BMP)


_BMP = 0x10000


def decimal_mask(codepoints: IntArray) -> BoolArray:
    """Which code points are decimal digits in any script (``str.isdecimal``).

    A table answers the Basic Multilingual Plane in one vectorized lookup; ``str.isdecimal``
    runs once per *distinct* code point above it.

    >>> decimal_mask(np.array([ord(c) for c in "a1٣𝟘x"])).tolist()
    [False, True, True, True, False]
    """
    codepoints = np.asarray(codepoints, dtype=np.int64)
    low = codepoints < _BMP
    out = np.zeros(codepoints.shape, dtype=bool)
    out[low] = _bmp_decimal_table()[codepoints[low]]
    if not low.all():
        high = codepoints[~low]
        distinct, inverse = np.unique(high, return_inverse=True)
        flags = np.fromiter((chr(c).isdecimal() for c in distinct.tolist()), dtype=bool)
        out[~low] = flags[inverse.reshape(-1)]
    return out


def _previous(mask: BoolArray, fill: bool) -> BoolArray:
    out = np.empty_like(mask)
    out[0:1] = fill
    out[1:] = mask[:-1]
    return out


def unit_spans(geo: Geometry, units: Units = "mixed") -> tuple[IntArray, IntArray]:
    """Byte ``(starts, ends)`` of every word-like unit.

    Args:
        geo: The joined text.
        units: ``"words"``: runs of non-whitespace. ``"chars"``: every non-whitespace
            character. ``"mixed"``: words, except that each character of a spaceless script
            is a unit of its own.
    """
    cps = geo.codepoints
    if cps.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    inside = ~whitespace_mask(cps)
    if units == "chars":
        first = inside
    else:
        first = inside & ~_previous(inside, False)
        if units == "mixed":
            alone = spaceless_mask(cps) & inside
            first |= alone | (inside & _previous(alone, False))
        elif units != "words":
            raise InvalidArgumentError(f"units must be 'mixed', 'words' or 'chars', not {units!r}")
    nxt_first = np.empty_like(first)
    nxt_first[:-1] = first[1:]
    nxt_first[-1:] = True
    nxt_inside = np.empty_like(inside)
    nxt_inside[:-1] = inside[1:]
    nxt_inside[-1:] = False
    last = inside & (~nxt_inside | nxt_first)
    starts = geo.byte_at_char[np.flatnonzero(first)]
    ends = geo.byte_at_char[np.flatnonzero(last) + 1]
    return starts, ends


def tokens_overlapping(
    token_starts: IntArray, token_ends: IntArray, starts: IntArray, ends: IntArray
) -> IntArray:
    """How many tokens overlap each span ``[starts[i], ends[i])``.

    A token ``[s, e)`` overlaps ``[a, b)`` when ``s < b`` and ``e > a``. Since ``s <= e``, the
    tokens with ``e <= a`` are a subset of those with ``s < b``, so the count is
    ``#{s < b} - #{e <= a}``: two binary searches over the sorted starts and ends.

    >>> tokens_overlapping(np.array([0, 2, 5]), np.array([2, 5, 6]),
    ...                    np.array([0, 3]), np.array([3, 6])).tolist()
    [2, 2]
    """
    s = np.sort(token_starts)
    e = np.sort(token_ends)
    before_end = np.searchsorted(s, ends, side="left")
    ended = np.searchsorted(e, starts, side="right")
    return (before_end - ended).astype(np.int64)


def digit_counts(geo: Geometry, token_starts: IntArray, token_ends: IntArray) -> IntArray:
    """How many decimal-digit characters each token spans.

    A digit counts for the token holding its first byte, so no digit is counted twice.
    """
    marks = np.zeros(int(geo.byte_at_char[-1]) + 1, dtype=np.int64)
    marks[geo.byte_at_char[np.flatnonzero(decimal_mask(geo.codepoints))] + 1] = 1
    before = np.cumsum(marks)
    return before[token_ends] - before[token_starts]
