"""A damaged ``.model`` gives a clear error, never a crash."""

from __future__ import annotations

import random

import pytest
import tokensmith


def test_garbage_and_empty_are_model_format_errors():
    with pytest.raises(tokensmith.ModelFormatError, match="no pieces"):
        tokensmith.SentencePieceProcessor(model_proto=b"")
    with pytest.raises(tokensmith.ModelFormatError, match="truncated"):
        tokensmith.SentencePieceProcessor(model_proto=b"\x0a\xff\x01abc")


def test_random_bytes_never_crash():
    rng = random.Random(4)
    for _ in range(2000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        try:
            tokensmith.SentencePieceProcessor(model_proto=data)
        except tokensmith.TokensmithError:
            pass


def test_missing_file_is_input_not_found(tmp_path):
    with pytest.raises(tokensmith.InputNotFoundError):
        tokensmith.SentencePieceProcessor(model_file=tmp_path / "nope.model")


def test_exactly_one_source():
    with pytest.raises(TypeError):
        tokensmith.SentencePieceProcessor()
