"""``Encoding.save`` and ``tokensmith.save`` refuse to replace existing files without
``overwrite=True``, as the CLI's writers do without ``--overwrite``, and a write that does
not fit on the disk fails early with a typed error naming the file, leaving nothing behind."""

from __future__ import annotations

import errno
import shutil
from collections import namedtuple
from pathlib import Path

import pytest
import tokensmith
from tokensmith._atomic import atomic_write
from tokensmith.errors import OutputDirError, OutputWriteError, TokensmithError

DATA = Path(__file__).parent.parent / "data"
Usage = namedtuple("Usage", "total used free")


@pytest.fixture(scope="module")
def trained() -> tokensmith.Encoding:
    lines = (DATA / "code.txt").read_text(encoding="utf-8").splitlines()[:400]
    return tokensmith.train_bpe(lines, vocab_size=300)


@pytest.mark.parametrize(
    ("name", "existing"),
    [
        ("x.tiktoken", "x.tiktoken"),
        ("x.tiktoken", "x.tiktoken.json"),
        ("x.json", "x.json"),
        ("folder", "folder/vocab.json"),
        ("folder", "folder/merges.txt"),
    ],
)
@pytest.mark.parametrize("saver", ["Encoding.save", "tokensmith.save"])
def test_save_refuses_an_existing_output(trained, tmp_path, name, existing, saver):
    def save(path: Path, **kwargs: bool) -> None:
        if saver == "Encoding.save":
            trained.save(path, **kwargs)
        else:
            tokensmith.save(trained, path, **kwargs)

    (tmp_path / existing).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / existing).write_text("old", encoding="utf-8")
    with pytest.raises(OutputDirError, match="overwrite=True"):
        save(tmp_path / name)
    assert (tmp_path / existing).read_text(encoding="utf-8") == "old"
    save(tmp_path / name, overwrite=True)
    assert tokensmith.load(tmp_path / name).encode("def f(x):") == trained.encode("def f(x):")


def test_save_into_new_paths_needs_no_flag(trained, tmp_path):
    trained.save(tmp_path / "a.tiktoken")
    trained.save(tmp_path / "a.json")
    trained.save(tmp_path / "dir")
    assert {p.name for p in (tmp_path / "dir").iterdir()} >= {"vocab.json", "merges.txt"}


def test_a_large_write_checks_the_free_space_first(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 1000, 1000))
    target = tmp_path / "shard.bin"
    with pytest.raises(OutputWriteError, match="not enough free space") as info:
        atomic_write(target, [bytes(2 << 20)])
    assert str(target) in str(info.value)
    assert isinstance(info.value, TokensmithError) and isinstance(info.value, OSError)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_during_a_write_is_a_typed_error(tmp_path, monkeypatch):
    target = tmp_path / "small.bin"

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("os.fsync", full)
    with pytest.raises(OutputWriteError, match="disk is full") as info:
        atomic_write(target, [b"abc"])
    assert str(target) in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_encode_dataset_stops_before_a_shard_that_does_not_fit(tmp_path, monkeypatch):
    from tokensmith.datasets.encode import encode_dataset

    corpus = tmp_path / "corpus.txt"
    corpus.write_text((DATA / "multilingual.txt").read_text(encoding="utf-8") * 4, "utf-8")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 1000, 1000))
    out = tmp_path / "shards"
    with pytest.raises(OutputWriteError, match="not enough free space") as info:
        encode_dataset([corpus], tokenizer="cl100k_base", out_dir=out)
    assert str(out) in str(info.value)
    leftovers = [p.name for p in out.rglob("*") if p.suffix in (".bin", ".npy", ".tmp")]
    assert leftovers == []
