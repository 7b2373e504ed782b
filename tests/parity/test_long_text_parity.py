"""Long strings that are not all ASCII, in each of CPython's three storage kinds.

From ``_core.UTF8_CONVERT_FROM`` characters on (65,536), such a string is converted to UTF-8
by tokensmith itself rather than by CPython, and the string is left without a cached UTF-8
copy. Ids must not change: every call here is compared with tiktoken on real text, on both
sides of that length.
"""

from __future__ import annotations

import ctypes
import random
import sys

import pytest
from tokensmith import _core

CONVERT_FROM = _core.UTF8_CONVERT_FROM


def long_text(lines: list[str], keep, n: int) -> str:
    """The lines ``keep`` accepts, joined and repeated, cut to exactly ``n`` characters."""
    chosen = "".join(line for line in lines if keep(line))
    assert chosen, "no line of the sample fits"
    return (chosen * (n // len(chosen) + 1))[:n]


def widest(text: str) -> int:
    return max(map(ord, text))


def kinds(lines: list[str], n: int) -> dict[str, str]:
    """Text stored as Latin-1 (not ASCII), UCS-2 and UCS-4, each ``n`` characters."""
    latin1 = long_text(lines, lambda s: 127 < widest(s) < 256, n)
    ucs2 = long_text(lines, lambda s: 255 < widest(s) < 0x10000, n)
    # Astral characters are rare in the sample: an emoji after every line makes it UCS-4.
    ucs4 = long_text([line + "🙂" for line in lines], lambda s: True, n)
    assert 127 < widest(latin1) < 256
    assert 255 < widest(ucs2) < 0x10000
    assert widest(ucs4) >= 0x10000
    return {"latin1": latin1, "ucs2": ucs2, "ucs4": ucs4}


@pytest.mark.parametrize("n", [CONVERT_FROM - 1, CONVERT_FROM, 3 * CONVERT_FROM + 5])
def test_each_storage_kind_matches_tiktoken_on_every_call(pair, multilingual_lines, n):
    ours, ref = pair
    for kind, text in kinds(multilingual_lines, n).items():
        expected = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == expected, kind
        assert ours.encode(text, disallowed_special=()) == expected, kind
        assert ours.count(text) == len(expected), kind
        assert ours.encode_to_numpy(text).tolist() == expected, kind


def test_random_bytes_match_tiktoken(pair):
    ours, ref = pair
    rng = random.Random(7)
    text = rng.randbytes(3 * CONVERT_FROM).decode("utf-8", errors="replace")
    assert len(text) >= CONVERT_FROM
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_a_lone_surrogate_in_a_long_string_is_scrubbed_as_tiktoken_does(pair, multilingual_lines):
    ours, ref = pair
    text = kinds(multilingual_lines, 2 * CONVERT_FROM)["ucs2"]
    for bad in ["\ud800", "\udfff", "\ud83d"]:
        mid = len(text) // 2
        spoiled = text[:mid] + bad + text[mid:]
        assert ours.encode_ordinary(spoiled) == ref.encode_ordinary(spoiled), repr(bad)
        assert ours.count(spoiled) == len(ref.encode_ordinary(spoiled)), repr(bad)


def test_a_long_string_keeps_no_utf8_copy_and_a_short_one_does(pair, multilingual_lines):
    ours, _ = pair
    for kind, text in kinds(multilingual_lines, CONVERT_FROM).items():
        before = sys.getsizeof(text)
        ours.encode_ordinary(text)
        assert sys.getsizeof(text) == before, f"{kind}: a UTF-8 copy was left with the string"
    # Below the length, CPython's own copy is taken (and kept, for the next call).
    short = kinds(multilingual_lines, CONVERT_FROM - 1)["ucs2"]
    before = sys.getsizeof(short)
    ours.encode_ordinary(short)
    assert sys.getsizeof(short) > before


def test_a_long_string_with_cpythons_copy_already_uses_it(pair, multilingual_lines):
    ours, ref = pair
    text = kinds(multilingual_lines, 2 * CONVERT_FROM)["ucs4"]
    as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
    as_utf8.argtypes = [ctypes.py_object]
    as_utf8.restype = ctypes.c_void_p
    before = sys.getsizeof(text)
    assert as_utf8(text)
    assert sys.getsizeof(text) > before  # the copy is there
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_a_long_str_subclass_matches_tiktoken(pair, multilingual_lines):
    """A subclass of str is stored apart from its object, unlike a plain str."""

    class Text(str):
        pass

    ours, ref = pair
    for kind, text in kinds(multilingual_lines, CONVERT_FROM + 3).items():
        sub = Text(text)
        assert ours.encode_ordinary(sub) == ref.encode_ordinary(text), kind
        assert ours.count(sub) == len(ref.encode_ordinary(text)), kind
