"""Writing files so that a crash never leaves a half-written file under its final name.

A file is written to a hidden temporary name next to its destination, flushed and fsynced,
then renamed over the destination with ``os.replace`` (atomic on POSIX and Windows), and the
directory is fsynced so the rename itself survives a power cut. A reader therefore sees either
the old file or the complete new one. Stale temporaries left by a killed run start with ``.``
and end with ``.tmp``; :func:`remove_stale_temporaries` clears them.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_atomic(d / "a.txt", b"hi")
>>> (d / "a.txt").read_bytes(), sorted(p.name for p in d.iterdir())
(b'hi', ['a.txt'])
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import BinaryIO


def temporary_name(final: Path) -> Path:
    """Where :class:`AtomicFile` writes ``final`` before renaming it."""
    return final.with_name(f".{final.name}.tmp")


class AtomicFile:
    """A binary file written under a temporary name; :meth:`commit` moves it into place."""

    def __init__(self, final: Path) -> None:
        self.final = final
        self.tmp = temporary_name(final)
        self.file: BinaryIO = open(self.tmp, "wb")  # noqa: SIM115 - closed by sync/abort

    def write(self, data: bytes | memoryview) -> None:
        self.file.write(data)

    def sync(self) -> None:
        """Flushes and fsyncs the temporary file, then closes it."""
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()

    def commit(self) -> None:
        """Renames the synced temporary over the final name."""
        os.replace(self.tmp, self.final)

    def abort(self) -> None:
        self.file.close()
        self.tmp.unlink(missing_ok=True)


def write_atomic(path: Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically (temporary file, fsync, rename, directory fsync)."""
    f = AtomicFile(path)
    try:
        f.write(data)
        f.sync()
    except BaseException:
        f.abort()
        raise
    f.commit()
    fsync_dir(path.parent)


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


def sha256_file(path: Path) -> str:
    """The hex SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def remove_stale_temporaries(directory: Path) -> None:
    """Deletes temporaries a killed run left in ``directory``."""
    for p in directory.glob(".*.tmp"):
        p.unlink(missing_ok=True)
