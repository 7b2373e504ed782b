"""A Sequence post-processor that trims offsets after its template
(``[TemplateProcessing, ByteLevel(trim_offsets=true)]``), compared with HF ``tokenizers`` on a
Llama-3-style file (hf_families.py): every field of every line, of pairs, and of overflowing
windows. The orders tokensmith refuses (trimming after BertProcessing or RobertaProcessing, or
twice), which HF runs, raise :class:`~tokensmith.errors.TokenizerJsonError` naming the step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from hf_families import build
from hf_parity import assert_same_as_hf, texts_of
from test_truncation_overflowing import LONGEST, PAIRS, SINGLES, outcome
from tokensmith.errors import TokenizerJsonError


@pytest.fixture(scope="module")
def llama3_doc(
    multilingual_lines: list[str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    path = build("llama3", multilingual_lines, tmp_path_factory.mktemp("llama3"))
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _trim(add_prefix_space: bool) -> dict[str, Any]:
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": True,
        "use_regex": True,
    }


def _with_steps(doc: dict[str, Any], steps: list[dict[str, Any]], out: Path) -> Path:
    """A copy of ``doc`` whose post-processor is the Sequence of ``steps``."""
    copy = dict(doc, post_processor={"type": "Sequence", "processors": steps})
    path = out / "tokenizer.json"
    path.write_text(json.dumps(copy, ensure_ascii=False), encoding="utf-8")
    return path


def _template(doc: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = doc["post_processor"]["processors"][1]
    assert step["type"] == "TemplateProcessing"
    return step


@pytest.mark.parametrize("add_prefix_space", [True, False])
def test_trimming_after_the_template_as_hf(
    llama3_doc: dict[str, Any],
    multilingual_lines: list[str],
    tmp_path: Path,
    add_prefix_space: bool,
) -> None:
    steps = [_template(llama3_doc), _trim(add_prefix_space)]
    path = _with_steps(llama3_doc, steps, tmp_path)
    assert_same_as_hf(path, texts_of(multilingual_lines, ("  two  spaces  ",)))


def test_trimming_after_the_template_with_windows(
    llama3_doc: dict[str, Any], tmp_path: Path
) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    path = _with_steps(llama3_doc, [_template(llama3_doc), _trim(True)], tmp_path)
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    for tok in (hf, ours):
        tok.enable_truncation(14, stride=4)
    for text in [*SINGLES, *LONGEST]:
        assert outcome(ours.encode, text) == outcome(hf.encode, text), text
    for a, b in [*PAIRS, tuple(LONGEST)]:
        assert outcome(ours.encode, a, b) == outcome(hf.encode, a, b), (a, b)
    assert ours.encode(LONGEST[0]).overflowing


def test_trimming_does_change_offsets(llama3_doc: dict[str, Any], tmp_path: Path) -> None:
    """The comparisons above are not vacuous: trimming moves offsets past the spaces."""
    plain = tokensmith.Tokenizer.from_str(json.dumps(llama3_doc))
    path = _with_steps(llama3_doc, [_template(llama3_doc), _trim(False)], tmp_path)
    trimmed = tokensmith.Tokenizer.from_file(path)
    text = "Hello big world"
    assert plain.encode(text).offsets != trimmed.encode(text).offsets


def test_refused_orders_name_the_step(llama3_doc: dict[str, Any], tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    bos = _template(llama3_doc)["special_tokens"]["<|begin_of_text|>"]["ids"][0]
    roberta = {
        "type": "RobertaProcessing",
        "sep": ["<|begin_of_text|>", bos],
        "cls": ["<|begin_of_text|>", bos],
    }
    template = _template(llama3_doc)
    for steps, at in [
        ([roberta, _trim(True)], "post_processor.processors[1]"),
        ([_trim(True), template, _trim(True)], "post_processor.processors[2]"),
    ]:
        path = _with_steps(llama3_doc, steps, tmp_path)
        HfTokenizer.from_file(str(path)).encode("a b")  # HF runs it
        with pytest.raises(TokenizerJsonError, match=at.replace("[", r"\[")):
            tokensmith.Tokenizer.from_file(path)
