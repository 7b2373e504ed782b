"""``encode_with_unstable`` against tiktoken's: the same stable tokens and the same set of
completions, on prefixes of the committed multilingual text and on the tails its rules are
about (whitespace, newlines, special tokens, characters cut mid-way)."""

from __future__ import annotations

import pytest
import tokensmith
from tokensmith.reference import tiktoken_encoding

EDGE_CASES = [
    "",
    "hello wor",
    "hello fanta",
    "x \n \n",
    "a\n\n",
    "I'",
    "12345",
    "x é",
    "日本語",
    "ab<|endoftext|>",
    "ab<|endoftext|>cd",
    "<|endoftext|>",
]


def _same(ours, ref, text, **kwargs):
    stable, completions = ours.encode_with_unstable(text, **kwargs)
    ref_stable, ref_completions = ref.encode_with_unstable(text, **kwargs)
    assert stable == ref_stable, text
    assert len(completions) == len(set(map(tuple, completions)))
    assert set(map(tuple, completions)) == set(map(tuple, ref_completions)), text


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_matches_tiktoken_on_multilingual_prefixes(name, multilingual_lines):
    ours, ref = tokensmith.get_encoding(name), tiktoken_encoding(name)
    # A tail ending in a space has every token that starts with a space as a completion
    # (a brute-force search over half the vocabulary on both sides): the prefixes end in
    # a non-space, and the whitespace tails are tested below on the smallest vocabulary.
    for line in multilingual_lines[::60]:
        text = line.rstrip("\n")
        _same(ours, ref, text[: max(1, len(text) // 2)].rstrip())
    for text in EDGE_CASES:
        _same(ours, ref, text, allowed_special="all")


def test_whitespace_tails_match_tiktoken():
    ours, ref = tokensmith.get_encoding("r50k_base"), tiktoken_encoding("r50k_base")
    for text in ["def f():\n    ", "a  ", "x\t", "line\n \n "]:
        _same(ours, ref, text)


def test_disallowed_specials_raise_as_in_encode():
    enc = tokensmith.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="endoftext"):
        enc.encode_with_unstable("a<|endoftext|>")
    stable, completions = enc.encode_with_unstable("a<|endoftext|>", disallowed_special=())
    assert enc.decode(stable + completions[0]).startswith("a<|endoftext")


def test_stable_plus_any_completion_starts_the_text():
    enc = tokensmith.get_encoding("o200k_base")
    text = "The quick brown fo"
    stable, completions = enc.encode_with_unstable(text)
    assert completions
    for completion in completions:
        assert enc.decode_bytes(stable + completion).startswith(text.encode())
