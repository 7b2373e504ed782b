"""Published `.tiktoken`-format files (Llama 3, Qwen, Whisper, GPT-2) against tiktoken.

Each file's split pattern and special tokens are the ones its model uses: Llama 3's come from
the published ``tokenizer.json`` beside it, Qwen's and Whisper's from their packages' sources
(copied here as data), GPT-2's from tiktoken's own ``gpt2`` definition.
"""

from __future__ import annotations

import json

import pytest
import tiktoken
import tiktoken.load
import tokensmith
from conftest import real_path

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def _llama3() -> tuple[str, dict[str, int]]:
    spec = json.loads(real_path("llama3/tokenizer.json").read_text(encoding="utf-8"))
    split = spec["pre_tokenizer"]["pretokenizers"][0]
    assert split["type"] == "Split"
    specials = {t["content"]: t["id"] for t in spec["added_tokens"]}
    return split["pattern"]["Regex"], specials


def _qwen() -> tuple[str, dict[str, int]]:
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    names += [f"<|extra_{i}|>" for i in range(205)]
    return QWEN_PATTERN, {name: 151643 + i for i, name in enumerate(names)}


def _gpt2_like(n_ranks: int) -> tuple[str, dict[str, int]]:
    return GPT2_PATTERN, {"<|endoftext|>": n_ranks}


FILES = ["llama3/tokenizer.model", "qwen/qwen.tiktoken", "whisper/multilingual.tiktoken",
         "whisper/gpt2.tiktoken"]


@pytest.fixture(scope="module", params=FILES)
def both(request: pytest.FixtureRequest) -> tuple[object, tokensmith.Encoding, list[str]]:
    path = real_path(request.param)
    ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    if request.param.startswith("llama3"):
        pattern, specials = _llama3()
    elif request.param.startswith("qwen"):
        pattern, specials = _qwen()
    else:
        pattern, specials = _gpt2_like(len(ranks))
    ref = tiktoken.Encoding(
        name=request.param, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials
    )
    ours = tokensmith.load_tiktoken(path, pat_str=pattern, special_tokens=specials)
    return ref, ours, sorted(specials)


def test_ordinary_ids_equal_tiktoken(both: tuple, texts: list[str]) -> None:
    ref, ours, _ = both
    assert ours.n_vocab == ref.n_vocab
    assert ours.encode_ordinary_batch(texts) == ref.encode_ordinary_batch(texts)
    for text in texts[::5]:
        ids = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == ids, text
        assert ours.decode(ids) == ref.decode(ids)


def test_special_tokens_equal_tiktoken(both: tuple, texts: list[str]) -> None:
    ref, ours, specials = both
    for i, text in enumerate(texts[:60]):
        mixed = f"{specials[i % len(specials)]}{text}{specials[(7 * i) % len(specials)]}"
        assert ours.encode(mixed, allowed_special="all") == ref.encode(mixed, allowed_special="all")
        assert ours.encode(mixed, disallowed_special=()) == ref.encode(mixed, disallowed_special=())


def test_gpt2_data_gym_files_give_r50k_ranks() -> None:
    # Two packages ship GPT-2's vocabulary in its two published formats; tiktoken reads both
    # to the same ranks, so the files are the ones tiktoken's gpt2 and r50k_base expect.
    from_data_gym = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(real_path("gpt2/vocab.bpe")),
        encoder_json_file=str(real_path("gpt2/encoder.json")),
    )
    assert from_data_gym == tiktoken.load.load_tiktoken_bpe(str(real_path("whisper/gpt2.tiktoken")))
