"""The one reader of text inputs, shared by training (:mod:`tokensmith.corpus`) and by
``encode-dataset`` (:mod:`tokensmith.datasets.readers`).

A *source* is a file or an in-memory Hugging Face ``datasets`` object. Reading one gives
:class:`Record` objects: a text and where it came from (file or dataset, 1-based line or row).

- Text files: one record per line. ``lines="raw"`` keeps the line ending and blank lines (as
  HF ``Tokenizer.train`` reads files) and cuts a line longer than ``max_line_bytes`` between
  characters; ``lines="stripped"`` drops line endings and blank lines (one document per
  non-blank line); ``whole_file=True`` gives the whole file as one record.
- JSONL (``.jsonl``, ``.ndjson``, ``.json``): the string in ``field`` of each record; blank
  lines are ignored.
- Parquet (``.parquet``): the ``field`` column, read by pyarrow in record batches.
- HF ``datasets.Dataset`` / ``IterableDataset``: the ``field`` column, read in batches.
- Compression: gzip and zstd, found from the first bytes or from a ``.gz``/``.zst`` suffix
  (zstd needs the ``zstandard`` package, not a dependency of tokensmith).
- Invalid UTF-8: ``errors="replace"`` puts U+FFFD and counts it in ``stats.replaced``;
  ``errors="strict"`` raises :class:`~tokensmith.errors.CorpusFormatError` naming the file,
  line and byte offset (in the decompressed stream).
- A record that gives no text (not JSON, a missing field or column, a non-string value) raises
  :class:`~tokensmith.errors.DatasetRecordError` naming the file and line (``on_error="raise"``)
  or is skipped and counted (``on_error="skip"``). ``skip_null=True`` passes over null values
  silently instead.
- A damaged compressed file raises :class:`~tokensmith.errors.CorruptInputError`.

>>> import io
>>> [r.text for r in _line_records(io.BytesIO(b"a\\n\\nb"), "x.txt", ReadOptions(), ReadStats())]
['a\\n', '\\n', 'b']

Not handled: bz2/xz compression and remote (``s3://``, ``hf://``) paths.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from tokensmith.errors import (
    CorpusFormatError,
    CorruptInputError,
    DatasetRecordError,
    InputReadError,
    InvalidArgumentError,
    MissingDependencyError,
)
from tokensmith.line_blocks import BLOCK_BYTES, Lines, line_blocks, raw_lines

Kind = Literal["text", "jsonl", "parquet"]
Errors = Literal["replace", "strict"]
OnError = Literal["raise", "skip"]
LineMode = Literal["raw", "stripped"]

MAX_LINE_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}
_PROGRESS_STEP = 1 << 22
_BATCH_ROWS = 1024


@dataclass(frozen=True)
class Record:
    """One text and where it came from: a file path (or a dataset's name) and a 1-based line
    (or row) number."""

    text: str
    source: str
    line: int


@dataclass
class ReadOptions:
    """How sources are read; see the module docstring for each option."""

    field: str = "text"
    errors: Errors = "replace"
    on_error: OnError = "raise"
    lines: LineMode = "raw"
    whole_file: bool = False
    skip_null: bool = False
    max_line_bytes: int | None = MAX_LINE_BYTES

    def __post_init__(self) -> None:
        if self.errors not in ("replace", "strict"):
            raise InvalidArgumentError(
                f'errors={self.errors!r} is not known; use "replace" or "strict"'
            )
        if self.on_error not in ("raise", "skip"):
            raise InvalidArgumentError(f"on_error must be 'raise' or 'skip', not {self.on_error!r}")


@dataclass
class ReadStats:
    """What reading has seen so far, besides the texts."""

    files: int = 0
    lines: int = 0
    bytes: int = 0
    replaced: int = 0
    """Invalid UTF-8 sequences replaced by U+FFFD (each maximal bad sequence counts once)."""
    skipped: int = 0
    """Records skipped under ``on_error="skip"``."""
    first_skip: str | None = None


def file_kind(path: str | os.PathLike[str]) -> Kind:
    """The kind of an input file, from its name.

    >>> file_kind("corpus.jsonl.gz"), file_kind("x.parquet"), file_kind("books.txt.zst")
    ('jsonl', 'parquet', 'text')
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in {".gz", ".zst", ".zstd"}:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last == ".parquet":
        return "parquet"
    if last in _JSONL_SUFFIXES:
        return "jsonl"
    return "text"


def is_hf_dataset(obj: object) -> bool:
    """True for a Hugging Face ``datasets.Dataset`` or ``IterableDataset`` (duck-typed, so
    ``datasets`` is never imported here)."""
    module = type(obj).__module__ or ""
    return module.startswith("datasets.") and hasattr(obj, "column_names")


def dataset_name(ds: Any) -> str:
    """A short name of an HF dataset for messages, such as ``Dataset(3f2a...)``."""
    tag = getattr(ds, "_fingerprint", None) or getattr(ds.info, "dataset_name", None) or "memory"
    return f"{type(ds).__name__}({tag})"


def read_file(
    path: str,
    kind: Kind,
    opts: ReadOptions,
    stats: ReadStats,
    on_disk: Callable[[int], None] | None = None,
) -> Iterator[Record]:
    """The records of one file. ``on_disk`` is called with the bytes read from disk so far
    (compressed), every 4 MiB or so."""
    if kind == "parquet":
        yield from _parquet_records(path, opts, stats)
        return
    with _opened(path) as (disk, stream):
        if opts.whole_file and kind == "text":
            raw = stream.read()
            stats.lines += 1
            stats.bytes += len(raw)
            text = _decode(raw, path, 1, 0, opts, stats)
            if text:
                yield Record(text, path, 1)
            return
        progress = _DiskProgress(disk, on_disk)
        for record in _line_records(stream, path, opts, stats, kind == "jsonl"):
            yield record
            progress.after(stats.bytes)


def read_text_lines(
    path: str,
    opts: ReadOptions,
    stats: ReadStats,
    on_disk: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """The texts that :func:`read_file` gives for a text file read as raw lines (``opts.lines
    == "raw"``), without their records: the same strings, statistics and errors, read and
    decoded about 1 MiB at a time instead of line by line (so the statistics move on a block
    at a time)."""
    limit = opts.max_line_bytes
    with _opened(path) as (disk, stream):
        line = offset = 0
        progress = _DiskProgress(disk, on_disk)
        for block, whole in line_blocks(stream, limit):
            n_lines = 1 if not whole else block.count(b"\n") + (not block.endswith(b"\n"))
            stats.lines += n_lines
            stats.bytes += len(block)
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is None:
                for i, raw in enumerate(io.BytesIO(block) if whole else [block]):
                    yield _decode(raw, path, line + 1 + i, offset, opts, stats)
                    offset += len(raw)
            else:
                offset += len(block)
                if whole:
                    yield from io.StringIO(text, newline="\n")
                else:
                    yield text
            line += n_lines
            progress.after(stats.bytes)


def read_line_blocks(
    path: str,
    max_line: int,
    stats: ReadStats,
    on_disk: Callable[[int], None] | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> Iterator[bytes]:
    """The bytes of a text file (decompressed), about ``block_bytes`` at a time in blocks of
    whole lines, undecoded, for a reader that splits and decodes lines itself and skips every
    line longer than ``max_line`` bytes. Such a line is given shortened: only its first piece
    (still longer than ``max_line``, ending in a newline), so it is never held whole.
    ``stats`` counts the lines and bytes read, not invalid UTF-8.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "wb").write(b"ab\\n" + b"x" * 40 + b"\\ncd\\nef")
    >>> list(read_line_blocks(path, 8, ReadStats(), block_bytes=16))
    [b'ab\\n', b'xxxxxxxxxxxxxxxx\\n', b'cd\\n', b'ef']
    """
    limit = max(max_line + 4, block_bytes)
    with _opened(path) as (disk, stream):
        progress = _DiskProgress(disk, on_disk)
        in_long_line = False
        for block, whole in line_blocks(stream, limit, block_bytes):
            stats.bytes += len(block)
            if whole:
                stats.lines += block.count(b"\n") + (not block.endswith(b"\n"))
                yield block
            elif not in_long_line:
                stats.lines += 1
                # The first piece has at least limit - 3 bytes (cut between characters).
                yield block if block.endswith(b"\n") else block + b"\n"
            if not whole:
                in_long_line = not block.endswith(b"\n")
            progress.after(stats.bytes)


class _DiskProgress:
    """Calls ``on_disk`` with the position in the file on disk (compressed bytes) each time
    another ``_PROGRESS_STEP`` bytes have been read from its stream."""

    def __init__(self, disk: IO[bytes], on_disk: Callable[[int], None] | None) -> None:
        self.disk, self.on_disk, self.reported = disk, on_disk, 0

    def after(self, read: int) -> None:
        if self.on_disk is not None and read - self.reported >= _PROGRESS_STEP:
            self.reported = read
            self.on_disk(self.disk.tell())


@contextmanager
def _opened(path: str) -> Iterator[tuple[IO[bytes], Any]]:
    """The file on disk and its decompressed stream; read errors become typed errors."""
    try:
        disk = open(path, "rb")  # noqa: SIM115 (closed below, also on early exit)
    except OSError as e:
        raise InputReadError(f"{path}: cannot be read ({e.strerror or e})") from None
    try:
        yield disk, _decompressed(disk, path)
    except (OSError, EOFError, zlib.error) as e:
        # A truncated gzip raises EOFError, a corrupt one zlib.error or BadGzipFile (OSError).
        raise CorruptInputError(f"{path}: read failed, the file is damaged ({e})") from None
    except Exception as e:
        # zstandard's ZstdError derives from Exception only: matched by name, so that the
        # optional package need not be imported here.
        if type(e).__name__ == "ZstdError":
            raise CorruptInputError(f"{path}: read failed, the file is damaged ({e})") from None
        raise
    finally:
        disk.close()


def _line_records(
    stream: Lines, path: str, opts: ReadOptions, stats: ReadStats, jsonl: bool = False
) -> Iterator[Record]:
    offset = 0
    limit = opts.max_line_bytes if opts.lines == "raw" and not jsonl else None
    for n, raw in enumerate(raw_lines(stream, limit), start=1):
        stats.lines += 1
        stats.bytes += len(raw)
        text = _decode(raw, path, n, offset, opts, stats)
        offset += len(raw)
        if jsonl:
            value = _field(text, path, n, opts, stats)
            if value is not None:
                yield Record(value, path, n)
        elif opts.lines == "raw":
            yield Record(text, path, n)
        else:
            text = text.rstrip("\r\n")
            if text:
                yield Record(text, path, n)


def _decode(
    raw: bytes, path: str, line: int, offset: int, opts: ReadOptions, stats: ReadStats
) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if opts.errors == "strict":
            raise CorpusFormatError(
                f"{path}:{line}: invalid UTF-8 at byte offset {offset + e.start} "
                f"({e.reason}); pass errors='replace' to replace it with U+FFFD"
            ) from None
    text, count = decode_replace(raw)
    stats.replaced += count
    return text


def decode_replace(raw: bytes) -> tuple[str, int]:
    """``raw.decode("utf-8", "replace")`` and the number of replacements.

    >>> decode_replace(b"a\\xffb\\xe2\\x82")
    ('a\\ufffdb\\ufffd', 2)
    """
    parts: list[str] = []
    count = 0
    while True:
        try:
            parts.append(raw.decode("utf-8"))
            return "".join(parts), count
        except UnicodeDecodeError as e:
            parts.append(raw[: e.start].decode("utf-8"))
            parts.append("\ufffd")
            count += 1
            raw = raw[e.end :]


def _field(text: str, path: str, line: int, opts: ReadOptions, stats: ReadStats) -> str | None:
    """The text of one JSONL line, or None (blank line, skipped record)."""
    if not text.strip():
        return None
    field = opts.field
    try:
        record = json.loads(text)
    except ValueError as e:
        return _bad_record(path, line, f"is not valid JSON ({e})", opts, stats)
    if not isinstance(record, dict):
        problem = f"is a JSON {type(record).__name__}, not an object"
        return _bad_record(path, line, problem, opts, stats)
    if field not in record:
        keys = ", ".join(sorted(record)[:8])
        problem = f"has no field {field!r} (fields: {keys}); name the text field with field="
        return _bad_record(path, line, problem, opts, stats)
    return _text_value(record[field], f"field {field!r}", path, line, opts, stats)


def _text_value(
    value: object, what: str, path: str, line: int, opts: ReadOptions, stats: ReadStats
) -> str | None:
    if isinstance(value, str):
        return value
    if value is None and opts.skip_null:
        return None
    kind = "null" if value is None else type(value).__name__
    return _bad_record(path, line, f"{what} holds a {kind}, not text", opts, stats)


def _bad_record(
    path: str, line: int, problem: str, opts: ReadOptions, stats: ReadStats
) -> str | None:
    """Raises (``on_error="raise"``) or counts a skipped record; gives the text it has: none."""
    where = f"{path}:{line}"
    if opts.on_error == "raise":
        err = DatasetRecordError(f"{where}: {problem}; pass on_error='skip' to skip such records")
        err.path, err.line = path, line
        raise err
    stats.skipped += 1
    if stats.first_skip is None:
        stats.first_skip = f"{where}: {problem}"
    return None


def _missing_column(where: str, column: str, names: list[str]) -> DatasetRecordError:
    err = DatasetRecordError(
        f"{where}: no column {column!r} (columns: {', '.join(names)}); "
        "name the text column with field= (text_field= in encode_dataset)"
    )
    err.path = where
    return err


def _parquet_records(path: str, opts: ReadOptions, stats: ReadStats) -> Iterator[Record]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        raise MissingDependencyError(
            f"reading Parquet ({path}) needs pyarrow: pip install pyarrow"
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises ArrowInvalid, an Exception subclass
        raise CorruptInputError(f"{path} is not a valid Parquet file ({e})") from e
    names = list(parquet.schema_arrow.names)
    if opts.field not in names:
        raise _missing_column(path, opts.field, names)
    row = 0
    what = f"column {opts.field!r}"
    try:
        for batch in parquet.iter_batches(columns=[opts.field], batch_size=_BATCH_ROWS):
            for value in batch.column(0).to_pylist():
                row += 1
                text = _text_value(value, what, path, row, opts, stats)
                if text is not None:
                    stats.lines += 1
                    yield Record(text, path, row)
    except (OSError, ValueError) as e:
        if isinstance(e, DatasetRecordError):
            raise
        raise CorruptInputError(f"{path}: read failed, the file is damaged ({e})") from None


def read_dataset(ds: Any, opts: ReadOptions, stats: ReadStats) -> Iterator[Record]:
    """The ``opts.field`` column of an HF ``Dataset`` or ``IterableDataset``, row by row."""
    name = dataset_name(ds)
    names = ds.column_names
    if names is not None and opts.field not in names:
        raise _missing_column(name, opts.field, list(names))
    if hasattr(ds, "select_columns") and names is not None:
        ds = ds.select_columns([opts.field])
    what = f"column {opts.field!r}"
    row = 0
    for batch in ds.iter(batch_size=_BATCH_ROWS):
        if opts.field not in batch:
            raise _missing_column(name, opts.field, sorted(batch))
        for value in batch[opts.field]:
            row += 1
            text = _text_value(value, what, name, row, opts, stats)
            if text is not None:
                stats.lines += 1
                yield Record(text, name, row)


def _decompressed(disk: IO[bytes], path: str) -> Any:
    """``disk`` itself, or a decompressing reader over it (chosen by the first bytes, or by
    the suffix, so that a damaged ``.gz`` is reported rather than read as text)."""
    head = disk.read(4)
    disk.seek(0)
    lower = path.lower()
    if head.startswith(_GZIP_MAGIC) or lower.endswith(".gz"):
        return gzip.GzipFile(fileobj=disk, mode="rb")
    if head == _ZSTD_MAGIC or lower.endswith((".zst", ".zstd")):
        import importlib

        try:
            zstandard = importlib.import_module("zstandard")
        except ImportError:
            raise MissingDependencyError(
                f"{path} is zstd-compressed; reading it needs the zstandard package "
                "(pip install zstandard)"
            ) from None
        reader = zstandard.ZstdDecompressor().stream_reader(disk)
        return io.BufferedReader(reader)
    return disk
