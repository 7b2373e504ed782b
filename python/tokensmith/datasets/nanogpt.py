"""nanoGPT's flat token file: every token of every document, back to back, nothing else.

nanoGPT's ``data/*/prepare.py`` writes ``np.uint16`` (GPT-2's largest id, 50,256, fits) and
its ``train.py`` reads the file back with ``np.memmap(path, dtype=np.uint16, mode="r")``. There
is no header, so the reader must know the dtype: tokensmith uses uint16 whenever every id fits
(``n_vocab <= 65536``) and uint32 otherwise, and records the choice in the manifest. A
trainer reading a uint32 shard must be told so (nanoGPT hard-codes uint16).

>>> nanogpt_dtype(50_257), nanogpt_dtype(65_536), nanogpt_dtype(100_277)
(dtype('uint16'), dtype('uint16'), dtype('uint32'))

Not handled: document boundaries. A flat file has none, so separate documents with
``append_eos=True`` as nanoGPT does, and note that ``verify`` cannot read documents back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tokensmith._atomic import AtomicFile
from tokensmith.datasets.shard import AtomicShard, Lengths, TokenArray


def nanogpt_dtype(n_vocab: int) -> np.dtype[np.generic]:
    """uint16 when every id (``0 .. n_vocab - 1``) fits in 16 bits, else uint32."""
    return np.dtype(np.uint16) if n_vocab <= 1 << 16 else np.dtype(np.uint32)


class NanoGPTShardWriter(AtomicShard):
    """Writes ``<prefix>.bin``: raw little-endian tokens."""

    def __init__(self, prefix: Path, dtype: np.dtype[np.generic]) -> None:
        self.dtype = dtype.newbyteorder("<")
        self.bin = AtomicFile(prefix.with_name(prefix.name + ".bin"))
        super().__init__([self.bin])

    def add(self, tokens: TokenArray, lengths: Lengths) -> None:
        self.bin.write(np.ascontiguousarray(tokens, dtype=self.dtype).data)

    def finish(self) -> None:
        self.sync_all()
