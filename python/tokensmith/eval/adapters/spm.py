"""Adapter for a SentencePiece processor: tokensmith's own or the ``sentencepiece`` package's.

:func:`load_sentencepiece` reads a ``.model`` with :class:`tokensmith.SentencePieceProcessor`
(Rust, no dependency), and :class:`SentencePieceAdapter` duck-types the processor it is given
through the snake_case names both share, so a ``sentencepiece.SentencePieceProcessor`` works
too. Spans come from ``EncodeAsImmutableProto`` (byte offsets into the input) when the
processor has it; otherwise from the pieces' bytes, with ``▁`` read as a space.

Not handled: sampling (subword regularization) — evaluation encodes deterministically.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from os import PathLike
from typing import Any

import numpy as np

from tokensmith.errors import ArgumentTypeError, InputNotFoundError
from tokensmith.eval.adapters.base import IntArray, TokenBatch, flatten

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_METHODS = ("get_piece_size", "id_to_piece", "is_unknown", "is_byte", "encode", "decode")


def is_sentencepiece_processor(obj: Any) -> bool:
    """Whether ``obj`` looks like a ``SentencePieceProcessor`` (duck-typed, no import)."""
    return all(callable(getattr(obj, m, None)) for m in _METHODS)


def load_sentencepiece(path: str | PathLike[str]) -> Any:
    """Loads a ``.model`` file with :class:`tokensmith.SentencePieceProcessor`.

    Raises:
        InputNotFoundError: the file does not exist.
        ModelFormatError: the file is not a valid ``.model``.
    """
    import os

    from tokensmith.sentencepiece import SentencePieceProcessor

    if not os.path.exists(path):
        raise InputNotFoundError(f"no such sentencepiece model: {os.fspath(path)}")
    return SentencePieceProcessor(model_file=os.fspath(path))


class SentencePieceAdapter:
    """Wraps a ``SentencePieceProcessor`` (or any object with its methods).

    Args:
        processor: The processor.
        name: A label for reports.
    """

    def __init__(self, processor: Any, *, name: str = "sentencepiece") -> None:
        missing = [m for m in _METHODS if not callable(getattr(processor, m, None))]
        if missing:
            raise ArgumentTypeError(
                f"{type(processor).__name__} is not a SentencePieceProcessor "
                f"(missing {', '.join(missing)})"
            )
        self._sp = processor
        self._name = name
        self._has_proto = callable(getattr(processor, "EncodeAsImmutableProto", None))

    def __repr__(self) -> str:
        return f"<SentencePieceAdapter {self.name!r}>"

    @property
    def processor(self) -> Any:
        """The wrapped processor."""
        return self._sp

    @property
    def name(self) -> str:
        return self._name

    @property
    def vocab_size(self) -> int:
        return int(self._sp.get_piece_size())

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._sp.encode(text)]

    def encode_batch(self, texts: Sequence[str]) -> TokenBatch:
        if not self._has_proto:
            return flatten([[int(i) for i in ids] for ids in self._sp.encode(list(texts))])
        protos = [self._sp.EncodeAsImmutableProto(t) for t in texts]
        rows = [[(p.id, p.begin, p.end) for p in proto.pieces] for proto in protos]
        flat = flatten([[r[0] for r in row] for row in rows])
        if flat.ids.size == 0:
            return flat
        spans = np.concatenate([np.asarray(row, dtype=np.int64) for row in rows if row])
        return TokenBatch(flat.ids, flat.offsets, spans[:, 1].copy(), spans[:, 2].copy(), "byte")

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._sp.decode([int(i) for i in ids]))

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < self.vocab_size:
            return b""
        piece = str(self._sp.id_to_piece(token_id))
        if self._sp.is_byte(token_id):
            match = _BYTE_PIECE.fullmatch(piece)
            return bytes([int(match.group(1), 16)]) if match else b""
        if self._sp.is_unknown(token_id) or self._is_control(token_id):
            return b""
        return piece.replace("▁", " ").encode("utf-8")

    def _is_control(self, token_id: int) -> bool:
        is_control = getattr(self._sp, "is_control", None)
        return bool(is_control(token_id)) if callable(is_control) else False

    def unknown_ids(self) -> IntArray:
        return self._ids_where(self._sp.is_unknown)

    def byte_fallback_ids(self) -> IntArray:
        return self._ids_where(self._sp.is_byte)

    def _ids_where(self, predicate: Any) -> IntArray:
        n = self.vocab_size
        mask = np.fromiter((bool(predicate(i)) for i in range(n)), dtype=bool, count=n)
        return np.flatnonzero(mask).astype(np.int64)
