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
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tokensmith.errors import InputNotFoundError, UnknownFormatError, VocabFormatError
from tokensmith.io import hf_json, tiktoken_file, vocab_merges, vocab_txt
from tokensmith.io.output_set import OutputSet
from tokensmith.sentencepiece import SentencePieceProcessor
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding
    from tokensmith.hf_tokenizer import Tokenizer

Format = Literal["tiktoken", "tokenizer.json", "vocab+merges", "sentencepiece", "vocab.txt"]

__all__ = ["Format", "check_extension", "format_of", "load", "save"]


def format_of(path: str) -> Format | None:
    """The format a path's name implies when saving, or ``None`` when it implies none.

    >>> format_of("a/tok.model"), format_of("out/dir"), format_of("x.bin")
    ('sentencepiece', 'vocab+merges', None)
    """
    if path.endswith(".model"):
        return "sentencepiece"
    if path.endswith(".tiktoken"):
        return "tiktoken"
    if path.endswith(".json"):
        return "tokenizer.json"
    if path.endswith(".txt"):
        return "vocab.txt"
    if os.path.isdir(path) or path.endswith(os.sep) or not os.path.splitext(path)[1]:
        return "vocab+merges"
    return None


_ENDINGS = {
    "sentencepiece": "end in .model",
    "tiktoken": "end in .tiktoken",
    "tokenizer.json": "end in .json",
    "vocab.txt": "end in .txt",
    "vocab+merges": "be a directory (no suffix)",
}


def check_extension(path: str | PathLike[str], fmt: str) -> None:
    """Refuses a path whose name implies another format than ``fmt``; called before any
    work, by every save.

    >>> check_extension("x.model", "tokenizer.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokensmith.errors.UnknownFormatError: 'x.model' names a sentencepiece file, ... end in .json

    Raises:
        UnknownFormatError: the name implies another format, or none.
    """
    p = os.fspath(path)
    implied = format_of(p)
    if implied == fmt:
        return
    if fmt not in _ENDINGS:
        raise UnknownFormatError(f"format={fmt!r} is not known; use one of {', '.join(_ENDINGS)}")
    what = f"names a {implied} file" if implied else "names no known format"
    raise UnknownFormatError(
        f"{p!r} {what}, but a {fmt} is written there; the path must {_ENDINGS[fmt]}"
    )


def _format_for_save(path: str) -> Format:
    fmt = format_of(path)
    if fmt is None:
        raise UnknownFormatError(
            f"cannot tell the format from {path!r}: end it in .tiktoken (tiktoken + sidecar), "
            ".json (HF tokenizer.json), .model (SentencePiece), .txt (WordPiece vocab.txt), "
            "or give a directory (vocab.json + merges.txt)"
        )
    return fmt


def save(
    encoding: Encoding | Tokenizer | SentencePieceProcessor,
    path: str | PathLike[str],
    *,
    format: Format | None = None,
    overwrite: bool = False,
) -> None:
    """Writes ``encoding`` to ``path`` in the format its name implies (or ``format``).

    Args:
        encoding: A byte-level BPE encoding (trained, loaded or bundled), a
            :class:`~tokensmith.Tokenizer` (written as its ``tokenizer.json`` only), or a
            SentencePiece model (``NAME.model`` only).
        path: ``NAME.tiktoken`` (also writes ``NAME.tiktoken.json``), ``NAME.json``,
            ``NAME.model``, ``vocab.txt`` (a WordPiece Tokenizer), or a directory, created if
            needed (``vocab.json``, ``merges.txt``, ``tokensmith.json``).
        format: The format; the path's name must agree with it.
        overwrite: Replace files that already exist. Without it, an existing output
            raises :class:`~tokensmith.errors.OutputDirError` before anything is written,
            as :meth:`Encoding.save` and the CLI's ``--overwrite`` do.

    Raises:
        UnknownFormatError: the path's suffix names no format, or another one than
            ``format`` (checked before anything is written).
        OutputDirError: an output exists and ``overwrite`` is false.
        InvalidVocabError: a token cannot be written as a merge (merge-list formats only).
    """
    from tokensmith.hf_tokenizer import Tokenizer

    p = os.fspath(path)
    fmt = format or _format_for_save(p)
    check_extension(p, fmt)
    if not overwrite:
        _refuse_existing(p, fmt)
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
        if fmt == "vocab.txt":
            vocab_txt.write(encoding, p)
            return
        if fmt != "tokenizer.json":
            raise UnknownFormatError(
                f"a Tokenizer is saved as a tokenizer.json (or a WordPiece vocab.txt), not as "
                f"{fmt}; end the path in .json (tokensmith convert writes other formats)"
            )
        encoding.save(p)
    elif fmt == "tiktoken":
        tiktoken_file.write(encoding, p)
    elif fmt == "tokenizer.json":
        hf_json.write(encoding, p)
    elif fmt == "vocab+merges":
        vocab_merges.write(encoding, p)
    elif fmt == "vocab.txt":
        raise UnknownFormatError(f"{p!r}: a byte-level BPE encoding has no vocab.txt form")
    else:
        raise UnknownFormatError(f"format={fmt!r} is not known; use one of {Format}")


def _refuse_existing(path: str, fmt: Format) -> None:
    """Raises :class:`OutputDirError` if a file that saving to ``path`` writes exists."""
    if fmt == "vocab+merges":
        folder, names = Path(path), [vocab_merges.SIDECAR, vocab_merges.VOCAB, vocab_merges.MERGES]
    elif fmt == "tiktoken":
        sidecar = Path(tiktoken_file.sidecar_path(path)).name
        folder, names = Path(path).parent, [Path(path).name, sidecar]
    else:
        folder, names = Path(path).parent, [Path(path).name]
    OutputSet(folder, names).check()


def _sniff(path: str) -> Format | Literal["directory"]:
    if os.path.isdir(path):
        return "directory"
    if path.endswith((".tiktoken", ".tiktoken.gz")):
        return "tiktoken"
    if path.endswith(".model"):
        return "sentencepiece"
    if os.path.getsize(path) == 0:
        raise _empty(path)
    base = os.path.basename(path)
    if base == vocab_merges.VOCAB:
        return "vocab+merges"
    if base.endswith(".txt"):
        return "vocab.txt"
    if base.endswith(".json"):
        return "tokenizer.json"
    with open(path, "rb") as f:
        head = f.read(64)
    # A ModelProto starts with its first piece: field 1, length-delimited (key byte 0x0a).
    if head.startswith(b"\x0a") and b"\x0a" in head[2:8]:
        return "sentencepiece"
    head = head.lstrip()
    return "tokenizer.json" if head.startswith(b"{") else "tiktoken"


def _empty(path: str) -> VocabFormatError:
    err = VocabFormatError(f"{path}: the file is empty; it holds no tokenizer")
    err.path = path
    return err


def _tokenizer_json(path: str, name: str | None) -> Encoding | Tokenizer:
    """A ``tokenizer.json`` as :meth:`Tokenizer.from_file` reads it (which validates every
    field), given back as an :class:`Encoding` when it is exactly one."""
    import json

    from tokensmith.hf_tokenizer import Tokenizer

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return _plain_or(Tokenizer.from_file(path), path, name)  # raises from_file's error
    # One parse: the core validates and builds the file, and gives the small rest of it.
    tok, outline = Tokenizer.from_str_outlined(text)
    core_ranks = tok._core.byte_level_ranks()
    if core_ranks is not None:
        data = json.loads(outline)
        renumbered = any(
            tok.token_to_id(t["content"]) != t.get("id")
            for t in data.get("added_tokens") or []
            if isinstance(t, dict) and isinstance(t.get("content"), str)
        )
        found = hf_json.from_ranks(data, *core_ranks, path, name=name or _default_name(path))
        return tok if found is None or renumbered else found
    return _plain_or(tok, path, name)


def _plain_or(tok: Tokenizer, path: str, name: str | None) -> Encoding | Tokenizer:
    """``tok`` as an :class:`Encoding` when its ``tokenizer.json`` is exactly one, else ``tok``."""
    import json

    data = json.loads(tok.to_str())
    if hf_json.encoding_obstacle(data) is not None:
        return tok
    try:
        return hf_json.from_dict(data, path, name=name or _default_name(path))
    except VocabFormatError:
        # Ids out of merge order: HF's merge list still runs, as the Tokenizer does.
        return tok


def _default_name(path: str) -> str:
    return os.path.basename(os.path.normpath(path)).split(".")[0] or "loaded"


def _directory(path: str, name: str | None) -> Encoding | Tokenizer:
    """A folder: transformers' (``tokenizer.json`` with its config), GPT-2's
    (``vocab.json`` + ``merges.txt``), a SentencePiece ``tokenizer.model`` or BERT's
    ``vocab.txt``, tried in this order."""
    from tokensmith.hf_tokenizer import Tokenizer

    def has(file: str) -> bool:
        return os.path.isfile(os.path.join(path, file))

    if has("tokenizer.json"):
        tok = Tokenizer.from_pretrained_dir(path)
        if tok.config == type(tok.config)():
            return _plain_or(tok, os.path.join(path, "tokenizer.json"), name)
        return tok
    if has(vocab_merges.VOCAB) and has(vocab_merges.MERGES):
        return vocab_merges.read(path, name=name or _default_name(path))
    if has("tokenizer.model"):
        return SentencePieceTokenizer.from_file(os.path.join(path, "tokenizer.model"))
    if has("vocab.txt"):
        return vocab_txt.read(os.path.join(path, "vocab.txt"))
    raise UnknownFormatError(
        f"{path}: the folder holds none of tokenizer.json, vocab.json + merges.txt, "
        "tokenizer.model or vocab.txt"
    )


def load(
    path: str | PathLike[str], *, format: Format | None = None, name: str | None = None
) -> Encoding | Tokenizer:
    """Reads a tokenizer file or folder written by :func:`save`, tiktoken, HF tokenizers,
    transformers, sentencepiece or GPT-2, keeping everything it defines.

    A ``tokenizer.json`` is parsed once, by the core that :meth:`Tokenizer.from_file` uses
    (validating as it builds), so both accept and refuse the same files and give the same
    ids; when the file is exactly a tiktoken-style byte-level BPE
    (:func:`~tokensmith.io.hf_json.encoding_obstacle` finds nothing in the file's outline,
    and the core's ranks hold every vocabulary entry), it comes back as an
    :class:`Encoding`, else as the :class:`~tokensmith.Tokenizer`.

    The format is detected: a folder holds ``tokenizer.json`` (with transformers' config
    files), ``vocab.json`` + ``merges.txt``, ``tokenizer.model`` or ``vocab.txt``;
    ``*.model`` (or a file that starts as a protobuf ``ModelProto``) is SentencePiece and
    loads as a :class:`~tokensmith.sentencepiece_backend.SentencePieceTokenizer`; ``*.txt``
    is a WordPiece ``vocab.txt``; ``vocab.json`` loads its folder; ``*.json`` or a file that
    starts with ``{`` is a ``tokenizer.json``; anything else is a ``.tiktoken`` file (its
    sidecar, if any, gives the pattern and special tokens). Passing ``NAME.tiktoken.json``
    loads ``NAME.tiktoken``.

    Raises:
        InputNotFoundError: ``path`` does not exist (the message names it).
        VocabFormatError: the file is empty or malformed.
        TokenizerJsonError: a ``tokenizer.json`` is malformed (names the JSON path).
    """
    p = os.fspath(path)
    if format is None and p.endswith(".tiktoken" + tiktoken_file.SIDECAR_SUFFIX):
        p = p[: -len(tiktoken_file.SIDECAR_SUFFIX)]
    if not os.path.exists(p):
        raise InputNotFoundError(f"{p}: no such file or directory")
    fmt = format or _sniff(p)
    if fmt == "directory":
        loaded = _directory(p, name)
    elif fmt == "sentencepiece":
        return SentencePieceTokenizer.from_file(p)
    elif fmt == "vocab.txt":
        return vocab_txt.read(p)
    elif fmt == "tokenizer.json":
        loaded = _tokenizer_json(p, name)
    elif fmt == "tiktoken":
        loaded = tiktoken_file.read(p)
    elif fmt == "vocab+merges":
        folder = os.path.dirname(p) if os.path.isfile(p) else p
        loaded = vocab_merges.read(folder, name=name or _default_name(folder))
    else:
        raise UnknownFormatError(f"format={fmt!r} is not known; use one of {Format}")
    if name is not None and isinstance(loaded, _encoding_type()):
        loaded.name = name
    return loaded


def _encoding_type() -> type[Encoding]:
    from tokensmith.encoding import Encoding

    return Encoding
