"""Rényi entropy and Rényi efficiency of a tokenizer's unigram distribution.

Zouhar et al. 2023, "Tokenization and the Noiseless Channel" (ACL), define the efficiency of a
tokenizer as the Rényi entropy of the token (unigram) distribution it induces on a corpus,
normalized by the largest entropy a vocabulary of that size can have:

    H_a(p) = 1 / (1 - a) * log sum_v p(v)^a            (a != 1; a -> 1 gives Shannon)
    E_a = H_a(p) / log |V|

They find a = 2.5 correlates best with downstream BLEU: it penalizes both very frequent and
very rare tokens. ``|V|`` is the tokenizer's vocabulary size here; the authors' scorer
(tokenization-scorer) divides by the number of *observed* types unless given the vocabulary
size — pass ``vocab_size`` for that variant.

>>> round(renyi_efficiency(np.array([1, 1, 1, 1])), 6)  # uniform over all of V
1.0
>>> round(renyi_efficiency(np.array([1, 1, 0, 0])), 6)  # uniform over half of V=4
0.5
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from tokensmith.errors import InvalidArgumentError
from tokensmith.eval.corpus import Tokenized
from tokensmith.eval.vocabulary import unigram_counts

DEFAULT_ALPHA = 2.5


def renyi_entropy(probs: npt.ArrayLike, *, alpha: float = DEFAULT_ALPHA) -> float:
    """``H_a(p) = log2(sum p^a) / (1 - a)`` in bits; Shannon at ``a = 1``, min-entropy at inf.

    Zero probabilities are ignored; ``probs`` must sum to 1.

    >>> renyi_entropy([0.5, 0.5], alpha=2.5)
    1.0
    """
    p = np.asarray(probs, dtype=np.float64)
    p = p[p > 0]
    if p.size == 0:
        raise InvalidArgumentError("renyi_entropy of an empty distribution")
    if alpha < 0:
        raise InvalidArgumentError(f"alpha must be >= 0, not {alpha}")
    if alpha == 1:
        return float(-(p * np.log2(p)).sum())
    if math.isinf(alpha):
        return float(-np.log2(p.max()))
    return float(np.log2(np.power(p, alpha).sum()) / (1 - alpha))


def renyi_efficiency(
    data: Tokenized | npt.ArrayLike,
    *,
    alpha: float = DEFAULT_ALPHA,
    vocab_size: int | None = None,
) -> float:
    """Rényi efficiency ``E_a = H_a(p) / log2 |V|`` (Zouhar et al. 2023).

    Args:
        data: An encoded corpus, or token counts (one entry per id, zeros allowed).
        alpha: The order ``a``; 2.5 is the paper's recommended value.
        vocab_size: ``|V|``. Defaults to the tokenizer's vocabulary size (or ``len(counts)``).

    Returns 1.0 for a uniform distribution over the whole vocabulary, less otherwise.
    """
    if isinstance(data, Tokenized):
        counts = unigram_counts(data)
        size = vocab_size or data.adapter.vocab_size
    else:
        counts = np.asarray(data, dtype=np.float64)
        size = vocab_size or counts.size
    total = float(np.sum(counts))
    if total <= 0:
        raise InvalidArgumentError("renyi_efficiency needs at least one token")
    if size < 2:
        raise InvalidArgumentError(f"vocab_size must be at least 2, not {size}")
    return renyi_entropy(np.asarray(counts, dtype=np.float64) / total, alpha=alpha) / math.log2(
        size
    )
