"""``evaluate``: every per-corpus metric of a tokenizer, by stable name.

The names are a public contract (the CLI's JSON and the reports key on them):

=====================  ===========================================================
``bytes_per_token``    :func:`~tokensmith.eval.compression.bytes_per_token`
``chars_per_token``    :func:`~tokensmith.eval.compression.chars_per_token`
``fertility``          :func:`~tokensmith.eval.fertility.fertility`
``continued_words``    :func:`~tokensmith.eval.fertility.continued_words`
``renyi_efficiency``   :func:`~tokensmith.eval.renyi.renyi_efficiency` (alpha = 2.5)
``vocab_utilization``  :func:`~tokensmith.eval.vocabulary.vocab_utilization`
``ids_for_90pct``      :func:`~tokensmith.eval.vocabulary.ids_for_mass` (mass = 0.9)
``unk_rate``           :func:`~tokensmith.eval.unknown.unk_rate`
``byte_fallback_rate`` :func:`~tokensmith.eval.unknown.byte_fallback_rate`
``digits_per_token``   :func:`~tokensmith.eval.numbers.digits_per_token` (NaN: no digits)
``round_trip_rate``    :func:`~tokensmith.eval.roundtrip.round_trip_rate`
=====================  ===========================================================

Plus the sizes behind them: ``n_texts``, ``n_tokens``, ``n_bytes``, ``n_chars``, ``n_words``,
and ``whitespace_share`` (whitespace characters / characters).

>>> m = evaluate("o200k_base", ["hello world"])
>>> m["bytes_per_token"], m["fertility"], m["unk_rate"]
(5.5, 1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from tokensmith.errors import EmptyCorpusError
from tokensmith.eval.adapters import TokenizerSpec, load_tokenizer
from tokensmith.eval.compression import bytes_per_token, chars_per_token
from tokensmith.eval.corpus import Tokenized, tokenize
from tokensmith.eval.fertility import continued_words, fertility, n_units
from tokensmith.eval.numbers import digits_per_token
from tokensmith.eval.renyi import DEFAULT_ALPHA, renyi_efficiency
from tokensmith.eval.roundtrip import round_trip_rate
from tokensmith.eval.segments import Units, whitespace_mask
from tokensmith.eval.unknown import byte_fallback_rate, unk_rate
from tokensmith.eval.vocabulary import ids_for_mass, vocab_utilization

METRIC_NAMES: tuple[str, ...] = (
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
)


def whitespace_share(data: Tokenized) -> float:
    """Whitespace characters over all characters (the separators between texts excluded)."""
    spaces = int(whitespace_mask(data.geometry.codepoints).sum()) - (len(data.texts) - 1)
    return spaces / data.n_chars if data.n_chars else 0.0


def evaluate_tokenized(
    data: Tokenized, *, units: Units = "mixed", alpha: float = DEFAULT_ALPHA
) -> dict[str, float]:
    """:func:`evaluate` on a corpus that is already encoded."""
    metrics = {
        "bytes_per_token": bytes_per_token(data),
        "chars_per_token": chars_per_token(data),
        "fertility": fertility(data, units=units),
        "continued_words": continued_words(data, units=units),
        "renyi_efficiency": renyi_efficiency(data, alpha=alpha) if data.n_tokens else np.nan,
        "vocab_utilization": vocab_utilization(data),
        "ids_for_90pct": float(ids_for_mass(data, 0.9)),
        "unk_rate": unk_rate(data),
        "byte_fallback_rate": byte_fallback_rate(data),
        "digits_per_token": digits_per_token(data),
        "round_trip_rate": round_trip_rate(data),
        "n_texts": float(len(data.texts)),
        "n_tokens": float(data.n_tokens),
        "n_bytes": float(data.n_bytes),
        "n_chars": float(data.n_chars),
        "n_words": float(n_units(data, units)),
        "whitespace_share": whitespace_share(data),
    }
    return {k: float(v) for k, v in metrics.items()}


def evaluate(
    tokenizer: TokenizerSpec,
    texts: Iterable[str],
    *,
    language: str | None = None,
    units: Units = "mixed",
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, float]:
    """Encodes ``texts`` once and returns every metric of :data:`METRIC_NAMES` (and sizes).

    Args:
        tokenizer: Anything :func:`~tokensmith.eval.adapters.load_tokenizer` accepts.
        texts: The corpus; typically one language.
        language: The corpus's language, used in error messages.
        units: How fertility counts words (see :func:`~tokensmith.eval.segments.unit_spans`).
        alpha: The Rényi order.

    Raises:
        EmptyCorpusError: No text (the message names ``language``).
    """
    return evaluate_tokenized(
        tokenize(tokenizer, texts, language=language), units=units, alpha=alpha
    )


def evaluate_by_language(
    tokenizer: TokenizerSpec,
    corpora: Mapping[str, Iterable[str]],
    *,
    units: Units = "mixed",
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, dict[str, float]]:
    """:func:`evaluate` for each language of ``corpora`` (language -> texts).

    A language without text is kept in the result, with ``n_texts`` 0 and every metric NaN,
    so a report shows the gap instead of silently dropping the language.
    """
    adapter = load_tokenizer(tokenizer)
    out: dict[str, dict[str, float]] = {}
    for language, texts in corpora.items():
        try:
            out[language] = evaluate(adapter, texts, language=language, units=units, alpha=alpha)
        except EmptyCorpusError:
            out[language] = {name: math.nan for name in METRIC_NAMES} | {"n_texts": 0.0}
    return out
