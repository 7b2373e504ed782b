"""The UnicodeScripts pre-tokenizer compared with HF ``tokenizers`` on every code point: the
script table must be HF's (Unicode 9.0: no script for a code point assigned later), so the
pieces must be the same on texts that tell every script apart.

The texts: every code point in order (where consecutive code points change script); each code
point after ``a`` and after ``α`` (which tells a code point without a script from a Latin or
Greek one, and those from every other script); and, for the first code point of each run of
one script found in the ordered texts, that code point written before each other run's first
code point (which tells any two scripts apart). Each text is encoded by a WordLevel model that
knows no token, so the offsets are the pre-tokenizer's pieces.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import tokensmith

FILE = json.dumps(
    {
        "pre_tokenizer": {"type": "UnicodeScripts"},
        "model": {"type": "WordLevel", "vocab": {"<unk>": 0}, "unk_token": "<unk>"},
    }
)
CODE_POINTS = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
# Characters assigned in Unicode 10.0 to 15.0 (emoji, new scripts, CJK extensions): no script
# in HF's table; and characters whose script changed after 9.0.
RECENT = "\U0001f970\U00011a00\U0001b170\U00010eab\U00031350\U0001faf0\u0870\u0589\u061c\u0953"


@pytest.fixture(scope="module")
def both() -> tuple[Any, tokensmith.Tokenizer]:
    from tokenizers import Tokenizer as HfTokenizer

    return HfTokenizer.from_str(FILE), tokensmith.Tokenizer.from_str(FILE)


def pieces(tok: Any, texts: list[str]) -> list[list[tuple[int, int]]]:
    return [[tuple(o) for o in e.offsets] for e in tok.encode_batch(texts)]


def assert_same(both: tuple[Any, tokensmith.Tokenizer], texts: list[str]) -> None:
    hf, ours = both
    got, expected = pieces(ours, texts), pieces(hf, texts)
    bad = [t for t, g, e in zip(texts, got, expected, strict=True) if g != e]
    assert [[hex(ord(c)) for c in t[:8]] for t in bad[:3]] == []


def ordered_texts() -> list[str]:
    return ["".join(CODE_POINTS[i : i + 4096]) for i in range(0, len(CODE_POINTS), 4096)]


def test_code_points_in_order(both: tuple[Any, tokensmith.Tokenizer]) -> None:
    assert_same(both, ordered_texts())


@pytest.mark.parametrize("before", ["a", "α"])
def test_each_code_point_after_a_letter(
    both: tuple[Any, tokensmith.Tokenizer], before: str
) -> None:
    texts = [
        "".join(before + c for c in CODE_POINTS[i : i + 2048])
        for i in range(0, len(CODE_POINTS), 2048)
    ]
    assert_same(both, texts)


def test_every_pair_of_scripts(both: tuple[Any, tokensmith.Tokenizer]) -> None:
    hf, _ = both
    texts = ordered_texts()
    firsts = [t[s] for t, offsets in zip(texts, pieces(hf, texts), strict=True) for s, _ in offsets]
    # At least one run per script of Unicode 9.0 (137 with Common and Inherited).
    assert len(firsts) > 137
    assert_same(both, ["".join(x + y for y in firsts) for x in firsts])


def test_recent_characters(both: tuple[Any, tokensmith.Tokenizer]) -> None:
    """Characters added after Unicode 9.0, and those whose script changed since, split as
    HF's do."""
    _, ours = both
    texts = [t for c in RECENT for t in (f"abc{c}def", f"中{c}文", f"{c}abc", f"{c} {c}")]
    assert_same(both, texts)
    # An emoji of Unicode 11 has no script in HF's table: it does not cut a Latin word.
    assert pieces(ours, ["ab\U0001f970cd"]) == [[(0, 5)]]
