"""``tokensmith.load``, the twin of ``tiktoken.load``: the same ranks and the same file bytes as
tiktoken's helpers on the bundled vocabularies and GPT-2's data-gym files, local files only."""

from __future__ import annotations

import gzip
import hashlib
import importlib
import os
from pathlib import Path

import pytest
import tiktoken.load
import tokensmith
from tokensmith.errors import (
    InputNotFoundError,
    InvalidVocabError,
    NetworkAccessError,
    VocabFormatError,
    VocabHashError,
)
from tokensmith.load import (
    data_gym_to_mergeable_bpe_ranks,
    dump_tiktoken_bpe,
    load_tiktoken_bpe,
    read_file_cached,
)
from tokensmith.registry import vocab_path

GPT2_DATA_GYM = Path(__file__).parents[1] / "data" / "gpt2_data_gym"
VOCAB_BPE_SHA = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
ENCODER_JSON_SHA = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
R50K_SHA = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"


@pytest.fixture(scope="module")
def plain_files(tmp_path_factory) -> dict[str, str]:
    """Uncompressed copies: tiktoken's helpers read plain files only."""
    out = tmp_path_factory.mktemp("plain")
    sources = {
        "vocab.bpe": GPT2_DATA_GYM / "vocab.bpe.gz",
        "encoder.json": GPT2_DATA_GYM / "encoder.json.gz",
        "r50k_base.tiktoken": Path(str(vocab_path("r50k_base.tiktoken.gz"))),
    }
    paths = {}
    for name, source in sources.items():
        (out / name).write_bytes(gzip.decompress(source.read_bytes()))
        paths[name] = str(out / name)
    return paths


def test_the_module_is_importable_as_tiktokens_is():
    module = importlib.import_module("tokensmith.load")
    for name in ("load_tiktoken_bpe", "dump_tiktoken_bpe", "data_gym_to_mergeable_bpe_ranks"):
        assert callable(getattr(module, name))
    # The package attribute stays the general loader.
    assert tokensmith.load is module.load


def test_data_gym_ranks_equal_tiktokens(plain_files, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache writes by tiktoken
    expected = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        plain_files["vocab.bpe"], plain_files["encoder.json"], VOCAB_BPE_SHA, ENCODER_JSON_SHA
    )
    ours = data_gym_to_mergeable_bpe_ranks(
        plain_files["vocab.bpe"],
        plain_files["encoder.json"],
        vocab_bpe_hash=VOCAB_BPE_SHA,
        encoder_json_hash=ENCODER_JSON_SHA,
    )
    assert ours == expected
    gz = data_gym_to_mergeable_bpe_ranks(
        GPT2_DATA_GYM / "vocab.bpe.gz", GPT2_DATA_GYM / "encoder.json.gz"
    )
    assert gz == expected
    clobbered = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        plain_files["vocab.bpe"], plain_files["encoder.json"], clobber_one_byte_tokens=True
    )
    assert (
        data_gym_to_mergeable_bpe_ranks(
            plain_files["vocab.bpe"], plain_files["encoder.json"], clobber_one_byte_tokens=True
        )
        == clobbered
    )


def test_dump_writes_tiktokens_bytes(plain_files, tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    ranks = tiktoken.load.load_tiktoken_bpe(plain_files["r50k_base.tiktoken"], R50K_SHA)
    assert load_tiktoken_bpe(plain_files["r50k_base.tiktoken"], R50K_SHA) == ranks
    out = tmp_path / "sub" / "r50k.tiktoken"
    dump_tiktoken_bpe(ranks, out)
    assert out.read_bytes() == Path(plain_files["r50k_base.tiktoken"]).read_bytes()
    assert hashlib.sha256(out.read_bytes()).hexdigest() == R50K_SHA
    assert os.listdir(out.parent) == ["r50k.tiktoken"]  # no temporary left behind


def test_hash_mismatch_and_missing_files_are_typed(plain_files, tmp_path):
    with pytest.raises(VocabHashError, match="expected 00"):
        load_tiktoken_bpe(plain_files["r50k_base.tiktoken"], "00" * 32)
    with pytest.raises(ValueError):
        read_file_cached(plain_files["vocab.bpe"], ENCODER_JSON_SHA)
    with pytest.raises(InputNotFoundError):
        read_file_cached(tmp_path / "nope.bpe")


@pytest.mark.parametrize(
    "call",
    [
        lambda: load_tiktoken_bpe("https://example.com/r50k_base.tiktoken"),
        lambda: dump_tiktoken_bpe({b"a": 0}, "gs://bucket/a.tiktoken"),
        lambda: data_gym_to_mergeable_bpe_ranks("https://x/vocab.bpe", "encoder.json"),
    ],
)
def test_urls_say_there_is_no_network(call):
    with pytest.raises(NetworkAccessError, match="never uses the network"):
        call()


def test_bad_data_gym_files_name_file_and_line(plain_files, tmp_path):
    bpe = tmp_path / "vocab.bpe"
    bpe.write_text("#version: 0.2\nĠ t\nonly_one\n", encoding="utf-8")
    with pytest.raises(VocabFormatError, match=r"vocab\.bpe.*line 3"):
        data_gym_to_mergeable_bpe_ranks(bpe, plain_files["encoder.json"])
    bpe.write_text("#version: 0.2\nĠ t\n", encoding="utf-8")
    with pytest.raises(InvalidVocabError, match="does not match"):
        data_gym_to_mergeable_bpe_ranks(bpe, plain_files["encoder.json"])
