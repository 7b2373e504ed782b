"""Reading text files in blocks gives what reading them line by line gives: the same strings,
statistics and errors, for any bytes (long lines, CR, invalid UTF-8, no final newline)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokensmith.errors import CorpusFormatError
from tokensmith.line_blocks import line_blocks, raw_lines
from tokensmith.records import ReadOptions, ReadStats, read_file, read_text_lines

PIECES = [b"a", b"bc", b" ", b"\n", b"\r\n", b"\r", "\u00e9".encode(), "\U0001f600".encode()]
PIECES.append(b"\xff")  # invalid UTF-8
contents = st.lists(st.sampled_from(PIECES), max_size=200).map(b"".join)


def by_lines(path: Path, opts: ReadOptions) -> tuple[list[str], ReadStats]:
    stats = ReadStats()
    texts = [r.text for r in read_file(str(path), "text", opts, stats)]
    return texts, stats


def by_blocks(path: Path, opts: ReadOptions) -> tuple[list[str], ReadStats]:
    stats = ReadStats()
    return list(read_text_lines(str(path), opts, stats)), stats


@settings(max_examples=300, deadline=None)
@given(data=contents, limit=st.integers(4, 24), block=st.integers(1, 30))
def test_blocks_cut_as_lines_do(data: bytes, limit: int, block: int) -> None:
    blocks = list(line_blocks(io.BytesIO(data), limit, block_bytes=block))
    assert b"".join(b for b, _ in blocks) == data
    pieces = [p for b, whole in blocks for p in (io.BytesIO(b) if whole else [b])]
    assert pieces == list(raw_lines(io.BytesIO(data), limit))


@settings(max_examples=150, deadline=None)
@given(data=contents, limit=st.integers(4, 24))
def test_read_text_lines_matches_read_file(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, limit: int
) -> None:
    path = tmp_path_factory.getbasetemp() / "blocks.txt"
    path.write_bytes(data)
    opts = ReadOptions(lines="raw", skip_null=True, max_line_bytes=limit)
    assert by_blocks(path, opts) == by_lines(path, opts)


def test_strict_errors_name_the_same_line(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"ok\n" * 5 + b"bad \xff here\nok\n")
    opts = ReadOptions(lines="raw", errors="strict", max_line_bytes=1 << 20)
    with pytest.raises(CorpusFormatError) as by_line:
        by_lines(path, opts)
    with pytest.raises(CorpusFormatError) as by_block:
        by_blocks(path, opts)
    assert str(by_block.value) == str(by_line.value)
    assert "t.txt:6: invalid UTF-8 at byte offset 19" in str(by_block.value)
