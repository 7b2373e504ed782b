"""sentencepiece's ``SentencePieceText`` results: pieces with their offsets, as plain objects.

``encode(text, out_type="proto")`` (and ``"immutable_proto"``, the name sentencepiece 0.2.0
used) returns a :class:`SentencePieceText`: the input ``text`` and its ``pieces``, each with
``piece``, ``id``, ``surface`` (the part of the input it came from), and ``begin``/``end``
(that part's byte offsets in the UTF-8 input). ``nbest_encode(..., out_type="proto")``
returns an :class:`NBestSentencePieceText` whose ``nbests`` carry a ``score``; a decoded one
holds the decoded text, each piece's ``surface`` being what it wrote.

``SerializeToString()`` gives the protobuf bytes of sentencepiece's ``sentencepiece.proto``
(``out_type="serialized_proto"``), which ``sentencepiece_pb2.SentencePieceText`` parses:
every field of a piece is written, and ``score`` only where sentencepiece sets it (n-best).

>>> p = SentencePiece(piece="▁a", id=7, surface="a", begin=0, end=1)
>>> t = SentencePieceText(text="a", pieces=(p,))
>>> t.SerializeToString()
b'\\n\\x01a\\x12\\x0f\\n\\x04\\xe2\\x96\\x81a\\x10\\x07\\x1a\\x01a \\x00(\\x01'

Not handled: protobuf's mutation and reflection API (``CopyFrom``, ``ListFields``, ...);
these objects are frozen. ``ParseFromString`` is not offered; pass the bytes to
``sentencepiece_pb2`` for that.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from tokensmith.errors import InvalidArgumentError

# Protobuf wire types: a varint, a length-delimited field, a 32-bit fixed field.
_VARINT, _BYTES, _FIXED32 = 0, 2, 5


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def bytes_field(number: int, data: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _key(number, _BYTES) + _varint(len(data)) + data


def _uint_field(number: int, value: int) -> bytes:
    return _key(number, _VARINT) + _varint(value)


def read_fields(message: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level ``(field number, value)`` pairs of a protobuf message: an int for a
    varint, the payload for a length-delimited field, the 4 or 8 raw bytes of a fixed one."""
    out: list[tuple[int, int | bytes]] = []
    at = 0

    def varint() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            if at >= len(message):
                raise InvalidArgumentError("truncated protobuf message")
            byte = message[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while at < len(message):
        key = varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == _VARINT:
            out.append((number, varint()))
            continue
        size = {_BYTES: -1, _FIXED32: 4, 1: 8}.get(wire_type)
        if size is None:
            raise InvalidArgumentError(f"protobuf wire type {wire_type} is not supported here")
        if size < 0:
            size = varint()
        if at + size > len(message):
            raise InvalidArgumentError("truncated protobuf message")
        out.append((number, message[at : at + size]))
        at += size
    return out


@dataclass(frozen=True, slots=True)
class SentencePiece:
    """One piece: its text, id, and the ``surface`` it came from at bytes ``begin..end``."""

    piece: str
    id: int
    surface: str
    begin: int
    end: int
    #: False where sentencepiece leaves ``surface`` unset (it then reads as ``""``).
    has_surface: bool = field(default=True, compare=False)

    def SerializeToString(self) -> bytes:  # noqa: N802
        """The protobuf bytes of ``SentencePieceText.SentencePiece``."""
        surface = bytes_field(3, self.surface.encode("utf-8")) if self.has_surface else b""
        return b"".join(
            (
                bytes_field(1, self.piece.encode("utf-8")),
                _uint_field(2, self.id),
                surface,
                _uint_field(4, self.begin),
                _uint_field(5, self.end),
            )
        )

    SerializeAsString = SerializeToString


@dataclass(frozen=True, slots=True)
class SentencePieceText:
    """A text and its pieces; ``score`` is set on n-best entries (``has_score``)."""

    text: str
    pieces: tuple[SentencePiece, ...] = ()
    score: float = 0.0
    has_score: bool = field(default=False, compare=False)

    def SerializeToString(self) -> bytes:  # noqa: N802
        """The protobuf bytes of sentencepiece's ``SentencePieceText``."""
        parts = [bytes_field(1, self.text.encode("utf-8"))]
        parts.extend(bytes_field(2, p.SerializeToString()) for p in self.pieces)
        if self.has_score:
            parts.append(_key(3, _FIXED32) + struct.pack("<f", self.score))
        return b"".join(parts)

    SerializeAsString = SerializeToString


@dataclass(frozen=True, slots=True)
class NBestSentencePieceText:
    """The n best segmentations of one text, best first."""

    nbests: tuple[SentencePieceText, ...] = ()

    def SerializeToString(self) -> bytes:  # noqa: N802
        """The protobuf bytes of sentencepiece's ``NBestSentencePieceText``."""
        return b"".join(bytes_field(1, n.SerializeToString()) for n in self.nbests)

    SerializeAsString = SerializeToString


def encoded_text(text: str, pieces: list[tuple[str, int, int, int, bool]]) -> SentencePieceText:
    """The result of encoding ``text`` into ``(piece, id, begin, end, has_surface)`` (byte
    offsets, as the core gives them)."""
    raw = text.encode("utf-8")
    return SentencePieceText(
        text=text,
        pieces=tuple(
            SentencePiece(
                piece, id, _surface(raw, begin, end) if has else "", begin, end, has_surface=has
            )
            for piece, id, begin, end, has in pieces
        ),
    )


def decoded_text(
    text: str, pieces: list[str], ids: list[int], spans: list[tuple[int, int]]
) -> SentencePieceText:
    """The result of decoding ``pieces``/``ids`` into ``text``, each piece at its span."""
    raw = text.encode("utf-8")
    return SentencePieceText(
        text=text,
        pieces=tuple(
            SentencePiece(piece, id, _surface(raw, begin, end), begin, end)
            for piece, id, (begin, end) in zip(pieces, ids, spans, strict=True)
        ),
    )


def _surface(raw: bytes, begin: int, end: int) -> str:
    # Spans begin and end on character boundaries; "replace" only guards against a model
    # whose normalizer maps into the middle of a character.
    return raw[begin:end].decode("utf-8", errors="replace")


__all__ = ["NBestSentencePieceText", "SentencePiece", "SentencePieceText"]
