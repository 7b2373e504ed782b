"""``EncodingResult.ids`` builds its list from cached int objects for ids below 2**18 and
makes new ints above: both give HF ``tokenizers``' ids, and every read is a new list."""

from __future__ import annotations

import json
import sys

import tokensmith
from tokenizers import Tokenizer as HfTokenizer

# Ids on both sides of the cache's bound (2**18), and CPython's own small-int range.
VOCAB = {"[UNK]": 0, "a": 5, "b": 300, "c": 2**18 - 1, "d": 2**18, "e": 2**20 + 7}
JSON = json.dumps(
    {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": VOCAB, "unk_token": "[UNK]"},
    }
)


def test_ids_match_hf_on_both_sides_of_the_cache() -> None:
    ours = tokensmith.Tokenizer.from_str(JSON)
    hf = HfTokenizer.from_str(JSON)
    for text in ("a b c d e", "e d c b a x", "c c d d e e", ""):
        assert ours.encode(text).ids == hf.encode(text).ids, text
    assert ours.encode("b c d e").ids == [300, 2**18 - 1, 2**18, 2**20 + 7]


def test_each_read_is_a_new_list() -> None:
    enc = tokensmith.Tokenizer.from_str(JSON).encode("c d")
    first = enc.ids
    first.append(1)
    assert enc.ids == [2**18 - 1, 2**18]
    assert enc.ids is not enc.ids


def test_every_length_and_position() -> None:
    """The list is filled four ids a step, then the rest one at a time: lengths 0 to 9 with
    the uncached ids (2**18 and above) at every position give HF's lists."""
    ours = tokensmith.Tokenizer.from_str(JSON)
    hf = HfTokenizer.from_str(JSON)
    words = ["a", "b", "c", "d", "e", "x"]
    for n in range(10):
        for shift in range(len(words)):
            text = " ".join(words[(shift + k) % len(words)] for k in range(n))
            assert ours.encode(text).ids == hf.encode(text).ids, text


def test_a_list_of_ids_grows_shrinks_and_frees_as_any_list() -> None:
    """The list's slots are allocated without being cleared and handed to the list: it must
    report the size of a list built by Python, and grow, shrink and free as one."""
    ours = tokensmith.Tokenizer.from_str(JSON)
    text = " ".join(["a", "b", "c", "d", "e", "x"] * 50)
    expected = HfTokenizer.from_str(JSON).encode(text).ids
    for _ in range(3):
        ids = ours.encode(text).ids
        assert ids == expected
        assert sys.getsizeof(ids) == sys.getsizeof(expected[:])
        ids.extend(range(1000))
        assert ids[: len(expected)] == expected and ids[len(expected) :] == list(range(1000))
        del ids[5:]
        ids.sort()
        assert ids == sorted(expected[:5])
        ids.clear()
        ids.append(2**18)
        assert ids == [2**18]
    empty = ours.encode("").ids
    assert empty == [] and sys.getsizeof(empty) == sys.getsizeof([])
    empty.append(7)
    assert empty == [7]
