"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

The bytes go to a hidden temporary file in the target's directory, which is flushed,
``fsync``-ed and then renamed over the target with ``os.replace`` (atomic on POSIX and on
Windows within one volume). If anything fails, or the process is interrupted (Ctrl-C raises
``KeyboardInterrupt`` here), the temporary file is removed and the target is left as it was.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
>>> atomic_write(path, [b"hello ", b"world"])
>>> open(path, "rb").read()
b'hello world'

Not handled: a set of several files is not written atomically as a whole (each file is).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from os import PathLike


def atomic_write(path: str | PathLike[str], chunks: Iterable[bytes]) -> None:
    """Writes ``chunks`` to ``path`` atomically; on any error nothing is left behind."""
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    """Makes the rename itself durable (POSIX only; a no-op where directories cannot be opened)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
