"""Cutting a byte stream into lines: one at a time (:func:`raw_lines`), or many at a time in
blocks of whole lines (:func:`line_blocks`) for readers that decode and split a block at once.

Both cut the same way: a line is its bytes up to and including ``\\n``; with a ``limit``, a
line longer than ``limit`` bytes comes in pieces of about ``limit`` bytes, each cut between
two UTF-8 characters (a character cut off at the end of a piece starts the next one).

>>> import io
>>> data = b"ab\\ncd\\n" + "é".encode() * 3 + b"\\nz"
>>> list(raw_lines(io.BytesIO(data), 4))
[b'ab\\n', b'cd\\n', b'\\xc3\\xa9\\xc3\\xa9', b'\\xc3\\xa9\\n', b'z']
>>> for block in line_blocks(io.BytesIO(data), 4, block_bytes=4):
...     print(block)
(b'ab\\n', True)
(b'cd\\n', True)
(b'\\xc3\\xa9\\xc3\\xa9', False)
(b'\\xc3\\xa9\\n', False)
(b'z', True)
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Protocol

BLOCK_BYTES = 1 << 20


class Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...

    def __iter__(self) -> Iterator[bytes]: ...


def raw_lines(f: Lines, limit: int | None) -> Iterator[bytes]:
    """Lines of ``f``; with ``limit``, longer lines come in pieces cut between characters."""
    if not limit:
        yield from f
        return
    carry = b""
    while True:
        raw = f.readline(limit)
        if not raw:
            if carry:
                yield carry
            return
        if carry:
            raw, carry = carry + raw, b""
        if len(raw) >= limit and not raw.endswith(b"\n"):
            cut = _complete_prefix(raw)
            if cut > 0:
                raw, carry = raw[:cut], raw[cut:]
        yield raw


def line_blocks(
    f: Lines, limit: int | None, block_bytes: int = BLOCK_BYTES
) -> Iterator[tuple[bytes, bool]]:
    """The bytes of ``f`` in order, as ``(block, True)`` for a run of whole lines (the last
    line of the stream may lack its ``\\n``) and ``(piece, False)`` for each piece of a line
    longer than ``limit``, cut exactly as :func:`raw_lines` cuts it."""
    size = min(block_bytes, limit) if limit else block_bytes
    pending = b""  # the start of a line not yet complete
    while True:
        chunk = f.read(size)
        if not chunk:
            if limit and len(pending) > limit:
                # A last line without its newline, longer than the limit: cut it too.
                yield from ((raw, False) for raw in raw_lines(io.BytesIO(pending), limit))
            elif pending:
                yield pending, True
            return
        first = chunk.find(b"\n")
        if limit and len(pending) + (first + 1 if first >= 0 else len(chunk)) > limit:
            # The pending line is longer than the limit: cut it as raw_lines would.
            head = _Prefixed(pending + chunk, f)
            for raw in raw_lines(head, limit):
                yield raw, False
                if raw.endswith(b"\n"):
                    break
            pending = head.head
            continue
        data = pending + chunk if pending else chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data[:cut], True
        pending = data[cut:]


class _Prefixed:
    """``head`` followed by the rest of ``f``, read by lines (for :func:`raw_lines`)."""

    def __init__(self, head: bytes, f: Lines) -> None:
        self.head = head
        self.f = f

    def readline(self, size: int = -1, /) -> bytes:
        if not self.head:
            return self.f.readline(size)
        end = self.head.find(b"\n", 0, size if size >= 0 else None)
        n = end + 1 if end >= 0 else (len(self.head) if size < 0 else min(size, len(self.head)))
        out, self.head = self.head[:n], self.head[n:]
        if not self.head and not out.endswith(b"\n") and (size < 0 or len(out) < size):
            out += self.f.readline(size - len(out) if size >= 0 else -1)
        return out

    def read(self, size: int = -1, /) -> bytes:  # pragma: no cover (raw_lines reads lines)
        raise NotImplementedError

    def __iter__(self) -> Iterator[bytes]:  # pragma: no cover (raw_lines reads lines)
        raise NotImplementedError


def _complete_prefix(raw: bytes) -> int:
    """The length of ``raw`` without a UTF-8 character cut off at its end.

    >>> [_complete_prefix(raw) for raw in ("aé".encode(), "aé".encode()[:2], b"ab")]
    [3, 1, 2]
    """
    i = len(raw) - 1
    while i > 0 and len(raw) - i < 4 and raw[i] & 0xC0 == 0x80:
        i -= 1
    lead = raw[i]
    need = (
        2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4 if lead & 0xF8 == 0xF0 else 1
    )
    return i if len(raw) - i < need else len(raw)
