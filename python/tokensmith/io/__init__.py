"""Saving and loading tokenizers: ``.tiktoken``, ``tokenizer.json``, ``vocab.json``+``merges.txt``,
and SentencePiece ``.model`` files.

The format follows the path: ``*.tiktoken`` (with a ``*.tiktoken.json`` sidecar), ``*.json``
(HF ``tokenizer.json``), ``*.model`` (SentencePiece), or a directory (GPT-2's ``vocab.json`` +
``merges.txt``). Every file is written atomically. A ``.model`` loads as a
:class:`~tokensmith.SentencePieceTokenizer` (a :class:`~tokensmith.Tokenizer`).

>>> import os, tempfile, tokensmith
>>> enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="tiny")
>>> d = tempfile.mkdtemp()
>>> for out in ("tiny.tiktoken", "tokenizer.json", "vocab"):
...     tokensmith.save(enc, os.path.join(d, out))
...     print(out, tokensmith.load(os.path.join(d, out)).encode(" lower"))
tiny.tiktoken [261]
tokenizer.json [261]
vocab [261]

A ``tokenizer.json`` that is not a byte-level BPE (a character-level or Metaspace BPE from
``train_bpe(kind=...)``, a WordPiece, ...) loads as a :class:`~tokensmith.Tokenizer` that runs
it in tokensmith's HF pipeline, and a SentencePiece ``.model`` as a
:class:`~tokensmith.sentencepiece_backend.SentencePieceTokenizer` (a ``Tokenizer`` too).

Not handled: converting between byte-level BPE and SentencePiece (an ``Encoding`` cannot be
saved as ``.model``).
"""

from __future__ import annotations

import os
from os import PathLike
from typing import TYPE_CHECKING, Literal

from tokensmith.errors import InputNotFoundError, UnknownFormatError
from tokensmith.io import hf_json, tiktoken_file, vocab_merges
from tokensmith.sentencepiece import SentencePieceProcessor
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding
    from tokensmith.hf_tokenizer import Tokenizer

Format = Literal["tiktoken", "tokenizer.json", "vocab+merges", "sentencepiece"]

__all__ = ["Format", "load", "save"]


def _format_for_save(path: str) -> Format:
    if path.endswith(".model"):
        return "sentencepiece"
    if path.endswith(".tiktoken"):
        return "tiktoken"
    if path.endswith(".json"):
        return "tokenizer.json"
    if os.path.isdir(path) or path.endswith(os.sep) or not os.path.splitext(path)[1]:
        return "vocab+merges"
    raise UnknownFormatError(
        f"cannot tell the format from {path!r}: end it in .tiktoken (tiktoken + sidecar), "
        ".json (HF tokenizer.json), or give a directory (vocab.json + merges.txt), "
        "or pass format=..."
    )


def save(
    encoding: Encoding | Tokenizer | SentencePieceProcessor,
    path: str | PathLike[str],
    *,
    format: Format | None = None,
) -> None:
    """Writes ``encoding`` to ``path`` in the format its name implies (or ``format``).

    Args:
        encoding: A byte-level BPE encoding (trained, loaded or bundled), a
            :class:`~tokensmith.Tokenizer` (written as its ``tokenizer.json`` only), or a
            SentencePiece model (``NAME.model`` only).
        path: ``NAME.tiktoken`` (also writes ``NAME.tiktoken.json``), ``NAME.json``, or a
            directory, created if needed (``vocab.json``, ``merges.txt``, ``tokensmith.json``).
        format: Overrides the guess from the path.

    Raises:
        UnknownFormatError: the path's suffix names no format.
        InvalidVocabError: a token cannot be written as a merge (merge-list formats only).
    """
    from tokensmith.hf_tokenizer import Tokenizer

    p = os.fspath(path)
    fmt = format or _format_for_save(p)
    if isinstance(encoding, (SentencePieceTokenizer, SentencePieceProcessor)):
        if fmt != "sentencepiece":
            raise UnknownFormatError(
                f"a SentencePiece model is saved as a .model file, not as {fmt!r}: "
                f"use a path ending in .model (got {p!r})"
            )
        encoding.save(p)
        return
    if fmt == "sentencepiece":
        raise UnknownFormatError(
            f"{p!r}: only SentencePiece models are saved as .model; a byte-level BPE "
            "encoding goes to .tiktoken, .json or a directory"
        )
    if isinstance(encoding, Tokenizer):
        if fmt != "tokenizer.json":
            raise UnknownFormatError(
                f"a Tokenizer is saved as a tokenizer.json only, not as {fmt}; end the path "
                "in .json"
            )
        encoding.save(p)
    elif fmt == "tiktoken":
        tiktoken_file.write(encoding, p)
    elif fmt == "tokenizer.json":
        hf_json.write(encoding, p)
    elif fmt == "vocab+merges":
        vocab_merges.write(encoding, p)
    else:
        raise UnknownFormatError(f"format={fmt!r} is not known; use one of {Format}")


def _sniff(path: str) -> Format:
    if os.path.isdir(path):
        return "vocab+merges"
    if path.endswith(".tiktoken") or path.endswith(".tiktoken.gz"):
        return "tiktoken"
    if path.endswith(".model"):
        return "sentencepiece"
    with open(path, "rb") as f:
        head = f.read(64)
    # A ModelProto starts with its first piece: field 1, length-delimited (key byte 0x0a).
    if head.startswith(b"\x0a") and b"\x0a" in head[2:8]:
        return "sentencepiece"
    head = head.lstrip()
    return "tokenizer.json" if head.startswith(b"{") else "tiktoken"


def load(
    path: str | PathLike[str], *, format: Format | None = None, name: str | None = None
) -> Encoding | Tokenizer:
    """Reads an encoding written by :func:`save` (or by tiktoken, HF tokenizers or GPT-2).

    A ``tokenizer.json`` of a byte-level BPE gives an :class:`Encoding`; any other one
    (character-level or Metaspace BPE, WordPiece, ...) gives a :class:`~tokensmith.Tokenizer`
    that runs it in tokensmith's HF pipeline.

    The format is detected: a directory holds ``vocab.json`` + ``merges.txt``; ``*.model`` (or
    a file that starts as a protobuf ``ModelProto``) is SentencePiece and loads as a
    :class:`~tokensmith.sentencepiece_backend.SentencePieceTokenizer`; a file that starts with
    ``{`` is a ``tokenizer.json``; anything else is a ``.tiktoken`` file (its sidecar, if any,
    gives the pattern and special tokens). Passing ``NAME.tiktoken.json`` loads
    ``NAME.tiktoken``.

    Raises:
        InputNotFoundError: ``path`` does not exist (the message names it).
        VocabFormatError: the file is malformed or not a byte-level BPE.
    """
    p = os.fspath(path)
    if format is None and p.endswith(".tiktoken" + tiktoken_file.SIDECAR_SUFFIX):
        p = p[: -len(tiktoken_file.SIDECAR_SUFFIX)]
    if not os.path.exists(p):
        raise InputNotFoundError(f"{p}: no such file or directory")
    fmt = format or _sniff(p)
    if fmt == "sentencepiece":
        return SentencePieceTokenizer.from_file(p)
    default_name = os.path.basename(os.path.normpath(p)).split(".")[0] or "loaded"
    if fmt == "tiktoken":
        enc = tiktoken_file.read(p)
    elif fmt == "tokenizer.json":
        if not hf_json.is_byte_level(p):
            from tokensmith.hf_tokenizer import Tokenizer

            return Tokenizer.from_file(p)
        enc = hf_json.read(p, name=default_name)
    elif fmt == "vocab+merges":
        enc = vocab_merges.read(p, name=default_name)
    else:
        raise UnknownFormatError(f"format={fmt!r} is not known; use one of {Format}")
    if name is not None:
        enc.name = name
    return enc
