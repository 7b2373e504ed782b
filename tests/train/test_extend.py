"""Vocabulary extension: every original id kept, better compression on the domain corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from tokensmith.errors import InvalidTrainerOptionError

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def code_lines() -> list[str]:
    return (DATA / "code.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def base(multilingual_lines: list[str]) -> tokensmith.Encoding:
    return tokensmith.train_bpe(
        multilingual_lines, vocab_size=3000, special_tokens=["<|endoftext|>"], name="general"
    )


def test_extension_keeps_ids_and_improves_domain_compression(base, code_lines):
    train, held = code_lines[::2], code_lines[1::2]
    ext = tokensmith.train_bpe(train, vocab_size=4000, base=base, name="general+code")
    for token, rank in base._mergeable_ranks.items():
        assert ext._mergeable_ranks[token] == rank
    assert ext._special_tokens == base._special_tokens
    assert ext.n_vocab == 4000
    before = sum(len(base.encode_ordinary(x)) for x in held)
    after = sum(len(ext.encode_ordinary(x)) for x in held)
    assert after < 0.95 * before, (before, after)
    for line in held[:200]:
        assert ext.decode(ext.encode_ordinary(line)) == line
    # The merge list continues the base's, so merge-list formats stay consistent.
    assert ext._bpe_merges[: len(base._bpe_merges)] == base._bpe_merges


def test_extension_of_a_bundled_vocabulary(code_lines):
    o200k = tokensmith.get_encoding("o200k_base")
    n_base = len(o200k._mergeable_ranks) + len(o200k._special_tokens)
    ext = tokensmith.train_bpe(code_lines, vocab_size=n_base + 50, base=o200k)
    # New tokens fill the ids around the specials (199999, 200018) without touching them.
    assert len(ext._mergeable_ranks) + len(ext._special_tokens) == n_base + 50
    assert ext._special_tokens == o200k._special_tokens
    assert ext.encode("print('hi')<|endoftext|>", allowed_special="all")[-1] == o200k.eot_token
    sample = "\n".join(code_lines[:300])
    assert len(ext.encode_ordinary(sample)) <= len(o200k.encode_ordinary(sample))


def test_extension_errors(base, code_lines):
    with pytest.raises(InvalidTrainerOptionError, match="must exceed"):
        tokensmith.train_bpe(code_lines, vocab_size=3000, base=base)
    with pytest.raises(InvalidTrainerOptionError, match="pattern"):
        tokensmith.train_bpe(code_lines, vocab_size=3100, base=base, pat_str=r"\w+")
    with pytest.raises(InvalidTrainerOptionError, match="special_tokens"):
        tokensmith.train_bpe(code_lines, vocab_size=3100, base=base, special_tokens=["<x>"])
    with pytest.raises(TypeError):
        tokensmith.train_bpe(code_lines, vocab_size=3100, base="o200k_base")  # type: ignore[arg-type]
