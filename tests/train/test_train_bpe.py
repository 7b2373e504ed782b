"""Byte-level BPE training: the Python API, its errors, and merge-by-merge parity with HF.

The parity test gives HF ``tokenizers`` the same pre-tokenization as tokensmith: a ``Split``
on GPT-2's pattern written without possessive quantifiers (Oniguruma and fancy-regex read it
the same way), then ``ByteLevel(use_regex=False)``, which only maps bytes to HF's printable
alphabet. HF's merges are mapped back to bytes and compared in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import tokensmith
from tokensmith._core import train_bpe_bytes
from tokensmith.io._byte_level import str_to_token

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _hf_merges(lines: list[str], vocab_size: int, min_frequency: int) -> list[tuple[bytes, bytes]]:
    import tokenizers
    from tokenizers import Regex, models, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(lines, trainer)
    # HF writes tokens in GPT-2's printable byte alphabet; tokensmith.io reads it back.
    merges = json.loads(tok.to_str())["model"]["merges"]
    out = []
    for m in merges:
        left, right = m.split(" ") if isinstance(m, str) else m
        out.append((str_to_token(left), str_to_token(right)))
    return out


def _first_difference(a: list[tuple[bytes, bytes]], b: list[tuple[bytes, bytes]]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"merge {i}: tokensmith {x!r}, HF {y!r}"
    return f"lengths differ: tokensmith {len(a)}, HF {len(b)}"


@pytest.mark.parametrize(("vocab_size", "min_frequency"), [(1000, 2), (2000, 2), (1500, 0)])
def test_merges_identical_to_hf(
    multilingual_lines: list[str], vocab_size: int, min_frequency: int
) -> None:
    expected = _hf_merges(multilingual_lines, vocab_size, min_frequency)
    _ranks, _specials, merges = train_bpe_bytes(
        multilingual_lines,
        pattern=GPT2_PATTERN,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        compat="hf",
    )
    assert len(expected) == vocab_size - 256
    assert merges == expected, _first_difference(merges, expected)


def test_train_bpe_returns_a_working_encoding(multilingual_lines: list[str]) -> None:
    enc = tokensmith.train_bpe(
        multilingual_lines, vocab_size=600, special_tokens=["<|endoftext|>"], name="tiny"
    )
    assert enc.name == "tiny"
    assert enc.n_vocab == 600
    assert enc.encode("<|endoftext|>", allowed_special="all") == [599]
    text = "".join(multilingual_lines[:200])
    assert enc.decode(enc.encode(text)) == text
    assert len(enc.encode(text)) < len(text.encode("utf-8")) * 0.7
    assert [enc.decode_single_token_bytes(i) for i in range(256)] == [
        bytes([b]) for b in range(256)
    ]


def test_generator_input_is_read_in_chunks(multilingual_lines: list[str]) -> None:
    def lines() -> Iterator[str]:
        yield from multilingual_lines

    a = train_bpe_bytes(lines(), pattern=GPT2_PATTERN, vocab_size=700, chunk_size=7)
    b = train_bpe_bytes(multilingual_lines, pattern=GPT2_PATTERN, vocab_size=700)
    assert a == b


def test_empty_corpus() -> None:
    with pytest.raises(tokensmith.EmptyCorpusError, match="empty"):
        tokensmith.train_bpe([], vocab_size=300)
    with pytest.raises(ValueError):
        tokensmith.train_bpe(iter(["", ""]), vocab_size=300)


def test_vocab_size_too_small() -> None:
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="vocab_size >= 258"):
        tokensmith.train_bpe(["abc"], vocab_size=257, special_tokens=["<a>", "<b>"])
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="vocab_size >= 257"):
        train_bpe_bytes(["abc"], pattern=GPT2_PATTERN, vocab_size=256, special_tokens=["<a>"])


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="not a single string"):
        tokensmith.train_bpe("some text", vocab_size=300)
    with pytest.raises(TypeError, match=r"texts\[1\] is a int"):
        tokensmith.train_bpe(["a", 3], vocab_size=300)  # type: ignore[list-item]
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="compat"):
        tokensmith.train_bpe(["a"], vocab_size=300, compat="sp")  # type: ignore[arg-type]
    with pytest.raises(tokensmith.PatternError):
        tokensmith.train_bpe(["a"], vocab_size=300, pat_str="(")
    with pytest.raises(TypeError):
        tokensmith.train_bpe(["a"], 300)  # type: ignore[call-arg]
