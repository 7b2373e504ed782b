"""How a corpus uses the vocabulary: which ids appear, how concentrated, how long in bytes.

>>> from tokensmith.eval.corpus import tokenize
>>> data = tokenize("o200k_base", ["the cat and the dog"])
>>> ids_for_mass(data, 0.5), token_length_distribution(data).tolist()
(3, [0, 0, 0, 1, 4])
"""

from __future__ import annotations

import numpy as np

from tokensmith.errors import InvalidArgumentError
from tokensmith.eval.adapters import IntArray
from tokensmith.eval.corpus import Tokenized


def unigram_counts(data: Tokenized) -> IntArray:
    """How often each id occurs: an array of length ``vocab_size``."""
    return np.bincount(data.ids, minlength=data.adapter.vocab_size).astype(np.int64)


def vocab_utilization(data: Tokenized) -> float:
    """The share of the vocabulary the corpus uses: ``#{v : count(v) > 0} / |V|``.

    A descriptive statistic (no single paper owns it). Low values on a language mean most
    embedding rows are never trained on it.
    """
    return float(np.count_nonzero(unigram_counts(data)) / data.adapter.vocab_size)


def ids_for_mass(data: Tokenized, mass: float = 0.9) -> int:
    """The fewest ids whose occurrences make up ``mass`` of all tokens.

    Sort counts descending, ``c_(1) >= c_(2) >= ...``; return the least ``k`` with
    ``sum_{j<=k} c_(j) >= mass * N``. A Zipf-style concentration measure: small ``k`` means a
    few tokens do most of the work.
    """
    if not 0 < mass <= 1:
        raise InvalidArgumentError(f"mass must be in (0, 1], not {mass}")
    counts = np.sort(unigram_counts(data))[::-1]
    if counts.size == 0 or counts[0] == 0:
        return 0
    cumulative = np.cumsum(counts)
    return int(np.searchsorted(cumulative, mass * cumulative[-1], side="left")) + 1


def token_length_distribution(data: Tokenized) -> IntArray:
    """A histogram of token lengths in bytes: entry ``L`` counts the tokens of ``L`` bytes.

    Counts token occurrences in the corpus (not vocabulary entries). Byte-fallback and unknown
    tokens count at the length the adapter gives them (1 and 0).
    """
    return np.bincount(data.token_byte_lengths[data.ids]).astype(np.int64)
