"""Vocabulary use and token lengths, against counts taken with tiktoken in plain Python."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import tokensmith.eval as ev
from eval_helpers import read_lines
from tokensmith.reference import tiktoken_encoding


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return read_lines("multilingual.txt")[:1500]


def test_utilization_and_mass_match_a_counter(lines: list[str]) -> None:
    ref = tiktoken_encoding("cl100k_base")
    counts = Counter(t for line in lines for t in ref.encode_ordinary(line))
    data = ev.tokenize("cl100k_base", lines)
    assert ev.vocab_utilization(data) == pytest.approx(len(counts) / ref.n_vocab)
    total = sum(counts.values())
    covered, k = 0, 0
    for _, c in counts.most_common():
        covered += c
        k += 1
        if covered >= 0.9 * total:
            break
    assert ev.ids_for_mass(data, 0.9) == k
    assert ev.evaluate_tokenized(data)["ids_for_90pct"] == k
    assert ev.ids_for_mass(data, 1.0) == len(counts)


def test_length_distribution_matches_token_bytes(lines: list[str]) -> None:
    ref = tiktoken_encoding("o200k_base")
    lengths = Counter(
        len(ref.decode_single_token_bytes(t)) for line in lines for t in ref.encode_ordinary(line)
    )
    hist = ev.token_length_distribution(ev.tokenize("o200k_base", lines))
    assert {n: int(c) for n, c in enumerate(hist) if c} == dict(lengths)


def test_mass_by_hand() -> None:
    # Byte tokenizer on "aaaaabbbc": counts a=5, b=3, c=1 of 9. 50% of 9 = 4.5 -> one id (a);
    # 60% = 5.4 -> a+b; 90% = 8.1 -> a+b (8) is short, so all three.
    from eval_helpers import byte_encoding

    data = ev.tokenize(byte_encoding(), ["aaaaabbbc"])
    assert [ev.ids_for_mass(data, m) for m in (0.5, 0.6, 0.9)] == [1, 2, 3]
    assert ev.vocab_utilization(data) == 3 / 256
    assert np.array_equal(ev.unigram_counts(data)[[97, 98, 99]], [5, 3, 1])
