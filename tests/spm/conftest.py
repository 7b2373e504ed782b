"""Fixtures of ``tests/spm``: the test lines, and sentencepiece-trained model pairs."""

from __future__ import annotations

import pytest
from spm_helpers import BPE, CONFIGS, DATA, EXTRA, UNIGRAM, pair


@pytest.fixture(scope="session")
def lines() -> list[str]:
    text = (DATA / "multilingual.txt").read_text(encoding="utf-8")
    return text.splitlines() + EXTRA


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def models(request: pytest.FixtureRequest):
    """(tokensmith processor, sentencepiece processor) of one trained model."""
    return pair(request.param)


@pytest.fixture(scope="module", params=UNIGRAM)
def unigram_models(request: pytest.FixtureRequest):
    return pair(request.param)


@pytest.fixture(scope="module", params=BPE)
def bpe_models(request: pytest.FixtureRequest):
    return pair(request.param)


@pytest.fixture(scope="module", params=UNIGRAM + BPE)
def sampling_models(request: pytest.FixtureRequest):
    """The models sentencepiece samples from (Unigram and BPE)."""
    return pair(request.param)
