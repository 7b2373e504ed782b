"""Atomic file writes: a reader sees the old file or the new one, never half of one.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "out" / "a.txt"
>>> write_text_atomic(p, "hi")
>>> p.read_text()
'hi'
"""

from __future__ import annotations

import os
import tempfile
from os import PathLike
from pathlib import Path


def write_text_atomic(path: str | PathLike[str], text: str) -> None:
    """Writes ``text`` (UTF-8) to ``path`` through a temporary file in the same directory and
    ``os.replace``; creates missing parent directories."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp creates the file 0600; a report is meant to be shared like any other file.
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
