"""Inputs: text, gzip, JSONL and the errors bad input gets (file and line named)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from datasets_helpers import MULTILINGUAL, lines
from tokensmith.datasets import encode_dataset, read_documents
from tokensmith.errors import (
    CorruptInputError,
    DatasetRecordError,
    InputNotFoundError,
    MissingDependencyError,
    OutputDirError,
)


def test_indices_run_across_files_and_gzip_equals_plain(tmp_path: Path) -> None:
    gz = tmp_path / "a.txt.gz"
    gz.write_bytes(gzip.compress(MULTILINGUAL.read_bytes()))
    docs = list(read_documents([MULTILINGUAL, gz]))
    n = len(lines())
    assert [d.index for d in docs] == list(range(2 * n))
    assert [d.text for d in docs[:n]] == [d.text for d in docs[n:]] == lines()
    assert docs[n].path == str(gz) and docs[0].line == 1


def test_jsonl_field_and_file_mode(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    src.write_text('{"text": "a\\nb", "id": 1}\n\n{"text": "c"}\n', encoding="utf-8")
    assert [(d.text, d.line) for d in read_documents([src])] == [("a\nb", 1), ("c", 3)]
    whole = tmp_path / "w.txt"
    whole.write_text("x\ny\n", encoding="utf-8")
    assert [d.text for d in read_documents([whole], text_mode="file")] == ["x\ny\n"]


def test_corrupt_gzip_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.txt.gz"
    bad.write_bytes(gzip.compress(b"hello\n" * 1000)[:-30])  # truncated
    with pytest.raises(CorruptInputError, match="broken.txt.gz") as e:
        list(read_documents([bad]))
    assert isinstance(e.value, OSError)
    garbage = tmp_path / "garbage.jsonl.gz"
    garbage.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 64)
    with pytest.raises(CorruptInputError, match="garbage.jsonl.gz"):
        list(read_documents([garbage]))


def test_missing_field_and_non_text_value_give_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    rows = [{"text": "ok"}, {"body": "x"}, {"text": 5}, {"text": "fine"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(DatasetRecordError, match=r"c\.jsonl:2: has no field 'text'") as e:
        list(read_documents([src]))
    assert (e.value.path, e.value.line) == (str(src), 2)
    src.write_text("".join(json.dumps(r) + "\n" for r in [rows[0], rows[2]]), encoding="utf-8")
    with pytest.raises(DatasetRecordError, match=r"c\.jsonl:2: field 'text' holds a int"):
        list(read_documents([src]))


def test_skip_mode_counts_and_reports(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    src.write_text('{"text": "a"}\nnot json\n{"text": null}\n{"text": "b"}\n', encoding="utf-8")
    s = encode_dataset([src], tokenizer="cl100k_base", out_dir=tmp_path / "o", format="npy",
                       on_error="skip", progress=False)  # fmt: skip
    assert s.documents == 2 and s.skipped_records == 2
    assert s.first_skipped is not None and s.first_skipped.startswith(f"{src}:2:")


def test_missing_input(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError):
        encode_dataset([tmp_path / "nope.txt"], tokenizer="cl100k_base", out_dir=tmp_path / "o")


def test_zst_without_zstandard_names_the_package(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import fails as if not installed
    src = tmp_path / "a.txt.zst"
    src.write_bytes(b"\x28\xb5\x2f\xfd")
    with pytest.raises(MissingDependencyError, match="pip install zstandard"):
        list(read_documents([src]))


def test_parquet_without_pyarrow_gives_install_hint(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    src = tmp_path / "a.parquet"
    src.write_bytes(b"PAR1")
    with pytest.raises(MissingDependencyError, match="pip install pyarrow"):
        list(read_documents([src]))


def test_out_dir_of_another_job_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = dict(tokenizer="cl100k_base", out_dir=out, progress=False)
    encode_dataset([MULTILINGUAL], format="npy", **args)
    with pytest.raises(OutputDirError, match=r"another job.*format.*overwrite=True"):
        encode_dataset([MULTILINGUAL], format="megatron", **args)
    s = encode_dataset([MULTILINGUAL], format="megatron", overwrite=True, **args)
    assert s.resumed_shards == 0
    assert not list(out.glob("*.npy")) and (out / "shard_00000.idx").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OutputDirError, match="not empty"):
        encode_dataset([MULTILINGUAL], tokenizer="cl100k_base", out_dir=other)
    assert (other / "notes.txt").read_text() == "mine"
