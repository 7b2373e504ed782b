"""Training from files: text and JSONL, gzip, globs, invalid UTF-8, and the errors."""

from __future__ import annotations

import gzip
import io
import json
import sys
import warnings
from pathlib import Path

import pytest
import tokensmith
from tokensmith.corpus import Corpus
from tokensmith.errors import (
    CorpusFormatError,
    InputNotFoundError,
    InputReadError,
    MissingDependencyError,
)
from tokensmith.line_blocks import raw_lines
from tokensmith.train.bpe import InvalidUtf8Warning

DATA = Path(__file__).parent.parent / "data"


def test_text_file_gives_lines_and_trains_like_the_lines(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    assert list(Corpus(DATA / "multilingual.txt")) == multilingual_lines
    from_file = tokensmith.train_bpe(files=DATA / "multilingual.txt", vocab_size=600)
    from_lines = tokensmith.train_bpe(multilingual_lines, vocab_size=600)
    assert from_file._mergeable_ranks == from_lines._mergeable_ranks


def test_glob_over_plain_and_gzip_files_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"two\nthree")
    with gzip.open(tmp_path / "a.txt.gz", "wb") as f:
        f.write(b"one\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.txt").write_bytes(b"four\n")
    corpus = Corpus(str(tmp_path / "**" / "*.*"))
    assert list(corpus) == ["one\n", "two\n", "three", "four\n"]
    assert (corpus.stats.files, corpus.stats.lines) == (3, 4)
    assert list(Corpus([tmp_path / "b.txt", tmp_path / "a.txt.gz"])) == ["two\n", "three", "one\n"]


def test_corpus_is_read_lazily(tmp_path: Path) -> None:
    lines = 3 << 20  # 6 MiB, read about 1 MiB at a time
    (tmp_path / "a.txt").write_text("x\n" * lines, encoding="utf-8")
    corpus = Corpus(tmp_path / "a.txt")
    it = iter(corpus)
    assert next(it) == "x\n"
    assert 1 <= corpus.stats.lines < lines // 4
    assert corpus.stats.bytes <= 1 << 20


def test_jsonl_field_plain_and_gzip(tmp_path: Path) -> None:
    records = [{"text": "hello", "id": 1}, {"text": None}, {"body": "x", "text": "wörld"}]
    lines = "".join(json.dumps(r) + "\n" for r in records) + "\n"
    (tmp_path / "a.jsonl").write_text(lines, encoding="utf-8")
    with gzip.open(tmp_path / "b.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(lines)
    assert list(Corpus(tmp_path / "a.jsonl")) == ["hello", "wörld"]
    assert list(Corpus(tmp_path / "b.jsonl.gz")) == ["hello", "wörld"]
    assert list(Corpus(tmp_path / "a.jsonl", format="text"))[0].startswith('{"text"')
    enc = tokensmith.train_bpe(files=tmp_path / "a.jsonl", vocab_size=260, min_frequency=1)
    assert enc.n_vocab == 260


def test_jsonl_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"text": "ok"}\n{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"a\.jsonl:2: has no field 'text'"):
        list(Corpus(path))
    path.write_text('{"text": "ok"}\n{"text": 3}\nnot json\n', encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"a\.jsonl:2: field 'text' holds a int"):
        list(Corpus(path))


def test_invalid_utf8_is_replaced_and_counted(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 ok\n\xff\xfe x\nfine\n")
    corpus = Corpus(tmp_path / "bad.txt")
    assert list(corpus) == ["caf\ufffd ok\n", "\ufffd\ufffd x\n", "fine\n"]
    assert corpus.stats.replaced == 3
    with pytest.warns(InvalidUtf8Warning, match="3 invalid UTF-8 sequences"):
        tokensmith.train_bpe(files=tmp_path / "bad.txt", vocab_size=260, min_frequency=1)


def test_strict_utf8_names_file_and_byte_offset(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"fine\ncaf\xe9 ok\n")
    with pytest.raises(CorpusFormatError, match=r"bad\.txt:2: invalid UTF-8 at byte offset 8"):
        tokensmith.train_bpe(files=tmp_path / "bad.txt", vocab_size=260, errors="strict")


def test_valid_input_gives_no_warning(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc abc abd\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tokensmith.train_bpe(files=str(tmp_path / "a.txt"), vocab_size=258)


def test_missing_inputs_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="nope.txt: no such file"):
        tokensmith.train_bpe(files=tmp_path / "nope.txt", vocab_size=300)
    with pytest.raises(InputNotFoundError, match=r"\*\.zzz: no file matches"):
        Corpus(str(tmp_path / "*.zzz"))
    with pytest.raises(InputReadError, match="is a directory"):
        Corpus(tmp_path)


def test_texts_and_files_are_exclusive(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc\n", encoding="utf-8")
    with pytest.raises(TypeError, match="not both"):
        tokensmith.train_bpe(["abc"], files=tmp_path / "a.txt", vocab_size=300)
    with pytest.raises(TypeError, match="files="):
        tokensmith.train_bpe(vocab_size=300)


def test_zstd_without_zstandard_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 8)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import fails, as when not installed
    with pytest.raises(MissingDependencyError, match="pip install zstandard"):
        list(Corpus(tmp_path / "a.txt.zst"))


def test_long_lines_are_cut_between_characters() -> None:
    raw = "ééé\na€€".encode()
    pieces = list(raw_lines(io.BytesIO(raw), 4))
    assert b"".join(pieces) == raw
    assert [p.decode("utf-8") for p in pieces] == ["éé", "é\n", "a€", "€"]


def test_progress_reaches_the_total(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n" * 10, encoding="utf-8")
    (tmp_path / "b.txt").write_text("y\n" * 5, encoding="utf-8")
    seen: list[int] = []
    corpus = Corpus(str(tmp_path / "*.txt"), on_progress=seen.append)
    list(corpus)
    assert seen == [20, 30] and corpus.total_bytes == 30


def test_truncated_gzip_is_named(tmp_path: Path) -> None:
    data = gzip.compress(b"hello world\n" * 1000)
    (tmp_path / "cut.txt.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputReadError, match=r"cut\.txt\.gz: read failed"):
        list(Corpus(tmp_path / "cut.txt.gz"))
