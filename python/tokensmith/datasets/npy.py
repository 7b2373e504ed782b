"""Tokens as a ``.npy`` array, with a second ``.npy`` of document offsets.

``<prefix>.tokens.npy`` holds every token (uint16 when ``n_vocab <= 65536``, else uint32);
``<prefix>.offsets.npy`` holds ``documents + 1`` uint64 offsets, so document ``i`` is
``tokens[offsets[i]:offsets[i + 1]]``. Both load with ``np.load(path, mmap_mode="r")``.

The files are NPY format version 1.0 and tokensmith writes the header itself, always 128
bytes long, so the bytes do not depend on the installed numpy: magic ``\\x93NUMPY``, bytes
``1, 0``, a u16 little-endian header length (118), then the dict text
``{'descr': '<u2', 'fortran_order': False, 'shape': (N,), }`` padded with spaces and ending
in ``\\n``. Data follows at byte 128.

>>> h = npy_header(np.dtype("<u2"), 5)
>>> len(h), h[:8], h[10:].rstrip()
(128, b'\\x93NUMPY\\x01\\x00', b"{'descr': '<u2', 'fortran_order': False, 'shape': (5,), }")
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from tokensmith._atomic import AtomicFile
from tokensmith.datasets.shard import AtomicShard, Lengths, TokenArray

HEADER_SIZE = 128


def npy_header(dtype: np.dtype[np.generic], length: int) -> bytes:
    """The 128-byte NPY 1.0 header of a 1-D C-order array."""
    text = f"{{'descr': '{dtype.str}', 'fortran_order': False, 'shape': ({length},), }}"
    body = text.encode("ascii").ljust(HEADER_SIZE - 10 - 1) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body


class NpyShardWriter(AtomicShard):
    """Writes ``<prefix>.tokens.npy`` and ``<prefix>.offsets.npy``."""

    def __init__(self, prefix: Path, dtype: np.dtype[np.generic]) -> None:
        self.dtype = dtype.newbyteorder("<")
        self.tokens = AtomicFile(prefix.with_name(prefix.name + ".tokens.npy"))
        self.offsets = AtomicFile(prefix.with_name(prefix.name + ".offsets.npy"))
        super().__init__([self.tokens, self.offsets])
        self.n_tokens = 0
        self.lengths: list[Lengths] = []
        # The real header goes in at finish(), when the length is known.
        self.tokens.write(b"\x00" * HEADER_SIZE)

    def add(self, tokens: TokenArray, lengths: Lengths) -> None:
        self.tokens.write(np.ascontiguousarray(tokens, dtype=self.dtype).data)
        self.n_tokens += len(tokens)
        self.lengths.append(lengths)

    def finish(self) -> None:
        self.tokens.file.seek(0)
        self.tokens.write(npy_header(self.dtype, self.n_tokens))
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0, np.int64)
        offsets = np.zeros(len(lengths) + 1, dtype="<u8")
        np.cumsum(lengths, out=offsets[1:])
        self.offsets.write(npy_header(offsets.dtype, len(offsets)))
        self.offsets.write(offsets.data)
        self.sync_all()
