"""``convert``: one tokenizer, written in another format, verified before it is written.

Conversions:

- bundled names, ``.tiktoken``, byte-level ``tokenizer.json`` -> ``tokenizer.json`` (special
  ids kept), ``.tiktoken`` + sidecar, or a vocab + merges folder;
- ``.model`` (Unigram, BPE) -> ``tokenizer.json`` with sentencepiece's ids;
- Metaspace BPE / Unigram ``tokenizer.json`` -> ``.model``;
- WordPiece ``vocab.txt`` <-> ``tokenizer.json``.

The steps: the output's extension is checked against the format; the source is loaded with
:func:`tokensmith.load`; the target is built in memory (a component the format cannot express
raises :class:`~tokensmith.errors.InexpressibleComponentError` naming it); source and target
run on the probe set and the ``verify`` files (:mod:`tokensmith.conversion.verify`). Only an
identical result is written, unless ``lossy=True``, which writes the target anyway and reports
its mismatch rate. Each file is written atomically.

>>> import os, tempfile
>>> out = os.path.join(tempfile.mkdtemp(), "cl100k.json")
>>> report = convert("cl100k_base", out)
>>> report.verification.ok, report.format
(True, 'tokenizer.json')
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

from tokensmith.conversion import spm_json
from tokensmith.conversion.verify import VerifyReport, verify_pair
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    ConversionMismatchError,
    InexpressibleComponentError,
    UnknownFormatError,
)
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.io import Format, check_extension, format_of, hf_json, vocab_txt
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

__all__ = ["ConversionReport", "convert"]

FORMATS: tuple[Format, ...] = (
    "tokenizer.json",
    "tiktoken",
    "vocab+merges",
    "sentencepiece",
    "vocab.txt",
)


@dataclass
class ConversionReport:
    """What :func:`convert` did.

    Attributes:
        source: The source as given.
        out: The path written.
        format: The target format.
        lossy: Whether differences were allowed.
        verification: Source against target on the probe set and the given files.
    """

    source: str
    out: str
    format: Format
    lossy: bool
    verification: VerifyReport

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "out": self.out,
            "format": self.format,
            "lossy": self.lossy,
            "verification": self.verification.to_dict(),
        }


def _as_encoding(tok: Encoding | Tokenizer, fmt: str) -> Encoding:
    if isinstance(tok, Encoding):
        return tok
    if isinstance(tok, SentencePieceTokenizer):
        raise InexpressibleComponentError(
            f"model SentencePiece has no {fmt} equivalent (a byte-level BPE has)"
        )
    problem = hf_json.encoding_obstacle(json.loads(tok.to_str()))
    if problem is None:  # a plain byte-level BPE whose ids are not in merge order
        problem = "model.merges are not in id order"
    raise InexpressibleComponentError(f"{problem}: {fmt} holds only a tiktoken-style BPE")


def _target(
    tok: Encoding | Tokenizer, fmt: Format, lossy: bool
) -> tuple[Encoding | Tokenizer, Callable[[str], None]]:
    """The target in memory and how to write it."""
    from tokensmith.io import tiktoken_file, vocab_merges

    if fmt in ("tiktoken", "vocab+merges"):
        enc = _as_encoding(tok, ".tiktoken" if fmt == "tiktoken" else "vocab + merges")
        if fmt == "tiktoken":
            return enc, lambda path: tiktoken_file.write(enc, path)
        hf_json.merges_of(enc)  # refuses a vocabulary that is no merge list, before writing
        return enc, lambda path: vocab_merges.write(enc, path)
    if fmt == "tokenizer.json":
        if isinstance(tok, Encoding):
            text = json.dumps(hf_json.to_dict(tok), ensure_ascii=False, indent=2) + "\n"
        elif isinstance(tok, SentencePieceTokenizer):
            text = spm_json.model_to_json(tok.processor)
        else:
            text = tok.to_str()
        target = Tokenizer.from_str(text)
        return target, target.save
    if fmt == "sentencepiece":
        if isinstance(tok, SentencePieceTokenizer):
            return tok, tok.save
        if isinstance(tok, Encoding):
            raise InexpressibleComponentError(
                "pre_tokenizer Split (a byte-level BPE) has no .model equivalent"
            )
        sp = SentencePieceTokenizer(spm_json.json_to_model(json.loads(tok.to_str()), lossy=lossy))
        return sp, sp.save
    if fmt == "vocab.txt":
        if not isinstance(tok, Tokenizer) or isinstance(tok, SentencePieceTokenizer):
            raise InexpressibleComponentError("model is not WordPiece; vocab.txt holds WordPiece")
        tokens = vocab_txt.vocab_tokens(tok)
        lowercase = bool((json.loads(tok.to_str()).get("normalizer") or {}).get("lowercase"))
        target = Tokenizer.from_str(vocab_txt.tokenizer_json_text(tokens, lowercase=lowercase))
        return target, lambda path: vocab_txt.write(tok, path)
    raise UnknownFormatError(f"format {fmt!r} is not known; use one of {', '.join(FORMATS)}")


def convert(
    source: Any,
    out: str | PathLike[str],
    *,
    to: Format | None = None,
    verify: Sequence[str | PathLike[str]] = (),
    lossy: bool = False,
) -> ConversionReport:
    """Writes ``source`` to ``out`` in another format, verified first.

    Args:
        source: Anything :func:`tokensmith.load` takes.
        out: The output path; its name must match the format.
        to: The format (default: from ``out``'s name): ``tokenizer.json``, ``tiktoken``,
            ``vocab+merges`` (a folder), ``sentencepiece`` (``.model``) or ``vocab.txt``.
        verify: Text files whose lines are checked besides the built-in probe set.
        lossy: Write the target even when verification finds differences.

    Raises:
        UnknownFormatError: ``out``'s name does not match the format (before any work).
        InexpressibleComponentError: the format cannot express a component (named).
        ConversionMismatchError: the target gives other ids than the source (and ``lossy``
            is off); nothing is written.
        InputNotFoundError: the source or a verify file does not exist.
    """
    path = os.fspath(out)
    fmt = to or format_of(path)
    if fmt is None:
        raise UnknownFormatError(
            f"cannot tell the format from {path!r}; end it in .json, .tiktoken, .model or .txt, "
            "give a folder, or pass to=..."
        )
    check_extension(path, fmt)
    for file in verify:
        if not os.path.isfile(file):
            from tokensmith.errors import InputNotFoundError

            raise InputNotFoundError(f"{os.fspath(file)}: no such file to verify on")
    from tokensmith.load import load

    loaded = load(source)
    target, write = _target(loaded, fmt, lossy)
    report = verify_pair(loaded, target, verify)
    if not report.ok and not lossy:
        raise ConversionMismatchError(
            f"the {fmt} differs from the source on {report.texts - report.identical} of "
            f"{report.texts} texts (nothing written; pass lossy=True / --lossy to write it "
            f"anyway):\n{report.summary()}"
        )
    write(path)
    label = os.fspath(source) if isinstance(source, (str, PathLike)) else type(source).__name__
    return ConversionReport(label, path, fmt, lossy, report)
