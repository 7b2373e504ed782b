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
from hf_parity import assert_same_as_hf, texts_of, with_truncation_and_padding

DATA = Path(__file__).parent.parent / "data"

# The pre-tokenizer patterns as the Qwen2 and Llama 3 tokenizer.json files publish them.
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _train(family: str, out: Path) -> Path:
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )
    from tokenizers.trainers import BpeTrainer

    pattern = QWEN2_PATTERN if family == "qwen2" else LLAMA3_PATTERN
    tok = Tokenizer(models.BPE(ignore_merges=family == "llama3"))
    if family == "qwen2":
        tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(
                add_prefix_space=False, trim_offsets=family == "llama3", use_regex=False
            ),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    specials = ["<|endoftext|>"] if family == "qwen2" else ["<|begin_of_text|>", "<|end_of_text|>"]
    trainer = BpeTrainer(
        vocab_size=3000,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train([str(DATA / "multilingual.txt")], trainer)
    if family == "qwen2":
        tok.post_processor = processors.ByteLevel(
            add_prefix_space=False, trim_offsets=False, use_regex=False
        )
    else:
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence(
            [
                processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
                processors.TemplateProcessing(
                    single="<|begin_of_text|> $A",
                    pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
                    special_tokens=[("<|begin_of_text|>", bos)],
                ),
            ]
        )
    path = out / f"{family}.json"
    tok.save(str(path))
    return path


@pytest.fixture(scope="module", params=["qwen2", "llama3"])
def regex_bpe_json(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return _train(request.param, tmp_path_factory.mktemp("regex-bpe"))


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
