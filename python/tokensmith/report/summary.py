"""Corpus-level numbers derived from per-language results, shared by the HTML and terminal views.

>>> langs = {"de": {"n_bytes": 30.0, "n_tokens": 10.0, "parity": 1.5},
...          "ja": {"n_bytes": 30.0, "n_tokens": 20.0, "parity": 2.5}}
>>> corpus_summary(langs)
{'bytes_per_token': 2.0, 'mean_parity': 2.0, 'languages': 2}
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from tokensmith.report.schema import Metrics


def corpus_summary(languages: Mapping[str, Metrics]) -> dict[str, float]:
    """Over the languages of one corpus: bytes per token of all their text together (total
    bytes / total tokens), the mean parity of the languages that have one (NaN if none), and
    the number of languages with data."""
    n_bytes = n_tokens = 0.0
    parities = []
    with_data = 0
    for metrics in languages.values():
        tokens = metrics.get("n_tokens", math.nan)
        if math.isnan(tokens) or tokens == 0:
            continue
        with_data += 1
        n_bytes += metrics.get("n_bytes", 0.0)
        n_tokens += tokens
        p = metrics.get("parity", math.nan)
        if not math.isnan(p):
            parities.append(p)
    return {
        "bytes_per_token": n_bytes / n_tokens if n_tokens else math.nan,
        "mean_parity": sum(parities) / len(parities) if parities else math.nan,
        "languages": with_data,
    }


def fmt(value: float | None, digits: int = 2) -> str:
    """A metric for display: ``-`` for missing values.

    >>> fmt(1.23456), fmt(float("nan"))
    ('1.23', '-')
    """
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.{digits}f}"
