"""Writing a set of output files as one: checked before the work, committed together.

A command that writes several files (``train bpe -o DIR`` writes six) should fail *before*
hours of training when its outputs cannot be written, and should never leave a mix of new
and old files. :class:`OutputSet` does both:

- :meth:`OutputSet.check` runs first: it refuses files that exist (unless ``overwrite``) and
  an output folder that cannot be written (:class:`~tokensmith.errors.OutputWriteError`);
- :meth:`OutputSet.write` hands the caller a temporary folder next to the destination
  (``.NAME.tmp-XXXX``, on the same file system) to write every file into; only when all are
  written are they renamed into place, and on any failure or Ctrl-C the temporary folder is
  removed and the destination is left as it was.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
>>> outputs = OutputSet(d, ["a.txt", "b.txt"])
>>> outputs.check()
>>> with outputs.write() as tmp:
...     _ = (tmp / "a.txt").write_text("a"), (tmp / "b.txt").write_text("b")
>>> sorted(p.name for p in d.iterdir())
['a.txt', 'b.txt']
>>> OutputSet(d, ["a.txt"]).check()
Traceback (most recent call last):
...
tokensmith.errors.OutputDirError: ... already exists; pass --overwrite (overwrite=True) ...

Not handled: renaming several files into an existing folder is atomic file by file; the
window between the first and the last rename is a few system calls long.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tokensmith._atomic import fsync_dir
from tokensmith.errors import OutputDirError, OutputWriteError

__all__ = ["OutputSet"]


class OutputSet:
    """The files ``names`` (relative paths) to be written into the folder ``folder``."""

    def __init__(self, folder: Path, names: Sequence[str], *, overwrite: bool = False) -> None:
        self.folder = Path(folder)
        self.names = list(names)
        self.overwrite = overwrite

    @property
    def paths(self) -> list[Path]:
        return [self.folder / n for n in self.names]

    def check(self) -> None:
        """Refuses existing outputs (without ``overwrite``) and a folder that cannot be written."""
        if not self.overwrite:
            for path in self.paths:
                if path.exists():
                    raise OutputDirError(
                        f"{path} already exists; pass --overwrite (overwrite=True) to replace it"
                    )
        if self.folder.exists() and not self.folder.is_dir():
            raise OutputWriteError(f"{self.folder} is a file, not a folder")
        # The nearest folder that exists must take a new entry (the temporary folder).
        parent = self.folder
        while not parent.exists():
            parent = parent.parent
        try:
            probe = tempfile.mkdtemp(prefix=".tokensmith-probe-", dir=parent)
        except OSError as e:
            raise OutputWriteError(
                f"cannot write into {parent}: {e.strerror or e}; choose another output"
            ) from None
        os.rmdir(probe)

    @contextmanager
    def write(self) -> Iterator[Path]:
        """A temporary folder to write every output into; on a clean exit they are moved to
        :attr:`folder`, else the temporary folder is removed."""
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp = Path(
                tempfile.mkdtemp(prefix=f".{self.folder.name}.tmp-", dir=self.folder.parent)
            )
        except OSError as e:
            raise OutputWriteError(f"cannot write into {self.folder.parent}: {e}") from None
        try:
            yield tmp
            self._commit(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _commit(self, tmp: Path) -> None:
        try:
            if not self.folder.exists():
                # The whole set appears at once.
                os.rename(tmp, self.folder)
            else:
                for name in self.names:
                    target = self.folder / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(tmp / name, target)
            fsync_dir(self.folder)
            fsync_dir(self.folder.parent)
        except OSError as e:
            raise OutputWriteError(f"cannot write {self.folder}: {e}") from None
