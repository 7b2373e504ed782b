"""A module-scoped pytest fixture over several tokenizer.json families, for the parity tests
that run one check per family: the families of :mod:`hf_families`, and Qwen2 style
(:func:`family_builders.regex_bpe_style`) and ALBERT / XLM-R style Unigram
(:func:`family_builders.unigram_style` on a model trained on the multilingual text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest
from family_builders import regex_bpe_style, spm_unigram_model, unigram_style
from hf_families import build


class Family(NamedTuple):
    """A family's name and the path of its tokenizer.json."""

    name: str
    path: Path


def build_family(family: str, lines: list[str], out: Path) -> Path:
    """The tokenizer.json of ``family``, written under ``out``."""
    if family == "qwen2":
        return regex_bpe_style("qwen2", out)
    if family in ("albert", "xlmr"):
        return unigram_style(family, spm_unigram_model("multi", out), False, False, out)
    return build(family, lines, out)


def family_fixture(families: list[str]) -> Any:
    """A fixture ``family_json`` giving each family's :class:`Family` (its name and the path
    of its file), built once per module."""

    @pytest.fixture(scope="module", params=families)
    def family_json(
        request: pytest.FixtureRequest,
        multilingual_lines: list[str],
        tmp_path_factory: pytest.TempPathFactory,
    ) -> Family:
        out = tmp_path_factory.mktemp(f"family-{request.param}")
        return Family(request.param, build_family(request.param, multilingual_lines, out))

    return family_json
