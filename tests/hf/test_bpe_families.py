"""Trained character-level and Metaspace BPE tokenizers run identically in HF ``tokenizers``,
``transformers`` and tokensmith's own pipeline, on every line of the multilingual text.

Each family is trained by ``tokensmith.train_bpe`` and saved as ``tokenizer.json``; HF
``Tokenizer.from_file`` and ``transformers.PreTrainedTokenizerFast(tokenizer_file=...)`` load
that file, and so do ``tokensmith.load`` and ``tokensmith.Tokenizer.from_file``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import tokensmith

FAMILIES: dict[str, dict[str, Any]] = {
    "char": {"kind": "char", "vocab_size": 12000},
    "char-prefix": {
        "kind": "char",
        "vocab_size": 14000,
        "continuing_subword_prefix": "##",
        "limit_alphabet": 1200,
    },
    "char-prefix-only": {
        "kind": "char",
        "vocab_size": 12000,
        "end_of_word_suffix": "",
        "continuing_subword_prefix": "##",
        "split_digits": "groups",
    },
    "char-split-fused-unk": {
        "kind": "char",
        "vocab_size": 12000,
        "pre_tokenizer": "whitespace_split",
        "split_digits": "individual",
        "fuse_unk": True,
        "limit_alphabet": 500,
    },
    "metaspace": {"kind": "metaspace", "vocab_size": 9000},
    "metaspace-byte-fallback": {
        "kind": "metaspace",
        "vocab_size": 4000,
        "byte_fallback": True,
        "limit_alphabet": 500,
        "split_digits": "individual",
    },
    "metaspace-first": {
        "kind": "metaspace",
        "vocab_size": 5000,
        "prepend_scheme": "first",
        "limit_alphabet": 300,
        "fuse_unk": True,
    },
    "metaspace-never": {"kind": "metaspace", "vocab_size": 5000, "prepend_scheme": "never"},
}

EXTRA_LINES = ["", " ", "  a  b ", "1234567 x²", "\t\n", "é", "▁▁x", "a</w> ##b"]


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def trained(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    tok = tokensmith.train_bpe(multilingual_lines, min_frequency=2, **FAMILIES[request.param])
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tok.save(path)
    return path


def _texts(lines: list[str]) -> list[str]:
    return [line.rstrip("\n") for line in lines] + EXTRA_LINES


def test_identical_to_hf_tokenizers(trained: Path, multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(trained))
    ours = tokensmith.load(trained)
    assert isinstance(ours, tokensmith.Tokenizer)
    for text in _texts(multilingual_lines):
        h, t = hf.encode(text), ours.encode(text)
        assert t.ids == h.ids, text
        assert t.tokens == h.tokens, text
        assert t.offsets == h.offsets, text
        assert t.word_ids == h.word_ids, text
        assert ours.decode(t.ids) == hf.decode(h.ids), text
    assert ours.get_vocab() == hf.get_vocab()


def test_identical_to_transformers(trained: Path, multilingual_lines: list[str]) -> None:
    with warnings.catch_warnings():
        # transformers warns once that PyTorch is absent; tokenizers need none of it.
        warnings.simplefilter("ignore")
        from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(tokenizer_file=str(trained))
    ours = tokensmith.Tokenizer.from_file(trained)
    texts = _texts(multilingual_lines)
    expected = fast(texts, add_special_tokens=True)["input_ids"]
    for text, ids in zip(texts, expected, strict=True):
        assert ours.encode(text).ids == ids, text
    for ids in expected[:300]:
        assert ours.decode(ids, skip_special_tokens=False) == fast.decode(
            ids, skip_special_tokens=False
        )


def test_bpe_errors_name_the_json_path(trained: Path, tmp_path: Path) -> None:
    import json

    doc = json.loads(trained.read_text(encoding="utf-8"))
    doc["model"]["merges"][3] = ["not-a-token", doc["model"]["merges"][3][1]]
    bad = tmp_path / "tokenizer.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(tokensmith.TokenizerJsonError) as info:
        tokensmith.Tokenizer.from_file(bad)
    assert info.value.json_path == "model.merges[3]"
    assert "not-a-token" in str(info.value)
    doc["model"]["merges"][3] = "one two three"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(tokensmith.TokenizerJsonError, match=r"model\.merges\[3\]"):
        tokensmith.Tokenizer.from_file(bad)


def _with_added_tokens(trained: Path, out: Path) -> Path:
    """The trained file with added tokens of every flag. Their ids are HF's: a token that the
    model's vocabulary has keeps that id, the others follow the vocabulary."""
    import json

    doc = json.loads(trained.read_text(encoding="utf-8"))
    n = len(doc["model"]["vocab"])
    flags = {"single_word": False, "lstrip": False, "rstrip": False}
    extra = [
        {"content": "<mask>", "special": True, "normalized": False, **flags, "lstrip": True},
        {"content": "the", "special": False, "normalized": True, **flags, "single_word": True},
        {"content": "World", "special": False, "normalized": False, **flags, "rstrip": True},
        {"content": "<unk>y", "special": True, "normalized": False, **flags},
    ]
    vocab = doc["model"]["vocab"]
    for t in extra:
        if t["content"] in vocab:
            doc["added_tokens"].append({"id": vocab[t["content"]], **t})
        else:
            doc["added_tokens"].append({"id": n, **t})
            n += 1
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return out


def test_added_tokens_in_the_text_as_hf(
    trained: Path, multilingual_lines: list[str], tmp_path: Path
) -> None:
    import random

    from tokenizers import Tokenizer as HfTokenizer

    path = _with_added_tokens(trained, tmp_path / "added.json")
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    rng = random.Random(0)
    inserts = ["<mask>", "  <mask>", "the", " the ", "World ", "World", "<unk>", "<unk>y", "<s>"]
    texts = ["<mask>", "the", "  <mask>  World  x", "other the them", "<unk><unk>y"]
    for line in multilingual_lines[:1500]:
        line = line.rstrip("\n")
        at = rng.randrange(len(line) + 1)
        texts.append(line[:at] + rng.choice(inserts) + line[at:])
    for text in texts:
        h, t = hf.encode(text), ours.encode(text)
        assert (t.ids, t.tokens, t.offsets) == (h.ids, h.tokens, h.offsets), text
        assert (t.word_ids, t.special_tokens_mask) == (h.word_ids, h.special_tokens_mask), text
        assert ours.decode(t.ids) == hf.decode(h.ids), text
        assert ours.decode(t.ids, skip_special_tokens=False) == hf.decode(
            h.ids, skip_special_tokens=False
        ), text
