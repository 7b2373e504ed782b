"""BPE dropout (``"dropout": p`` in a tokenizer.json's BPE model).

The output is random, so parity is checked where HF's is not: dropout 0 or null gives the
no-dropout output exactly, and dropout 1 (every merge skipped) gives HF's output exactly. For
0 < p < 1: every encoding spells the same text (it decodes to the no-dropout encoding's
string, and its offsets cover the same characters), token counts grow with p from the
no-dropout count, the mean count is HF's within a few percent (the same skip-and-retry rule),
and two runs differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import test_bpe_families
import tokensmith
from hf_parity import fields

# The BPE families of test_bpe_families.py, trained by tokensmith on the multilingual text.
trained = test_bpe_families.trained


def with_dropout(path: Path, p: float | None) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["model"]["dropout"] = p
    out = path.with_name(f"dropout-{p}.json")
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return out


def texts(lines: list[str]) -> list[str]:
    return [line.rstrip("\n") for line in lines[:1500]]


def total_tokens(tok: Any, lines: list[str]) -> int:
    return sum(len(tok.encode(t).ids) for t in lines)


def test_zero_and_null_are_no_dropout(trained: Path, multilingual_lines: list[str]) -> None:
    base = tokensmith.Tokenizer.from_file(trained)
    for p in (None, 0.0):
        tok = tokensmith.Tokenizer.from_file(with_dropout(trained, p))
        bad = [
            t for t in texts(multilingual_lines) if fields(tok.encode(t)) != fields(base.encode(t))
        ]
        assert bad == [], (p, bad[:3])


def test_dropout_one_is_hf_exactly(trained: Path, multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    path = with_dropout(trained, 1.0)
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    lines = texts(multilingual_lines)
    bad = [t for t in lines if fields(ours.encode(t)) != fields(hf.encode(t))]
    assert bad == [], bad[:3]
    # Not the no-dropout output: merges really were all skipped.
    base = tokensmith.Tokenizer.from_file(trained)
    assert total_tokens(ours, lines) > total_tokens(base, lines)


def test_random_dropout_spells_the_text(trained: Path, multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    lines = texts(multilingual_lines)
    base = tokensmith.Tokenizer.from_file(trained)
    base_total = total_tokens(base, lines)
    totals = []
    for p in (0.1, 0.3, 0.6):
        path = with_dropout(trained, p)
        tok = tokensmith.Tokenizer.from_file(path)
        for t in lines[:300]:
            enc, ref = tok.encode(t), base.encode(t)
            assert tok.decode(enc.ids) == base.decode(ref.ids), (p, t)
            assert set(enc.word_ids) == set(ref.word_ids), (p, t)
            assert [o[0] for o in enc.offsets][:1] == [o[0] for o in ref.offsets][:1], (p, t)
            assert [o[1] for o in enc.offsets][-1:] == [o[1] for o in ref.offsets][-1:], (p, t)
        first = [tok.encode(t).ids for t in lines]
        second = [tok.encode(t).ids for t in lines]
        assert first != second, p
        total = sum(map(len, first))
        hf = HfTokenizer.from_file(str(path))
        hf_total = sum(len(hf.encode(t).ids) for t in lines)
        assert abs(total - hf_total) < 0.03 * hf_total, (p, total, hf_total)
        totals.append(total)
    assert base_total < totals[0] < totals[1] < totals[2], (base_total, totals)


def test_dropout_out_of_range_names_the_path(trained: Path) -> None:
    from tokensmith.errors import TokenizerJsonError

    with pytest.raises(TokenizerJsonError, match="model.dropout"):
        tokensmith.Tokenizer.from_file(with_dropout(trained, 1.5))
