"""Files the page may name: only under ``--dir``, never through ``..``, an absolute path or a
symlink that leads out of it.

>>> import tempfile, os
>>> root = Path(tempfile.mkdtemp())
>>> _ = (root / "a.tiktoken").write_text("")
>>> resolve_under(root, "a.tiktoken") == (root / "a.tiktoken").resolve()
True
>>> try:
...     resolve_under(root, "../etc/passwd")
... except PathRefusedError as e:
...     print(e)
'../etc/passwd' is not a file under the served folder
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from tokensmith.errors import TokensmithError

__all__ = ["PathRefusedError", "list_tokenizer_files", "resolve_under"]

#: File names that hold a tokenizer tokensmith loads.
SUFFIXES = (".tiktoken", ".tiktoken.gz", ".json", ".model")

_MAX_FILES = 500
_MAX_DEPTH = 4


class PathRefusedError(TokensmithError, PermissionError):
    """A path from the page points outside the served folder, or at nothing there."""


def resolve_under(root: Path, relative: str) -> Path:
    """The real path of ``relative`` inside ``root``.

    Raises:
        PathRefusedError: ``relative`` is absolute, has a ``..`` or a backslash, or resolves
            (after following symlinks) outside ``root``, or names nothing.
    """
    refused = PathRefusedError(f"{relative!r} is not a file under the served folder")
    pure = PurePosixPath(relative)
    if (
        not relative
        or "\\" in relative
        or "\x00" in relative
        or pure.is_absolute()
        or any(part in ("..", "") for part in relative.split("/"))
    ):
        raise refused
    base = root.resolve()
    real = (base / pure).resolve()
    if real != base and base not in real.parents:
        raise refused
    if not real.exists():
        raise refused
    return real


def _is_tokenizer_file(name: str) -> bool:
    return (
        name.endswith(SUFFIXES)
        and not name.endswith(".tiktoken.json")
        and not name.endswith(
            ("tokenizer_config.json", "special_tokens_map.json", "vocab.json", "tokensmith.json")
        )
    )


def list_tokenizer_files(root: Path) -> list[str]:
    """Tokenizer files and folders under ``root`` as ``/``-separated relative paths, sorted.

    A folder with a ``tokenizer.json`` is listed as the folder (it may hold a chat template);
    a folder with ``vocab.json`` + ``merges.txt`` too. Symlinks are not followed.
    """
    base = root.resolve()
    found: list[str] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        here = Path(folder)
        rel = here.relative_to(base)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and len(rel.parts) < _MAX_DEPTH)
        names = set(files)
        if rel.parts and ("tokenizer.json" in names or {"vocab.json", "merges.txt"} <= names):
            found.append(rel.as_posix())
            continue
        for name in sorted(names):
            if _is_tokenizer_file(name) and not (here / name).is_symlink():
                found.append((rel / name).as_posix())
        if len(found) >= _MAX_FILES:
            break
    return sorted(found[:_MAX_FILES])
