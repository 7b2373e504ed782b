"""Reading documents out of dataset inputs: text, JSONL and Parquet files.

Every document gets a global index: its position in the stream of documents read from the
inputs in the order given. The index depends only on the inputs, never on how the job is
batched or on how many workers encode it, so shard boundaries and resumption can rely on it.

- Text files (``.txt`` or anything unrecognised): one document per line, without its line
  ending, blank lines skipped; or, with ``text_mode="file"``, the whole file as one document.
- JSONL (``.jsonl``, ``.ndjson``, ``.json``): one document per line, taken from ``text_field``.
- Parquet (``.parquet``): one document per row of the ``text_field`` column (needs pyarrow).

A ``.gz`` or ``.zst`` suffix on a text or JSONL file is decompressed on the fly (``.zst`` needs
the ``zstandard`` package). Text is decoded as UTF-8; invalid bytes raise.

>>> import io
>>> [d.text for d in _documents_from_lines(io.StringIO("a\\n\\nb\\n"), "x.txt", "text", 0)]
['a', 'b']

Not handled here: HF ``datasets`` objects, and remote (``s3://``, ``hf://``) paths.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from tokensmith.errors import (
    CorruptInputError,
    DatasetRecordError,
    InputNotFoundError,
    InputReadError,
    MissingDependencyError,
)

OnError = Literal["raise", "skip"]
TextMode = Literal["line", "file"]
InputKind = Literal["text", "jsonl", "parquet"]

_JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}


@dataclass(frozen=True)
class Document:
    """One document: its global index, its text, and where it came from."""

    index: int
    text: str
    path: str
    line: int


@dataclass
class ReadStats:
    """What a read pass saw besides the documents: records skipped under ``on_error="skip"``."""

    skipped: int = 0
    first_skip: str | None = None


def input_kind(path: str | os.PathLike[str]) -> InputKind:
    """The kind of an input file, from its name.

    >>> input_kind("corpus.jsonl.gz"), input_kind("x.parquet"), input_kind("books.txt.zst")
    ('jsonl', 'parquet', 'text')
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in {".gz", ".zst"}:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last == ".parquet":
        return "parquet"
    if last in _JSONL_SUFFIXES:
        return "jsonl"
    return "text"


def read_documents(
    inputs: Iterable[str | os.PathLike[str]],
    *,
    text_field: str = "text",
    text_mode: TextMode = "line",
    on_error: OnError = "raise",
    stats: ReadStats | None = None,
) -> Iterator[Document]:
    """Yields every document of ``inputs``, in order, numbered from 0 across all files."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    if text_mode not in ("line", "file"):
        raise ValueError(f"text_mode must be 'line' or 'file', not {text_mode!r}")
    stats = stats if stats is not None else ReadStats()
    index = 0
    for raw in inputs:
        path = os.fspath(raw)
        if not os.path.isfile(path):
            raise InputNotFoundError(f"input file not found: {path}")
        kind = input_kind(path)
        docs: Iterator[Document]
        if kind == "parquet":
            docs = _parquet_documents(path, text_field, index, on_error, stats)
        elif kind == "jsonl":
            docs = _jsonl_documents(path, text_field, index, on_error, stats)
        elif text_mode == "file":
            docs = _whole_file_document(path, index)
        else:
            docs = _line_documents(path, index)
        for doc in docs:
            yield doc
            index = doc.index + 1


def open_text(path: str) -> IO[str]:
    """Opens a text input for reading as UTF-8, decompressing ``.gz`` and ``.zst``."""
    lower = path.lower()
    try:
        if lower.endswith(".gz"):
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
        if lower.endswith(".zst"):
            try:
                import zstandard  # type: ignore[import-not-found, unused-ignore]
            except ImportError:
                raise MissingDependencyError(
                    f"reading {path} needs the 'zstandard' package: pip install zstandard"
                ) from None
            raw = open(path, "rb")  # noqa: SIM115 - the reader closes it
            stream = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
            return io.TextIOWrapper(stream, encoding="utf-8", newline="")
        return open(path, encoding="utf-8", newline="")
    except OSError as e:
        raise InputReadError(f"cannot open {path}: {e}") from e


def _guarded(path: str, make: Callable[[IO[str]], Iterator[Document]]) -> Iterator[Document]:
    """Runs a reader over an opened file, turning decode failures into errors naming it."""
    try:
        with open_text(path) as f:
            yield from make(f)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise CorruptInputError(f"{path} is not a valid compressed file ({e})") from e
    except UnicodeDecodeError as e:
        raise InputReadError(f"{path} is not valid UTF-8 ({e})") from e
    except (MissingDependencyError, DatasetRecordError, InputReadError):
        raise
    except OSError as e:
        raise InputReadError(f"cannot read {path}: {e}") from e
    except Exception as e:
        # zstandard's ZstdError derives from Exception only; match it by name so that the
        # optional package need not be imported here.
        if type(e).__name__ == "ZstdError":
            raise CorruptInputError(f"{path} is not a valid zstd file ({e})") from e
        raise


def _documents_from_lines(f: IO[str], path: str, _field: str, start: int) -> Iterator[Document]:
    index = start
    for line_no, line in enumerate(f, start=1):
        text = line.rstrip("\r\n")
        if text:
            yield Document(index, text, path, line_no)
            index += 1


def _line_documents(path: str, start: int) -> Iterator[Document]:
    return _guarded(path, lambda f: _documents_from_lines(f, path, "", start))


def _whole_file_document(path: str, start: int) -> Iterator[Document]:
    def read(f: IO[str]) -> Iterator[Document]:
        text = f.read()
        if text:
            yield Document(start, text, path, 1)

    return _guarded(path, read)


def _jsonl_documents(
    path: str, field: str, start: int, on_error: OnError, stats: ReadStats
) -> Iterator[Document]:
    def read(f: IO[str]) -> Iterator[Document]:
        index = start
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            problem: str | None = None
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                problem = f"is not valid JSON ({e.msg})"
            else:
                if not isinstance(record, dict):
                    problem = f"is a JSON {type(record).__name__}, not an object"
                elif field not in record:
                    keys = ", ".join(sorted(record)[:8])
                    problem = f"has no field {field!r} (fields: {keys}); choose it with text_field="
                elif not isinstance(record[field], str):
                    value = type(record[field]).__name__
                    problem = f"field {field!r} holds a {value}, not text"
            if problem is not None:
                _bad_record(path, line_no, problem, on_error, stats)
                continue
            yield Document(index, record[field], path, line_no)
            index += 1

    return _guarded(path, read)


def _bad_record(path: str, line: int, problem: str, on_error: OnError, stats: ReadStats) -> None:
    where = f"{path}:{line}"
    if on_error == "raise":
        err = DatasetRecordError(f"{where}: {problem}; pass on_error='skip' to skip such records")
        err.path, err.line = path, line
        raise err
    stats.skipped += 1
    if stats.first_skip is None:
        stats.first_skip = f"{where}: {problem}"


def _parquet_documents(
    path: str, column: str, start: int, on_error: OnError, stats: ReadStats
) -> Iterator[Document]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise MissingDependencyError(
            f"reading Parquet ({path}) needs pyarrow: pip install pyarrow"
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises ArrowInvalid, an Exception subclass
        raise CorruptInputError(f"{path} is not a valid Parquet file ({e})") from e
    names = list(parquet.schema_arrow.names)
    if column not in names:
        err = DatasetRecordError(
            f"{path}: no column {column!r} (columns: {', '.join(names)}); "
            "choose it with text_field="
        )
        err.path = path
        raise err
    index, row = start, 0
    for batch in parquet.iter_batches(columns=[column]):
        for value in batch.column(0).to_pylist():
            row += 1
            if not isinstance(value, str):
                kind = type(value).__name__
                _bad_record(path, row, f"column {column!r} holds a {kind}", on_error, stats)
                continue
            yield Document(index, value, path, row)
            index += 1
