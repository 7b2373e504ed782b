"""``NAME.tiktoken`` + ``NAME.tiktoken.json``: tiktoken's rank file and a small sidecar.

The rank file has one ``base64(token bytes) rank`` line per token, in rank order, exactly as
tiktoken's own files. It cannot hold the split pattern or the special tokens, so they go to
the sidecar, ``{"name": ..., "pat_str": ..., "special_tokens": {...}}``. tiktoken loads the
pair as::

    side = json.load(open("my.tiktoken.json"))
    tiktoken.Encoding(side["name"], pat_str=side["pat_str"],
                      mergeable_ranks=tiktoken.load.load_tiktoken_bpe("my.tiktoken"),
                      special_tokens=side["special_tokens"])

Without a sidecar, :func:`read` falls back to o200k's pattern and no special tokens.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from os import PathLike
from typing import TYPE_CHECKING, Any

from tokensmith._atomic import atomic_write
from tokensmith._core import O200K_PATTERN
from tokensmith.errors import VocabFormatError

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding

SIDECAR_SUFFIX = ".json"
_SIDECAR_FORMAT = "tokensmith-tiktoken-sidecar"


def sidecar_path(path: str | PathLike[str]) -> str:
    """``my.tiktoken`` -> ``my.tiktoken.json``."""
    return os.fspath(path) + SIDECAR_SUFFIX


def rank_lines(ranks: dict[bytes, int]) -> Iterator[bytes]:
    """The file's bytes in chunks: ``base64(token) rank`` lines in rank order."""
    batch: list[bytes] = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        batch.append(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
        if len(batch) == 4096:
            yield b"".join(batch)
            batch.clear()
    yield b"".join(batch)


def sidecar(encoding: Encoding) -> dict[str, Any]:
    """The sidecar's content for ``encoding``."""
    return {
        "format": _SIDECAR_FORMAT,
        "version": 1,
        "name": encoding.name,
        "pat_str": encoding._pat_str,
        "special_tokens": dict(sorted(encoding._special_tokens.items(), key=lambda kv: kv[1])),
    }


def write(encoding: Encoding, path: str | PathLike[str]) -> None:
    """Writes ``path`` (ranks) and ``path + ".json"`` (pattern, specials, name), each atomically."""
    atomic_write(path, rank_lines(encoding._mergeable_ranks))
    text = json.dumps(sidecar(encoding), ensure_ascii=False, indent=2) + "\n"
    atomic_write(sidecar_path(path), [text.encode("utf-8")])


def read(path: str | PathLike[str]) -> Encoding:
    """Loads a ``.tiktoken`` file and, if present, its sidecar."""
    from tokensmith.load import load_tiktoken

    side_path = sidecar_path(path)
    if not os.path.exists(side_path):
        return load_tiktoken(path, pat_str=O200K_PATTERN)
    try:
        with open(side_path, encoding="utf-8") as f:
            side = json.load(f)
        name, pat_str, specials = side["name"], side["pat_str"], side["special_tokens"]
    except (ValueError, KeyError, TypeError, RecursionError) as e:
        err = VocabFormatError(f"{side_path}: not a tokensmith .tiktoken sidecar ({e!r})")
        err.path = side_path
        raise err from None
    if (
        not isinstance(name, str)
        or not isinstance(pat_str, str)
        or not isinstance(specials, dict)
        or not all(isinstance(k, str) and isinstance(v, int) for k, v in specials.items())
    ):
        err = VocabFormatError(
            f"{side_path}: name and pat_str must be strings and special_tokens a {{str: int}} map"
        )
        err.path = side_path
        raise err
    return load_tiktoken(path, name=name, pat_str=pat_str, special_tokens=specials)
