"""Qwen2- and Llama-3-style byte-level BPE tokenizer.json files, trained here with HF's
``BpeTrainer`` on the multilingual text, with the published pre-tokenizer regexes and the
published pipeline shapes (Qwen2: NFC normalizer, ``Split`` + ``ByteLevel``, a ByteLevel
post-processor; Llama 3: no normalizer, ``ignore_merges``, a ``Sequence`` post-processor of
ByteLevel and a ``<|begin_of_text|>`` template). Compared with HF ``tokenizers`` on every line,
on pairs, on truncation with padding, and on decode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from family_builders import LLAMA3_PATTERN, QWEN2_PATTERN, regex_bpe_style
from hf_parity import assert_same_as_hf, texts_of, with_truncation_and_padding


@pytest.fixture(scope="module", params=["qwen2", "llama3"])
def regex_bpe_json(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return regex_bpe_style(request.param, tmp_path_factory.mktemp("regex-bpe"))


def test_file_shape(regex_bpe_json: Path) -> None:
    doc = json.loads(regex_bpe_json.read_text(encoding="utf-8"))
    split = doc["pre_tokenizer"]["pretokenizers"][0]
    assert split["pattern"]["Regex"] in (QWEN2_PATTERN, LLAMA3_PATTERN)
    if "qwen2" in regex_bpe_json.name:
        assert doc["normalizer"]["type"] == "NFC"
    else:
        assert doc["post_processor"]["type"] == "Sequence"
        assert doc["model"]["ignore_merges"] is True


def test_identical_to_hf_tokenizers(regex_bpe_json: Path, multilingual_lines: list[str]) -> None:
    assert_same_as_hf(regex_bpe_json, texts_of(multilingual_lines, ("<|endoftext|>x",)))


def test_truncation_and_padding(
    regex_bpe_json: Path, multilingual_lines: list[str], tmp_path: Path
) -> None:
    path = with_truncation_and_padding(regex_bpe_json, tmp_path, 20)
    assert_same_as_hf(path, texts_of(multilingual_lines), n_pairs=200)
