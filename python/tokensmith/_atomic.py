"""Atomic file writes, for every file tokensmith writes: a reader sees the old file or the
whole new one, never a part, even after a crash or Ctrl-C.

A file is written to a hidden temporary name next to its destination (``.NAME.tmp``),
flushed and fsynced, then renamed over the destination with ``os.replace`` (atomic on POSIX and
on Windows within one volume), and the directory is fsynced so the rename itself survives a
power cut. If anything fails, or the process is interrupted (``KeyboardInterrupt``), the
temporary file is removed and the destination is left as it was. Temporaries of a killed run
(``kill -9``) start with ``.`` and end with ``.tmp``; :func:`remove_stale_temporaries` clears
them.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write(d / "a.txt", [b"hello ", b"world"])
>>> (d / "a.txt").read_bytes(), sorted(p.name for p in d.iterdir())
(b'hello world', ['a.txt'])

Not handled: a set of several files is not written atomically as a whole (each file is;
callers that need a set commit them together, see :class:`AtomicFile`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import BinaryIO

from tokensmith._free_space import LARGE_WRITE, check_free_space, full_disk_error


def temporary_name(final: Path) -> Path:
    """Where :class:`AtomicFile` writes ``final`` before renaming it."""
    return final.with_name(f".{final.name}.tmp")


class AtomicFile:
    """A binary file written under a temporary name; :meth:`commit` moves it into place.

    Use it directly to write several files and commit them together: write all, :meth:`sync`
    all, then :meth:`commit` all (or :meth:`abort` on failure).
    """

    def __init__(self, final: Path) -> None:
        self.final = final
        self.tmp = temporary_name(final)
        self.file: BinaryIO = open(self.tmp, "wb")  # noqa: SIM115 - closed by sync/abort

    def write(self, data: bytes | memoryview) -> None:
        """Writes ``data``; a large write first checks that the disk has room for it.

        Raises:
            OutputWriteError: the disk is full, or too full for a large write (the message
                names the destination).
        """
        size = memoryview(data).nbytes
        if size >= LARGE_WRITE:
            check_free_space(self.final, size)
        try:
            self.file.write(data)
        except OSError as e:
            raise full_disk_error(self.final, e) from e

    def sync(self) -> None:
        """Flushes and fsyncs the temporary file, then closes it."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as e:
            raise full_disk_error(self.final, e) from e
        finally:
            self.file.close()

    def commit(self) -> None:
        """Renames the synced temporary over the final name."""
        os.replace(self.tmp, self.final)

    def abort(self) -> None:
        self.file.close()
        self.tmp.unlink(missing_ok=True)


def atomic_write(path: str | PathLike[str], chunks: Iterable[bytes]) -> None:
    """Writes ``chunks`` to ``path`` atomically, creating missing parent directories."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    f = AtomicFile(target)
    try:
        for chunk in chunks:
            f.write(chunk)
        f.sync()
        f.commit()
    except BaseException:
        f.abort()
        raise
    fsync_dir(target.parent)


def write_text_atomic(path: str | PathLike[str], text: str) -> None:
    """Writes ``text`` as UTF-8 to ``path`` atomically."""
    atomic_write(path, [text.encode("utf-8")])


def fsync_dir(path: Path) -> None:
    """Makes renames inside ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temporaries(directory: Path) -> None:
    """Deletes temporaries a killed run left in ``directory``."""
    for p in directory.glob(".*.tmp"):
        p.unlink(missing_ok=True)
