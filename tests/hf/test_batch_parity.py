"""``encode_batch`` and ``decode_batch`` give what HF ``tokenizers``' batch calls give, and what
``encode``/``decode`` give text by text, on every line of the multilingual text (and pairs of
300 of them): for the BERT-style files of ``conftest.py`` (the real BERT file included, with
its truncation and padding) and a byte-fallback Metaspace BPE trained by tokensmith.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from hf_parity import fields


def _inputs(lines: list[str]) -> list[str | tuple[str, str]]:
    texts = [line.rstrip("\n") for line in lines]
    pairs = list(zip(texts[:300], texts[300:600], strict=True))
    return [*texts, *pairs, "", ("", "")]


def _check(path: Path, lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    ref = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    inputs = _inputs(lines)
    for add_special_tokens in (True, False):
        got = ours.encode_batch(inputs, add_special_tokens=add_special_tokens)
        expected = ref.encode_batch(inputs, add_special_tokens=add_special_tokens)
        assert len(got) == len(expected) == len(inputs)
        bad = [x for x, g, e in zip(inputs, got, expected, strict=True) if fields(g) != fields(e)]
        assert bad == [], bad[:5]
        one_by_one = [
            ours.encode(x, add_special_tokens=add_special_tokens)
            if isinstance(x, str)
            else ours.encode(x[0], x[1], add_special_tokens=add_special_tokens)
            for x in inputs
        ]
        assert got == one_by_one
    ids = [e.ids for e in ref.encode_batch(inputs)]
    for skip in (True, False):
        decoded = ours.decode_batch(ids, skip_special_tokens=skip)
        assert decoded == ref.decode_batch(ids, skip_special_tokens=skip)
        assert decoded == [ours.decode(x, skip_special_tokens=skip) for x in ids]
    assert ours.encode_batch(inputs[:50], num_threads=1) == ours.encode_batch(inputs[:50])


def test_bert_batches_match_hf(bert_json: Path, multilingual_lines: list[str]) -> None:
    _check(bert_json, multilingual_lines)


def test_byte_fallback_bpe_batches_match_hf(multilingual_lines: list[str], tmp_path: Path) -> None:
    tok = tokensmith.train_bpe(
        multilingual_lines,
        kind="metaspace",
        vocab_size=3000,
        byte_fallback=True,
        limit_alphabet=400,
    )
    tok.save(tmp_path / "tokenizer.json")
    _check(tmp_path / "tokenizer.json", multilingual_lines)


def test_empty_batches() -> None:
    tok = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}}'
    )
    assert tok.encode_batch([]) == []
    assert tok.decode_batch([]) == []
    with pytest.raises(TypeError):
        tok.encode_batch([42])  # type: ignore[list-item]
