"""Reading training text: files (plain, gzip or zstd; text lines, JSONL or Parquet) or an HF
``datasets`` object.

A :class:`Corpus` is an iterable of strings that reads its sources lazily, one line (or record
batch) at a time, so the trainer (which pulls strings in chunks) never holds more than a chunk
in memory. The reading itself is :mod:`tokensmith.records`, shared with ``encode-dataset``.

>>> import gzip, os, tempfile
>>> d = tempfile.mkdtemp()
>>> with gzip.open(os.path.join(d, "a.txt.gz"), "wb") as f:
...     _ = f.write(b"hello\\nw\\xf6rld\\n")
>>> corpus = Corpus(os.path.join(d, "*.gz"))
>>> list(corpus)
['hello\\n', 'w\\ufffdrld\\n']
>>> corpus.stats.replaced, corpus.stats.lines
(1, 2)

- Text files give one string per line, line ending included (as HF ``Tokenizer.train``
  reads files). A line longer than 1 MiB is cut into pieces of about 1 MiB at character
  boundaries, so one huge line cannot fill memory.
- JSONL files (``.jsonl``/``.ndjson``/``.json``, compressed or not, or ``format="jsonl"``)
  give the string in ``field`` of each record; null values are passed over.
- Parquet files (``.parquet``, or ``format="parquet"``) give the ``field`` column, read by
  pyarrow in record batches.
- An HF ``datasets.Dataset`` or ``IterableDataset`` gives its ``field`` column.
- Compression is detected from the file's first bytes (or a ``.gz``/``.zst`` suffix): gzip
  always, zstd when the ``zstandard`` package is installed (not a dependency of tokensmith).
- Invalid UTF-8 becomes U+FFFD and is counted in ``stats.replaced``; with
  ``errors="strict"`` it raises :class:`~tokensmith.errors.CorpusFormatError` naming the file,
  the line and the byte offset (in the decompressed stream).
- A JSONL record or Parquet row without text raises
  :class:`~tokensmith.errors.DatasetRecordError` (a ``CorpusFormatError``) with the file and
  line, or, with ``on_error="skip"``, is skipped and counted in ``stats.skipped``.

Not handled: other compressions (bz2, xz).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator, Sequence
from os import PathLike
from typing import Any, Literal

from tokensmith.errors import InputNotFoundError, InputReadError, InvalidArgumentError
from tokensmith.records import (
    MAX_LINE_BYTES,
    Errors,
    OnError,
    ReadOptions,
    ReadStats,
    dataset_name,
    file_kind,
    is_hf_dataset,
    read_dataset,
    read_file,
    read_line_blocks,
    read_text_lines,
)

__all__ = ["Corpus", "CorpusStats", "expand_inputs"]

Format = Literal["auto", "text", "jsonl", "parquet"]
Inputs = str | PathLike[str] | Sequence[str | PathLike[str]]

CorpusStats = ReadStats
"""What a :class:`Corpus` has read so far (files, lines, bytes, replaced, skipped)."""

_GLOB_CHARS = set("*?[")


def expand_inputs(inputs: Inputs) -> list[str]:
    """Paths and glob patterns to a list of files, in the order given (each glob sorted).

    ``**`` matches any number of directories.

    Raises:
        InputNotFoundError: a path does not exist or a pattern matches no file.
        InputReadError: a path is a directory.
    """
    items = [inputs] if isinstance(inputs, (str, PathLike)) else list(inputs)
    files: list[str] = []
    for item in items:
        p = os.fspath(item)
        if _GLOB_CHARS & set(p) and not os.path.exists(p):
            matches = sorted(m for m in glob.glob(p, recursive=True) if os.path.isfile(m))
            if not matches:
                raise InputNotFoundError(f"{p}: no file matches this pattern")
            files.extend(matches)
        elif os.path.isdir(p):
            raise InputReadError(f"{p}: is a directory; pass a pattern such as {p}/**/*.txt")
        elif not os.path.exists(p):
            raise InputNotFoundError(f"{p}: no such file")
        else:
            files.append(p)
    if not files:
        raise InputNotFoundError("no input files were given")
    return files


class Corpus:
    """Sources read lazily as an iterable of strings; iterate it more than once if you like.

    Args:
        inputs: A path or glob pattern, or a list of them; or an HF ``datasets.Dataset`` /
            ``IterableDataset`` (its ``field`` column is read).
        format: ``"auto"`` (from the file name: JSONL for ``.jsonl``/``.ndjson``/``.json``,
            Parquet for ``.parquet``, else text), ``"text"``, ``"jsonl"`` or ``"parquet"``.
        field: The JSONL field, Parquet column or dataset column that holds the text.
        errors: ``"replace"`` (default) or ``"strict"`` for invalid UTF-8.
        on_error: ``"raise"`` (default) or ``"skip"`` a record that gives no text.
        on_progress: Called with the number of (compressed) bytes read from disk so far,
            after each file and every 4 MiB or so; ``total_bytes`` is the sum of the sizes.
    """

    def __init__(
        self,
        inputs: Inputs | Any,
        *,
        format: Format = "auto",
        field: str = "text",
        errors: Errors = "replace",
        on_error: OnError = "raise",
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        if format not in ("auto", "text", "jsonl", "parquet"):
            raise InvalidArgumentError(
                f'format={format!r} is not known; use "auto", "text", "jsonl" or "parquet"'
            )
        self.options = ReadOptions(
            field=field,
            errors=errors,
            on_error=on_error,
            lines="raw",
            skip_null=True,
            max_line_bytes=MAX_LINE_BYTES,
        )
        self.dataset: Any = inputs if is_hf_dataset(inputs) else None
        self.files = [] if self.dataset is not None else expand_inputs(inputs)
        self.format = format
        self.field = field
        self.errors = errors
        self.on_progress = on_progress
        self.stats = CorpusStats()
        self.total_bytes = sum(os.path.getsize(p) for p in self.files)

    @property
    def description(self) -> str:
        """The sources in a few words, for summaries."""
        if self.dataset is not None:
            return dataset_name(self.dataset)
        return f"{len(self.files)} files"

    def __iter__(self) -> Iterator[str]:
        self.stats = stats = CorpusStats()
        if self.dataset is not None:
            for record in read_dataset(self.dataset, self.options, stats):
                yield record.text
            stats.files = 1
            return
        done = 0
        for path in self.files:
            kind = self.format if self.format != "auto" else file_kind(path)
            if kind == "text":
                yield from read_text_lines(path, self.options, stats, self._on_disk(done))
            else:
                for record in read_file(path, kind, self.options, stats, self._on_disk(done)):
                    yield record.text
            done += os.path.getsize(path)
            stats.files += 1
            if self.on_progress:
                self.on_progress(done)

    @property
    def text_files_only(self) -> bool:
        """True if every source is a text file (plain or compressed), not JSONL, Parquet or a
        dataset: :meth:`line_blocks` can read it."""
        if self.dataset is not None:
            return False
        kinds = (self.format if self.format != "auto" else file_kind(p) for p in self.files)
        return all(kind == "text" for kind in kinds)

    def line_blocks(self, max_line: int) -> Iterator[bytes]:
        """The text files' bytes in blocks of whole lines, undecoded, for a reader that skips
        lines longer than ``max_line`` bytes (see :func:`~tokensmith.records.read_line_blocks`).
        ``stats`` counts files, lines and bytes."""
        self.stats = stats = CorpusStats()
        done = 0
        for path in self.files:
            yield from read_line_blocks(path, max_line, stats, self._on_disk(done))
            done += os.path.getsize(path)
            stats.files += 1
            if self.on_progress:
                self.on_progress(done)

    def _on_disk(self, before: int) -> Callable[[int], None] | None:
        """Progress within one file, as bytes of the whole corpus."""
        callback = self.on_progress
        if callback is None:
            return None
        return lambda pos: callback(before + pos)
