"""Adapter for byte-level BPE: :class:`tokensmith.Encoding` and ``tiktoken.Encoding``.

Both expose the same methods, so one adapter serves both; it uses tokensmith's flat-numpy batch
call when it is there. Byte-level BPE has no unknown token and no byte-fallback tokens: every
byte is in the vocabulary, and the tokens' bytes concatenate to the text.

>>> import tokensmith
>>> from tokensmith.eval.adapters import TiktokenLikeAdapter
>>> a = TiktokenLikeAdapter(tokensmith.get_encoding("o200k_base"))
>>> a.encode_batch(["hello world", "hi"]).offsets.tolist()
[0, 2, 3]
>>> a.unknown_ids().size, a.byte_fallback_ids().size
(0, 0)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tokensmith.errors import ArgumentTypeError
from tokensmith.eval.adapters.base import IntArray, TokenBatch, flatten


def default_threads() -> int:
    """Encoder threads for batch calls: the machine's cores, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


class TiktokenLikeAdapter:
    """Wraps a :class:`tokensmith.Encoding` or a ``tiktoken.Encoding``.

    Args:
        encoding: The encoding.
        num_threads: Threads for batch encoding.
    """

    def __init__(self, encoding: Any, *, num_threads: int | None = None) -> None:
        for method in ("encode_ordinary", "encode_ordinary_batch", "decode", "n_vocab"):
            if not hasattr(encoding, method):
                raise ArgumentTypeError(
                    f"{type(encoding).__name__} has no {method!r}; not an Encoding"
                )
        self._enc = encoding
        self._threads = num_threads or default_threads()
        self._lengths: IntArray | None = None

    def __repr__(self) -> str:
        return f"<TiktokenLikeAdapter {self.name!r}>"

    @property
    def encoding(self) -> Any:
        """The wrapped encoding."""
        return self._enc

    @property
    def name(self) -> str:
        return str(getattr(self._enc, "name", type(self._enc).__name__))

    @property
    def vocab_size(self) -> int:
        return int(self._enc.n_vocab)

    def encode(self, text: str) -> list[int]:
        return list(self._enc.encode_ordinary(text))

    def encode_batch(self, texts: Sequence[str]) -> TokenBatch:
        texts = list(texts)
        to_numpy = getattr(self._enc, "encode_ordinary_batch_to_numpy", None)
        if to_numpy is not None:
            toks, offs = to_numpy(texts, num_threads=self._threads)
            return TokenBatch(ids=toks.astype(np.int64), offsets=offs.astype(np.int64))
        return flatten(self._enc.encode_ordinary_batch(texts, num_threads=self._threads))

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._enc.decode(list(ids)))

    def token_bytes(self, token_id: int) -> bytes:
        try:
            return bytes(self._enc.decode_single_token_bytes(token_id))
        except (KeyError, ValueError):
            return b""

    def token_byte_lengths(self) -> IntArray:
        """Every id's byte length, from the rank table (``0`` for ids that are unused)."""
        if self._lengths is None:
            lengths = np.zeros(self.vocab_size, dtype=np.int64)
            ranks: dict[bytes, int] = self._enc._mergeable_ranks
            ids = np.fromiter(ranks.values(), dtype=np.int64, count=len(ranks))
            lengths[ids] = np.fromiter(map(len, ranks), dtype=np.int64, count=len(ranks))
            specials: dict[str, int] = getattr(self._enc, "_special_tokens", {})
            for text, token in specials.items():
                lengths[token] = len(text.encode("utf-8"))
            self._lengths = lengths
        return self._lengths

    def unknown_ids(self) -> IntArray:
        return np.zeros(0, dtype=np.int64)

    def byte_fallback_ids(self) -> IntArray:
        return np.zeros(0, dtype=np.int64)
