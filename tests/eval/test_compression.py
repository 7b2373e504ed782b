"""Bytes and characters per token, checked against tiktoken's own encoder."""

from __future__ import annotations

import pytest
import tokensmith.eval as ev
from eval_helpers import byte_encoding, hf_byte_level, read_lines
from tokensmith.reference import tiktoken_encoding


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("corpus", ["multilingual.txt", "code.txt"])
def test_bytes_per_token_matches_tiktoken(name: str, corpus: str) -> None:
    lines = read_lines(corpus)
    ref = tiktoken_encoding(name)
    # Independent: tiktoken's own encoder, one text at a time, counted in Python.
    n_tokens = sum(len(ref.encode_ordinary(t)) for t in lines)
    n_bytes = sum(len(t.encode("utf-8")) for t in lines)
    n_chars = sum(len(t) for t in lines)
    for spec in (name, ref):  # through tokensmith and through the tiktoken object
        data = ev.tokenize(spec, lines)
        assert data.n_tokens == n_tokens
        assert ev.bytes_per_token(data) == pytest.approx(n_bytes / n_tokens, rel=1e-12)
        assert ev.chars_per_token(data) == pytest.approx(n_chars / n_tokens, rel=1e-12)


def test_byte_tokenizer_carries_one_byte_per_token() -> None:
    data = ev.tokenize(byte_encoding(), ["héllo", "東京"])
    assert ev.bytes_per_token(data) == 1.0
    # 7 characters over 12 bytes (é is 2 bytes, each kanji 3).
    assert ev.chars_per_token(data) == pytest.approx(7 / 12)


def test_hf_compression_matches_its_own_counts() -> None:
    lines = read_lines("multilingual.txt")[:300]
    tok = hf_byte_level(lines)
    n_tokens = sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False))
    n_bytes = sum(len(t.encode("utf-8")) for t in lines)
    assert ev.bytes_per_token(ev.tokenize(tok, lines)) == pytest.approx(n_bytes / n_tokens)


def test_o200k_compresses_the_multilingual_text_better_than_cl100k() -> None:
    lines = read_lines("multilingual.txt")
    cl = ev.bytes_per_token(ev.tokenize("cl100k_base", lines))
    o2 = ev.bytes_per_token(ev.tokenize("o200k_base", lines))
    assert o2 > cl > 1.0
