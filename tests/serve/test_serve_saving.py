"""Saving tokenizers trained in the page into ``--dir``: they load back the same after a
restart, the write is atomic, and a server without ``--dir`` says how to get one."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
import tokensmith
from serve_helpers import DATA, running_server, served_folder
from tokensmith.serve.catalog import Catalog
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.safe_paths import PathRefusedError, list_tokenizer_files
from tokensmith.serve.saving import NoSaveFolderError, save_trained
from tokensmith.serve.segmenter import TextLayout
from tokensmith.serve.training import TrainJob, _train

LINES = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
CORPUS = "\n".join(LINES[:1500])
SAMPLE = "\n".join(LINES[3000:3040])


def trained(algorithm: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a vocabulary that stops short of its size
        return _train(algorithm, CORPUS, 1000, "mine", TrainJob("1", 1000))


def ids_of(tokenizer: Any, text: str) -> list[int]:
    """The ids as the page shows them: ordinary text, no special tokens added."""
    if isinstance(tokenizer, tokensmith.Encoding):
        return list(tokenizer.encode_ordinary(text))
    if isinstance(tokenizer, tokensmith.SentencePieceProcessor):
        return list(tokenizer.encode(text))
    return list(tokenizer.encode(text, add_special_tokens=False).ids)


@pytest.mark.parametrize(
    ("algorithm", "file"),
    [
        ("bpe", "trained/my-bpe.tiktoken"),
        ("unigram", "trained/my-unigram.model"),
        ("wordpiece", "trained/my-wordpiece.json"),
    ],
)
def test_a_saved_tokenizer_is_listed_and_the_same_after_a_restart(
    tmp_path: Path, algorithm: str, file: str
) -> None:
    folder = served_folder(tmp_path)
    catalog = Catalog(ServeConfig(root=folder))
    tokenizer = trained(algorithm)
    key = catalog.add_trained(tokenizer, label=f"my {algorithm} ({algorithm}, 1000)")
    assert catalog.save(key) == file
    assert catalog.save(key) == file  # saved once, not twice
    restarted = Catalog(ServeConfig(root=folder))
    saved = [(e.key, e.source) for e in restarted.entries() if e.source == "saved"]
    assert saved == [(f"dir:{file}", "saved")]
    cut = restarted.get(f"dir:{file}").segment(TextLayout.of(SAMPLE))
    assert cut.ids.tolist() == ids_of(tokenizer, SAMPLE)
    assert not [p for p in (folder / "trained").iterdir() if p.name.startswith(".")]


def test_a_name_in_use_gets_a_number_and_a_name_stays_in_the_folder(tmp_path: Path) -> None:
    folder = served_folder(tmp_path)
    enc = trained("bpe")
    assert save_trained(enc, root=folder, name="../../evil") == "trained/evil.tiktoken"
    assert save_trained(enc, root=folder, name="evil") == "trained/evil-2.tiktoken"
    assert not (tmp_path / "evil.tiktoken").exists()
    assert [f for f in list_tokenizer_files(folder) if f.startswith("trained/")] == [
        "trained/evil-2.tiktoken",
        "trained/evil.tiktoken",
    ]


def test_a_failed_save_leaves_nothing_on_offer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = served_folder(tmp_path)

    def half_written(tokenizer: Any, path: Any, **_: Any) -> None:
        Path(path).write_bytes(b"half a vocabu")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tokensmith, "save", half_written)
    with pytest.raises(OSError, match="No space left"):
        save_trained(trained("bpe"), root=folder, name="full")
    assert list((folder / "trained").iterdir()) == []


def test_a_symlinked_save_folder_is_refused(tmp_path: Path) -> None:
    folder = served_folder(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (folder / "trained").symlink_to(outside)
    with pytest.raises(PathRefusedError, match="not a plain folder"):
        save_trained(trained("bpe"), root=folder, name="x")
    assert list(outside.iterdir()) == []


def test_without_a_folder_saving_says_how_to_get_one(tmp_path: Path) -> None:
    with pytest.raises(NoSaveFolderError, match="--dir"):
        save_trained(trained("bpe"), root=None, name="x")
    with running_server(ServeConfig()) as server:
        key = server.catalog.add_trained(trained("bpe"), label="x (bpe, 1000)")
        post = Request(f"{server.url}/api/save/{key}", data=b"{}", method="POST")
        post.add_header("Content-Type", "application/json")
        with pytest.raises(HTTPError) as answer:
            urlopen(post)
        assert answer.value.code == 409
        assert "tokensmith serve --dir DIR" in json.loads(answer.value.read())["error"]
        unknown = Request(f"{server.url}/api/save/trained:99", data=b"{}", method="POST")
        with pytest.raises(HTTPError) as answer:
            urlopen(unknown)
        assert answer.value.code == 404
