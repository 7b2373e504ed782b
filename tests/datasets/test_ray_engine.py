"""The Ray engine on a real local cluster writes the same bytes as the local engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from tokensmith.datasets import IndexedDataset, encode_dataset

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("in") / "docs.txt"
    path.write_text((DATA / "multilingual.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _shard_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("shard_*"))}


@pytest.mark.parametrize("fmt", ["megatron", "npy"])
def test_ray_shards_are_byte_identical_to_local(ray_cluster, corpus, tmp_path, fmt):
    options = dict(format=fmt, append_eos=True, shard_size=20_000, progress=False)
    local = encode_dataset([corpus], tokenizer="o200k_base", out_dir=tmp_path / "l", **options)
    remote = encode_dataset(
        [corpus], tokenizer="o200k_base", out_dir=tmp_path / "r", engine="ray", **options
    )
    assert local.shards > 1 and (local.tokens, local.shards) == (remote.tokens, remote.shards)
    assert _shard_bytes(tmp_path / "l") == _shard_bytes(tmp_path / "r")
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert "engine" not in manifest["job"], "the engine must not change the job's identity"


def test_ray_engine_with_a_custom_encoding(ray_cluster, corpus, tmp_path):
    # Not bundled: the encoding travels to the workers by its ranks.
    enc = tokensmith.train_bpe(corpus.read_text(encoding="utf-8").splitlines(), vocab_size=600)
    encode_dataset([corpus], tokenizer=enc, out_dir=tmp_path / "r", engine="ray", progress=False)
    ds = IndexedDataset(str(sorted((tmp_path / "r").glob("*.idx"))[0].with_suffix("")))
    first = next(line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip())
    assert ds[0].tolist() == enc.encode_ordinary(first)
