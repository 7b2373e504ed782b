"""evaluate(): stable metric names, the same values as the single metrics, clear errors."""

from __future__ import annotations

import math

import pytest
import tokensmith.eval as ev
from eval_helpers import DATA, read_lines
from tokensmith.errors import EmptyCorpusError

EXPECTED_NAMES = {
    "bytes_per_token",
    "chars_per_token",
    "fertility",
    "continued_words",
    "renyi_efficiency",
    "vocab_utilization",
    "ids_for_90pct",
    "unk_rate",
    "byte_fallback_rate",
    "digits_per_token",
    "round_trip_rate",
}


def test_names_are_the_documented_contract() -> None:
    assert set(ev.METRIC_NAMES) == EXPECTED_NAMES
    m = ev.evaluate("o200k_base", read_lines("code.txt")[:400])
    assert EXPECTED_NAMES <= set(m)
    assert all(isinstance(v, float) for v in m.values())


def test_values_equal_the_single_metrics() -> None:
    lines = read_lines("multilingual.txt")[:800]
    data = ev.tokenize("cl100k_base", lines)
    m = ev.evaluate("cl100k_base", lines)
    assert m["bytes_per_token"] == ev.bytes_per_token(data)
    assert m["chars_per_token"] == ev.chars_per_token(data)
    assert m["fertility"] == ev.fertility(data)
    assert m["continued_words"] == ev.continued_words(data)
    assert m["renyi_efficiency"] == ev.renyi_efficiency(data)
    assert m["vocab_utilization"] == ev.vocab_utilization(data)
    assert m["digits_per_token"] == ev.digits_per_token(data)
    assert m["n_tokens"] == data.n_tokens and m["n_texts"] == 800


def test_whitespace_share_by_hand() -> None:
    # "a b" and "c": 1 space over 4 characters (the join between texts is not counted).
    assert ev.evaluate("o200k_base", ["a b", "c"])["whitespace_share"] == 0.25


def test_empty_corpus_is_an_error_that_names_the_language() -> None:
    for texts in ([], [""], ["", ""]):
        with pytest.raises(EmptyCorpusError, match="'sw'") as e:
            ev.evaluate("o200k_base", texts, language="sw")
        assert isinstance(e.value, ValueError)


def test_empty_texts_among_others_are_fine() -> None:
    m = ev.evaluate("o200k_base", ["", "hello world", ""])
    assert m["bytes_per_token"] == 5.5 and m["round_trip_rate"] == 1.0
    assert not math.isnan(m["fertility"])


def test_lone_surrogates_are_replaced_not_fatal() -> None:
    m = ev.evaluate("cl100k_base", ["bad \udc00 text"])
    assert m["n_bytes"] == len("bad \ufffd text".encode())


def test_by_language_keeps_languages_without_text() -> None:
    corpora = ev.read_parallel(DATA / "parallel")
    texts = {"de": [t for _, t in corpora["de"]], "zz": []}
    result = ev.evaluate_by_language("o200k_base", texts)
    assert set(result) == {"de", "zz"}
    assert result["de"] == ev.evaluate("o200k_base", texts["de"])
    assert result["zz"]["n_texts"] == 0 and math.isnan(result["zz"]["bytes_per_token"])
    assert EXPECTED_NAMES <= set(result["zz"])
