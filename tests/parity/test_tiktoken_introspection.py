"""Parity by introspection: every public name of the installed tiktoken's ``Encoding``, module
and ``tiktoken.load`` exists in tokensmith, and each method gives tiktoken's result on the
committed multilingual text, for all seven encodings."""

from __future__ import annotations
import __future__

import importlib
import inspect
import types

import tiktoken
import tiktoken.load
import tokensmith

# Names tiktoken.load binds that are not its API, each with the reason.
LOAD_EXCLUDED = {
    "annotations": "the __future__ feature bound by `from __future__ import annotations`",
    "base64": "a standard-library module tiktoken.load imports for its own use",
    "hashlib": "a standard-library module tiktoken.load imports for its own use",
    "os": "a standard-library module tiktoken.load imports for its own use",
}


def _public(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_every_public_name_of_tiktoken_exists():
    assert sorted(_public(tiktoken) - _public(tokensmith)) == []
    for name in ("core", "model", "registry"):
        assert isinstance(getattr(tokensmith, name), types.ModuleType)


def test_every_public_name_of_tiktoken_load_exists():
    ours = importlib.import_module("tokensmith.load")
    for name, reason in LOAD_EXCLUDED.items():
        value = getattr(tiktoken.load, name)
        # The reason holds: the name is a module or the __future__ feature, not a helper.
        assert isinstance(value, types.ModuleType) or value is __future__.annotations, reason
    wanted = _public(tiktoken.load) - set(LOAD_EXCLUDED)
    assert sorted(wanted - _public(ours)) == []
    for name in wanted:
        theirs = inspect.signature(getattr(tiktoken.load, name)).parameters
        mine = inspect.signature(getattr(ours, name)).parameters
        assert list(mine) == list(theirs), name


def test_every_public_name_of_encoding_exists(pair):
    ours, ref = pair
    assert sorted(_public(ref) - _public(ours)) == []
    for name in _public(tiktoken.Encoding):
        theirs = getattr(tiktoken.Encoding, name)
        if callable(theirs):
            params = inspect.signature(theirs).parameters
            mine = inspect.signature(getattr(tokensmith.Encoding, name)).parameters
            assert set(params) <= set(mine), name
    # Attributes code written for tiktoken reads, though private.
    for name in ("_special_tokens", "_mergeable_ranks", "_pat_str"):
        assert getattr(ours, name) == getattr(ref, name), name


def _calls(lines: list[str]) -> dict[str, object]:
    """For each public name of tiktoken.Encoding, a call on the committed text."""
    text = "".join(lines)
    docs = ["".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    special = "x<|endoftext|>y"

    memo: dict[int, list[int]] = {}

    def ids(enc):
        if id(enc) not in memo:
            memo[id(enc)] = enc.encode_ordinary(text)
        return memo[id(enc)]

    prefixes = [line.rstrip()[: len(line) // 2].rstrip() for line in lines[::100]]
    return {
        "decode": lambda e: e.decode(ids(e)),
        "decode_batch": lambda e: e.decode_batch([e.encode_ordinary(d) for d in docs]),
        "decode_bytes": lambda e: e.decode_bytes(ids(e)),
        "decode_bytes_batch": lambda e: e.decode_bytes_batch([e.encode_ordinary(d) for d in docs]),
        "decode_single_token_bytes": lambda e: [
            e.decode_single_token_bytes(t) for t in ids(e)[::97]
        ],
        "decode_tokens_bytes": lambda e: e.decode_tokens_bytes(ids(e)),
        "decode_with_offsets": lambda e: [
            e.decode_with_offsets(e.encode_ordinary(line)) for line in lines[::6]
        ],
        "encode": lambda e: (
            e.encode(text, disallowed_special=()),
            e.encode(text + special, allowed_special="all"),
        ),
        "encode_batch": lambda e: e.encode_batch(docs, allowed_special="all"),
        "encode_ordinary": lambda e: e.encode_ordinary(text),
        "encode_ordinary_batch": lambda e: e.encode_ordinary_batch(docs),
        "encode_single_token": lambda e: [
            e.encode_single_token(e.decode_single_token_bytes(t)) for t in ids(e)[::97]
        ],
        "encode_to_numpy": lambda e: e.encode_to_numpy(text).tolist(),
        "encode_with_unstable": lambda e: [
            (s, {tuple(c) for c in cs}) for s, cs in map(e.encode_with_unstable, prefixes)
        ],
        "eot_token": lambda e: e.eot_token,
        "is_special_token": lambda e: [
            e.is_special_token(t)
            for t in [*range(0, e.n_vocab, 101), *range(e.n_vocab - 1100, e.n_vocab)]
        ],
        "n_vocab": lambda e: e.n_vocab,
        "special_tokens_set": lambda e: e.special_tokens_set,
        "token_byte_values": lambda e: e.token_byte_values(),
        "name": lambda e: e.name,
        "max_token_value": lambda e: e.max_token_value,
    }


def test_every_method_matches_tiktoken_on_the_committed_text(pair, multilingual_lines):
    ours, ref = pair
    # Every 4th line keeps all 82 languages and the test short; whole-text ids are compared
    # in test_tiktoken_parity.py.
    calls = _calls(multilingual_lines[::4])
    assert _public(ref) <= set(calls)  # a new tiktoken method needs a comparison here
    for name, call in calls.items():
        assert call(ours) == call(ref), name
