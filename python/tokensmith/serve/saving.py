"""Saving a tokenizer trained in the page into ``--dir``, so that it outlives the server.

A trained tokenizer is written to ``--dir``/``trained/`` in the one format that loads back as
what it is: a byte-level BPE as ``NAME.tiktoken`` (with its ``NAME.tiktoken.json`` sidecar:
pattern and special tokens), a WordPiece tokenizer as ``NAME.json`` (a ``tokenizer.json``),
a Unigram model as ``NAME.model``. On the next start the catalog lists the folder's files,
these among them.

The files are written into a hidden folder beside their place, then renamed into it, the
file the catalog lists last: a crash leaves no half-written tokenizer on offer. A name in
use gets ``-2``, ``-3``…; the name from the page keeps only letters, digits, ``.``, ``_`` and
``-``.

>>> safe_stem("my BPE/../x"), safe_stem("..."), safe_stem("日本")
('my-BPE-..-x', 'trained', 'trained')

Not handled: overwriting or deleting a saved tokenizer (delete its files by hand).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from tokensmith.encoding import Encoding
from tokensmith.errors import ArgumentTypeError, TokensmithError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.sentencepiece import SentencePieceProcessor
from tokensmith.serve.safe_paths import PathRefusedError

__all__ = ["SAVED_FOLDER", "NoSaveFolderError", "safe_stem", "save_trained"]

#: Where under ``--dir`` trained tokenizers are saved.
SAVED_FOLDER = "trained"

_choosing = threading.Lock()


class NoSaveFolderError(TokensmithError, OSError):
    """The server was started without ``--dir``: it has nowhere to save."""


def safe_stem(name: str) -> str:
    """``name`` as a file name: runs of other characters become ``-``; never empty or
    hidden."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name)[:40].strip(".-")
    return stem or "trained"


def _suffixes(tokenizer: Any) -> tuple[str, ...]:
    """The files one saved tokenizer is made of, the one the catalog lists last."""
    if isinstance(tokenizer, Encoding):
        return (".tiktoken.json", ".tiktoken")
    if isinstance(tokenizer, SentencePieceProcessor):
        return (".model",)
    if isinstance(tokenizer, Tokenizer):
        return (".json",)
    raise ArgumentTypeError(f"cannot save a {type(tokenizer).__name__}")


def _folder(root: Path) -> Path:
    """``root``/``trained``, made if missing; refused if it is a symlink or not a folder."""
    folder = root / SAVED_FOLDER
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise PathRefusedError(f"{folder} is not a plain folder: trained tokenizers go there")
    folder.mkdir(exist_ok=True)
    return folder


def save_trained(tokenizer: Any, *, root: Path | None, name: str) -> str:
    """Saves ``tokenizer`` under ``root`` and returns its path there (``trained/NAME.model``).

    Raises:
        NoSaveFolderError: ``root`` is None (no ``--dir``).
        PathRefusedError: ``root/trained`` is a symlink or a file.
        OutputWriteError, OSError: the files could not be written (nothing is left on offer).
    """
    import tokensmith

    if root is None:
        raise NoSaveFolderError(
            "this server has no folder to save into: start it with "
            "`tokensmith serve --dir DIR` to save trained tokenizers in DIR/trained/ "
            "(or use the download links)"
        )
    suffixes = _suffixes(tokenizer)
    folder = _folder(root)
    stem = safe_stem(name)
    scratch = Path(tempfile.mkdtemp(prefix=".saving-", dir=folder))
    try:
        tokensmith.save(tokenizer, scratch / f"{stem}{suffixes[-1]}")
        with _choosing:
            final = stem
            n = 1
            while any((folder / f"{final}{s}").exists() for s in suffixes):
                n += 1
                final = f"{stem}-{n}"
            for suffix in suffixes:  # the listed file last
                os.replace(scratch / f"{stem}{suffix}", folder / f"{final}{suffix}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return f"{SAVED_FOLDER}/{final}{suffixes[-1]}"
