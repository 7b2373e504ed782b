"""Shared fixtures: the committed test text and the reference encoders, built offline."""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from tokensmith.reference import tiktoken_encoding

DATA = Path(__file__).parent / "data"
ENCODINGS = ["cl100k_base", "o200k_base"]


@pytest.fixture(scope="session")
def multilingual_lines() -> list[str]:
    return (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.fixture(scope="session")
def code_text() -> str:
    return (DATA / "code.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session", params=ENCODINGS)
def pair(request: pytest.FixtureRequest) -> tuple[tokensmith.Encoding, object]:
    """(tokensmith encoding, tiktoken encoding) of the same name."""
    return tokensmith.get_encoding(request.param), tiktoken_encoding(request.param)
