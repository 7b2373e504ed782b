"""Reading training text from files: plain, gzip or zstd; text lines or JSONL records.

A :class:`Corpus` is an iterable of strings that reads its files lazily, one line at a time,
so the trainer (which pulls strings in chunks) never holds more than a chunk in memory.

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
- JSONL files (``.jsonl``/``.ndjson``, compressed or not, or ``format="jsonl"``) give the
  string in ``field`` of each record.
- Compression is detected from the file's first bytes: gzip always, zstd when the
  ``zstandard`` package is installed (it is not a dependency of tokensmith).
- Invalid UTF-8 becomes U+FFFD and is counted in ``stats.replaced``; with
  ``errors="strict"`` it raises :class:`~tokensmith.errors.CorpusFormatError` naming the file,
  the line and the byte offset (in the decompressed stream).

Not handled: Parquet (pyarrow is not installed here; convert to JSONL), and other
compressions (bz2, xz).
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import IO, Literal, Protocol

from tokensmith.errors import (
    CorpusFormatError,
    InputNotFoundError,
    InputReadError,
    MissingDependencyError,
)

__all__ = ["Corpus", "CorpusStats", "expand_inputs"]

Errors = Literal["replace", "strict"]
Format = Literal["auto", "text", "jsonl"]
Inputs = str | PathLike[str] | Sequence[str | PathLike[str]]

MAX_LINE_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_COMPRESSED_SUFFIXES = (".gz", ".zst", ".zstd")
_GLOB_CHARS = set("*?[")


class _Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


@dataclass
class CorpusStats:
    """What a :class:`Corpus` has read so far."""

    files: int = 0
    lines: int = 0
    bytes: int = 0
    replaced: int = 0
    """Invalid UTF-8 sequences replaced by U+FFFD (each maximal bad sequence counts once)."""


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


def _decode_replace(raw: bytes) -> tuple[str, int]:
    """``raw.decode("utf-8", "replace")`` and the number of replacements.

    >>> _decode_replace(b"a\\xffb\\xe2\\x82")
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


def _complete_prefix(raw: bytes) -> int:
    """The length of ``raw`` without a UTF-8 character cut off at its end.

    >>> [_complete_prefix(raw) for raw in ("aé".encode(), "aé".encode()[:2], b"ab")]
    [3, 1, 2]
    """
    i = len(raw) - 1
    while i > 0 and len(raw) - i < 4 and raw[i] & 0xC0 == 0x80:
        i -= 1
    lead = raw[i]
    need = (
        2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4 if lead & 0xF8 == 0xF0 else 1
    )
    return i if len(raw) - i < need else len(raw)


def _raw_lines(f: _Lines, limit: int | None) -> Iterator[bytes]:
    """Lines of ``f``; with ``limit``, longer lines come in pieces cut between characters."""
    carry = b""
    while True:
        raw = f.readline(limit) if limit else f.readline()
        if not raw:
            if carry:
                yield carry
            return
        if carry:
            raw, carry = carry + raw, b""
        if limit and len(raw) >= limit and not raw.endswith(b"\n"):
            cut = _complete_prefix(raw)
            if cut > 0:
                raw, carry = raw[:cut], raw[cut:]
        yield raw


class Corpus:
    """Files read lazily as an iterable of strings; iterate it more than once if you like.

    Args:
        inputs: A path or glob pattern, or a list of them.
        format: ``"auto"`` (JSONL for ``.jsonl``/``.ndjson`` names, else text), ``"text"`` or
            ``"jsonl"``.
        field: The JSONL field that holds the text.
        errors: ``"replace"`` (default) or ``"strict"`` for invalid UTF-8.
        on_progress: Called with the number of (compressed) bytes read from disk so far,
            after each file and every 4 MiB or so; ``total_bytes`` is the sum of the sizes.
    """

    def __init__(
        self,
        inputs: Inputs,
        *,
        format: Format = "auto",
        field: str = "text",
        errors: Errors = "replace",
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        if format not in ("auto", "text", "jsonl"):
            raise ValueError(f'format={format!r} is not known; use "auto", "text" or "jsonl"')
        if errors not in ("replace", "strict"):
            raise ValueError(f'errors={errors!r} is not known; use "replace" or "strict"')
        self.files = expand_inputs(inputs)
        self.format = format
        self.field = field
        self.errors = errors
        self.on_progress = on_progress
        self.stats = CorpusStats()
        self.total_bytes = sum(os.path.getsize(p) for p in self.files)

    def __iter__(self) -> Iterator[str]:
        self.stats = CorpusStats()
        done = 0
        for path in self.files:
            yield from self._read_file(path, done)
            done += os.path.getsize(path)
            self.stats.files += 1
            if self.on_progress:
                self.on_progress(done)

    def _is_jsonl(self, path: str) -> bool:
        if self.format != "auto":
            return self.format == "jsonl"
        name = path
        for suffix in _COMPRESSED_SUFFIXES:
            name = name.removesuffix(suffix)
        return name.endswith(_JSONL_SUFFIXES)

    def _read_file(self, path: str, done_before: int) -> Iterator[str]:
        jsonl = self._is_jsonl(path)
        try:
            disk = open(path, "rb")  # noqa: SIM115 (closed below, also on early exit)
        except OSError as e:
            raise InputReadError(f"{path}: cannot be read ({e.strerror or e})") from None
        try:
            stream = _decompressed(disk, path)
            offset = 0
            reported = 0
            limit = None if jsonl else MAX_LINE_BYTES
            for n, raw in enumerate(_raw_lines(stream, limit), start=1):
                text = self._decode(raw, path, n, offset)
                offset += len(raw)
                self.stats.lines += 1
                self.stats.bytes += len(raw)
                if self.on_progress and offset - reported >= 1 << 22:
                    reported = offset
                    self.on_progress(done_before + disk.tell())
                if jsonl:
                    value = self._field(text, path, n)
                    if value is not None:
                        yield value
                else:
                    yield text
        except (OSError, EOFError, zlib.error) as e:
            # A truncated gzip raises EOFError and a corrupt one zlib.error or BadGzipFile.
            raise InputReadError(f"{path}: read failed, the file is damaged ({e})") from None
        finally:
            disk.close()

    def _decode(self, raw: bytes, path: str, line: int, offset: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            if self.errors == "strict":
                raise CorpusFormatError(
                    f"{path}:{line}: invalid UTF-8 at byte offset {offset + e.start} "
                    f"({e.reason}); pass errors='replace' to replace it with U+FFFD"
                ) from None
        text, count = _decode_replace(raw)
        self.stats.replaced += count
        return text

    def _field(self, text: str, path: str, line: int) -> str | None:
        if not text.strip():
            return None
        try:
            record = json.loads(text)
        except ValueError as e:
            raise CorpusFormatError(f"{path}:{line}: not a JSON record ({e})") from None
        if not isinstance(record, dict) or self.field not in record:
            raise CorpusFormatError(
                f"{path}:{line}: the record has no field {self.field!r}; pass field=... to "
                "name the field that holds the text"
            )
        value = record[self.field]
        if value is None:
            return None
        if not isinstance(value, str):
            raise CorpusFormatError(
                f"{path}:{line}: field {self.field!r} is a {type(value).__name__}, not a string"
            )
        return value


def _decompressed(disk: IO[bytes], path: str) -> _Lines:
    """``disk`` itself, or a decompressing reader over it (chosen by the magic bytes)."""
    head = disk.read(4)
    disk.seek(0)
    if head.startswith(_GZIP_MAGIC):
        return gzip.GzipFile(fileobj=disk, mode="rb")
    if head == _ZSTD_MAGIC:
        import importlib

        try:
            zstandard = importlib.import_module("zstandard")
        except ImportError:
            raise MissingDependencyError(
                f"{path} is zstd-compressed; reading it needs the zstandard package "
                "(pip install zstandard)"
            ) from None
        import io

        reader = zstandard.ZstdDecompressor().stream_reader(disk)
        return io.BufferedReader(reader)
    return disk
