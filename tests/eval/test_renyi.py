"""Rényi efficiency (Zouhar et al. 2023) on distributions whose value is known in closed form."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import tokensmith.eval as ev
from eval_helpers import read_lines
from tokensmith.reference import tiktoken_encoding

# p = (1/2, 1/4, 1/4) over a vocabulary of 4 (one id unused), as counts.
COUNTS = np.array([2, 1, 1, 0])


def test_uniform_over_the_whole_vocabulary_is_fully_efficient() -> None:
    for alpha in (0.5, 1.0, 2.5, 10.0):
        assert ev.renyi_efficiency(np.ones(64), alpha=alpha) == pytest.approx(1.0)


def test_toy_distribution_at_alpha_2_5() -> None:
    # H_2.5 = log2(sum p^2.5) / (1 - 2.5) with sum p^2.5 = 2^-2.5 + 2 * 4^-2.5 = 2^-2.5 + 2^-4;
    # efficiency divides by log2 |V| = log2 4 = 2.
    h = math.log2(2**-2.5 + 2**-4) / (1 - 2.5)
    assert h == pytest.approx(1.375499, abs=1e-6)
    assert ev.renyi_efficiency(COUNTS) == pytest.approx(h / 2)


def test_toy_distribution_at_other_orders() -> None:
    # alpha=2: collision entropy -log2(1/4 + 1/16 + 1/16) = log2(8/3).
    assert ev.renyi_efficiency(COUNTS, alpha=2) == pytest.approx(math.log2(8 / 3) / 2)
    # alpha=1: Shannon entropy 1/2*1 + 2 * 1/4*2 = 1.5 bits.
    assert ev.renyi_efficiency(COUNTS, alpha=1) == pytest.approx(1.5 / 2)
    # alpha=0: log2 of the support size, 3.
    assert ev.renyi_efficiency(COUNTS, alpha=0) == pytest.approx(math.log2(3) / 2)
    # alpha=inf: min-entropy -log2 max p = 1.
    assert ev.renyi_efficiency(COUNTS, alpha=math.inf) == pytest.approx(0.5)
    # The scorer of Zouhar et al. normalizes by the observed types (3) unless told |V|.
    h = math.log2(2**-2.5 + 2**-4) / (1 - 2.5)
    assert ev.renyi_efficiency(COUNTS, vocab_size=3) == pytest.approx(h / math.log2(3))


def test_renyi_entropy_decreases_with_alpha() -> None:
    p = np.array([0.7, 0.2, 0.1])
    values = [ev.renyi_entropy(p, alpha=a) for a in (0, 0.5, 1, 2.5, math.inf)]
    assert values == sorted(values, reverse=True)


def test_corpus_efficiency_matches_counts_from_tiktoken() -> None:
    lines = read_lines("multilingual.txt")[:500]
    ref = tiktoken_encoding("o200k_base")
    counts = Counter(t for line in lines for t in ref.encode_ordinary(line))
    n = sum(counts.values())
    probs = [c / n for c in counts.values()]
    # Independent: the formula in plain Python over the observed tokens.
    expected = math.log2(sum(p**2.5 for p in probs)) / (1 - 2.5) / math.log2(ref.n_vocab)
    assert ev.renyi_efficiency(ev.tokenize("o200k_base", lines)) == pytest.approx(expected)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        ev.renyi_efficiency(np.zeros(5))
    with pytest.raises(ValueError):
        ev.renyi_entropy([1.0], alpha=-1)
