"""The free-space check before a large write, and the typed error of a full disk.

A shard of a few gigabytes that fills the disk halfway fails late and leaves the user with a
bare ``OSError: [Errno 28]``; checking ``shutil.disk_usage`` before each large chunk fails
early, with :class:`~tokensmith.errors.OutputWriteError` naming the file.

>>> import tempfile
>>> check_free_space(Path(tempfile.gettempdir()) / "x.bin", 1)
>>> check_free_space(Path(tempfile.gettempdir()) / "x.bin", 2**80)
Traceback (most recent call last):
  ...
tokensmith.errors.OutputWriteError: not enough free space to write .../x.bin: ...

Not handled: space that another process takes between the check and the write; that write
still fails, and :func:`full_disk_error` gives it the same typed error.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from tokensmith.errors import OutputWriteError

#: Writes at least this long are checked against the free space first (a ``statvfs`` call
#: costs about a microsecond, a 64 KiB write tens of them).
LARGE_WRITE = 1 << 16


def check_free_space(path: Path, needed: int) -> None:
    """Raises :class:`OutputWriteError` when the file system of ``path`` (a file to be
    written) has fewer than ``needed`` bytes free."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if free < needed:
        raise OutputWriteError(
            f"not enough free space to write {path}: {needed:,} more bytes are needed and "
            f"{free:,} are free; free some space or choose another output"
        )


def full_disk_error(path: Path, error: OSError) -> OSError:
    """``error`` as :class:`OutputWriteError` naming ``path`` when the disk (or quota) is full,
    else ``error`` itself."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return OutputWriteError(f"the disk is full: cannot write {path} ({error.strerror})")
    return error
