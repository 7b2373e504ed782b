"""Digits per token: how numbers are split."""

from __future__ import annotations

import math

import pytest
import tokensmith.eval as ev
from eval_helpers import byte_encoding, read_lines
from tokensmith.reference import tiktoken_encoding


def test_cl100k_groups_digits_in_threes() -> None:
    # cl100k's pattern cuts digit runs into groups of at most 3: 123|45 and 678.
    data = ev.tokenize("cl100k_base", ["12345 and 678"])
    assert ev.digits_per_token(data) == pytest.approx(8 / 3)


def test_byte_tokenizer_splits_digit_by_digit() -> None:
    assert ev.digits_per_token(ev.tokenize(byte_encoding(), ["3.14159", "x = 42"])) == 1.0


def test_no_digits_is_nan() -> None:
    assert math.isnan(ev.digits_per_token(ev.tokenize("o200k_base", ["no numbers here"])))


def test_matches_tiktoken_token_by_token() -> None:
    lines = [line for line in read_lines("code.txt")[:3000] if line.isascii()]
    ref = tiktoken_encoding("o200k_base")
    digits = carrying = 0
    for line in lines:
        for t in ref.encode_ordinary(line):
            n = sum(ch.isdigit() for ch in ref.decode_single_token_bytes(t).decode("ascii"))
            digits += n
            carrying += n > 0
    assert carrying > 100
    data = ev.tokenize("o200k_base", lines)
    assert ev.digits_per_token(data) == pytest.approx(digits / carrying)
