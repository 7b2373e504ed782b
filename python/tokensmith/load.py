"""Loading vocabularies from files.

>>> import tokensmith, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
>>> _ = open(path, "w").write("YQ== 0\\nYg== 1\\nYWI= 2\\n")
>>> sorted(tokensmith.load_tiktoken_bpe(path).items())
[(b'a', 0), (b'ab', 2), (b'b', 1)]
"""

from __future__ import annotations

from os import PathLike

from tokensmith._core import O200K_PATTERN, read_tiktoken
from tokensmith.encoding import Encoding


def load_tiktoken_bpe(path: str | PathLike[str]) -> dict[bytes, int]:
    """Reads a ``.tiktoken`` file (plain or gzipped) into ``{token bytes: rank}``.

    Errors name the file and the 1-based line at fault
    (:class:`~tokensmith.errors.VocabFormatError`).
    """
    return dict(read_tiktoken(path))


def load_tiktoken(
    path: str | PathLike[str],
    *,
    name: str | None = None,
    pat_str: str = O200K_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Encoding:
    """Loads any ``.tiktoken`` file as an :class:`Encoding` (parsed in Rust).

    Args:
        path: The file, plain or gzipped.
        name: The encoding's name; defaults to the file name.
        pat_str: The split pattern; defaults to o200k_base's.
        special_tokens: Special-token text to id.
    """
    import os

    return Encoding.from_tiktoken_file(
        name or os.path.basename(os.fspath(path)),
        path,
        pat_str=pat_str,
        special_tokens=dict(special_tokens or {}),
    )
