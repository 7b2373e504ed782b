"""The interface every shard format implements, and the helpers they share.

A shard writer receives documents in order as ``(tokens, lengths)`` chunks, where ``tokens``
is already in the shard's dtype and ``lengths[i]`` is the token count of the chunk's document
``i``. :meth:`ShardWriter.finish` writes any index, fsyncs everything and returns the
temporary files ready to be committed; nothing is visible under a final name before
:meth:`ShardWriter.commit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tokensmith._atomic import AtomicFile, fsync_dir

TokenArray = npt.NDArray[np.integer]
Lengths = npt.NDArray[np.int64]


class ShardWriter(Protocol):
    """Writes one shard; see the module docstring for the calling sequence."""

    def add(self, tokens: TokenArray, lengths: Lengths) -> None: ...

    def finish(self) -> None: ...

    def commit(self) -> list[Path]: ...

    def abort(self) -> None: ...


class AtomicShard:
    """Shared plumbing: a set of :class:`AtomicFile` written together and committed together."""

    def __init__(self, files: list[AtomicFile]) -> None:
        self.files = files

    def sync_all(self) -> None:
        for f in self.files:
            f.sync()

    def commit(self) -> list[Path]:
        for f in self.files:
            f.commit()
        fsync_dir(self.files[0].final.parent)
        return [f.final for f in self.files]

    def abort(self) -> None:
        for f in self.files:
            f.abort()
