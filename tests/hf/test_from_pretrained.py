"""``Tokenizer.from_pretrained`` reads a local folder or the HF hub cache, never the
network. The cache layout is checked against ``huggingface_hub``'s own lookup
(``try_to_load_from_cache``) on the same folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tokenizers
import tokensmith
from huggingface_hub import try_to_load_from_cache

LINES = (Path(__file__).parents[1] / "data" / "multilingual.txt").read_text("utf-8").splitlines()


@pytest.fixture(scope="module")
def tokenizer_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    hf.train_from_iterator(
        LINES, tokenizers.trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False)
    )
    path = tmp_path_factory.mktemp("model") / "tokenizer.json"
    hf.save(str(path))
    return path


def make_cache(root: Path, source: Path, repo: str, revision: str, commit: str) -> None:
    folder = root / ("models--" + repo.replace("/", "--"))
    (folder / "refs").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / revision).write_text(commit)
    (folder / "snapshots" / commit).mkdir(parents=True)
    shutil.copy(source, folder / "snapshots" / commit / "tokenizer.json")


def test_from_pretrained_reads_folder_and_hub_cache(
    tokenizer_json: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hf = tokenizers.Tokenizer.from_file(str(tokenizer_json))
    local = tokensmith.Tokenizer.from_pretrained(str(tokenizer_json.parent))
    assert local.encode(LINES[3]).ids == hf.encode(LINES[3]).ids

    cache = tmp_path / "hub"
    make_cache(cache, tokenizer_json, "acme/tiny", "main", "a" * 40)
    make_cache(cache, tokenizer_json, "acme/tiny", "v2", "b" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    for revision, commit in [("main", "a" * 40), ("v2", "b" * 40), ("b" * 40, "b" * 40)]:
        found = try_to_load_from_cache(
            "acme/tiny", "tokenizer.json", cache_dir=cache, revision=revision
        )
        assert isinstance(found, str) and commit in found
        tok = tokensmith.Tokenizer.from_pretrained("acme/tiny", revision=revision)
        assert tok.to_str() == Path(found).read_text(encoding="utf-8")
        assert tok.encode(LINES[5]).ids == hf.encode(LINES[5]).ids

    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert tokensmith.Tokenizer.from_pretrained("acme/tiny").encode("x").ids == hf.encode("x").ids


def test_from_pretrained_names_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(tokensmith.InputNotFoundError) as info:
        tokensmith.Tokenizer.from_pretrained("acme/missing", revision="dev")
    message = str(info.value)
    assert str(tmp_path / "models--acme--missing" / "refs" / "dev") in message
    assert "never downloads" in message
    assert isinstance(info.value, FileNotFoundError)
