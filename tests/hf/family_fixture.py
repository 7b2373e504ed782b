"""A module-scoped pytest fixture over several tokenizer.json families, for the parity tests
that run one check per family: the families of :mod:`hf_families`, and Qwen2 style
(:func:`family_builders.regex_bpe_style`) and ALBERT / XLM-R style Unigram
(:func:`family_builders.unigram_style` on a model trained on the multilingual text), and
``bert-bare``: the MiniLM file without a post-processor.
"""

from __future__ import annotations

import json
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
    if family == "bert-bare":
        # The real MiniLM file without its post-processor (HF's default_process then runs).
        doc = json.loads(build("bert", lines, out).read_text(encoding="utf-8"))
        doc["post_processor"] = None
        path = out / "bert-bare.json"
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        return path
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
