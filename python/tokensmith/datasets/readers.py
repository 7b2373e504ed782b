"""Numbered documents out of dataset inputs: text, JSONL and Parquet files, HF datasets.

Every document gets a global index: its position in the stream of documents read from the
inputs in the order given. The index depends only on the inputs, never on how the job is
batched or on how many workers encode it, so shard boundaries and resumption can rely on it.

The reading is :mod:`tokensmith.records`, the reader training uses too, with the options of a
document stream:

- Text files (``.txt`` or anything unrecognised): one document per line, without its line
  ending, blank lines skipped; or, with ``text_mode="file"``, the whole file as one document.
- JSONL (``.jsonl``, ``.ndjson``, ``.json``): one document per line, taken from ``text_field``.
- Parquet (``.parquet``): one document per row of the ``text_field`` column (needs pyarrow).
- An HF ``datasets.Dataset`` or ``IterableDataset``: one document per row of ``text_field``.

``.gz`` and ``.zst`` are decompressed on the fly (``.zst`` needs the ``zstandard`` package).
Invalid UTF-8 raises by default (``errors="strict"``, naming the file, line and byte offset),
or becomes U+FFFD with ``errors="replace"`` (counted in ``ReadStats.replaced``).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
>>> _ = open(path, "w").write("a\\n\\nb\\n")
>>> [(d.index, d.text, d.line) for d in read_documents([path])]
[(0, 'a', 1), (1, 'b', 3)]

Not handled here: remote (``s3://``, ``hf://``) paths.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from tokensmith.errors import InputNotFoundError, InvalidArgumentError
from tokensmith.records import (
    Errors,
    OnError,
    ReadOptions,
    ReadStats,
    file_kind,
    is_hf_dataset,
    read_dataset,
    read_file,
)

__all__ = [
    "Document",
    "OnError",
    "ReadStats",
    "TextMode",
    "document_options",
    "input_kind",
    "read_documents",
]

TextMode = Literal["line", "file"]
Source = str | os.PathLike[str] | Any
input_kind = file_kind


@dataclass(frozen=True)
class Document:
    """One document: its global index, its text, and where it came from."""

    index: int
    text: str
    path: str
    line: int


def read_documents(
    inputs: Iterable[Source],
    *,
    text_field: str = "text",
    text_mode: TextMode = "line",
    on_error: OnError = "raise",
    errors: Errors = "strict",
    stats: ReadStats | None = None,
) -> Iterator[Document]:
    """Yields every document of ``inputs`` (paths or HF datasets), in order, numbered from 0
    across all of them."""
    opts = document_options(text_field, text_mode, on_error, errors)
    stats = stats if stats is not None else ReadStats()
    index = 0
    for source in inputs:
        if is_hf_dataset(source):
            records = read_dataset(source, opts, stats)
        else:
            path = os.fspath(source)
            if not os.path.isfile(path):
                raise InputNotFoundError(f"input file not found: {path}")
            records = read_file(path, file_kind(path), opts, stats)
        for record in records:
            yield Document(index, record.text, record.source, record.line)
            index += 1


def document_options(
    text_field: str, text_mode: TextMode, on_error: OnError, errors: Errors
) -> ReadOptions:
    """How a document stream reads its sources (see the module docstring)."""
    if text_mode not in ("line", "file"):
        raise InvalidArgumentError(f"text_mode must be 'line' or 'file', not {text_mode!r}")
    return ReadOptions(
        field=text_field,
        errors=errors,
        on_error=on_error,
        lines="stripped",
        whole_file=text_mode == "file",
    )
