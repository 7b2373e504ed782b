"""The comparison report: one data model, written as JSON and as HTML.

The JSON layout (``schema_version`` 1) is documented in ``docs/eval.md``. Its core is
``results[tokenizer][corpus][language][metric]``: for each tokenizer, for each corpus (by file
name) and for each language, the metric values keyed by name (``bytes_per_token``,
``fertility``, ``parity``, ...). NaN (a metric with no data) is written as ``null``.

>>> r = ComparisonReport(results={"o200k_base": {"a.txt": {"all": {"bytes_per_token": 4.0}}}})
>>> to_json_dict(r)["results"]["o200k_base"]["a.txt"]["all"]
{'bytes_per_token': 4.0}
>>> validate_report_json(to_json_dict(r))
[]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1

#: The language key of a corpus file that is not split by language.
ALL_LANGUAGES = "all"

Metrics = dict[str, float]
#: tokenizer -> corpus file name -> language -> metric name -> value.
Results = dict[str, dict[str, dict[str, Metrics]]]


@dataclass(frozen=True)
class SweepPoint:
    """One prefix of a BPE vocabulary: its size, compression and embedding cost."""

    vocab_size: int
    bytes_per_token: float
    embedding_params: int


@dataclass(frozen=True)
class Piece:
    """Consecutive tokens shown as one piece of text.

    Usually one token. Tokens that split a UTF-8 character are grouped until the bytes decode,
    so every piece is valid text.
    """

    ids: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class Segmentation:
    """A sample text and how each tokenizer cuts it (tokenizer name -> pieces)."""

    text: str
    pieces: dict[str, list[Piece]]


@dataclass
class ComparisonReport:
    """Everything a comparison report shows.

    Attributes:
        results: ``tokenizer -> corpus -> language -> metric -> value``.
        vocab_sizes: Each tokenizer's vocabulary size.
        sweeps: Vocabulary-size sweeps of the BPE tokenizers that allow one.
        token_lengths: Per tokenizer, entry ``L`` counts the tokens of ``L`` bytes (all corpora).
        samples: Sample texts segmented by each tokenizer.
        missing: Per corpus, the languages that had no data (their metrics are NaN).
        notes: Free-text remarks shown at the top of the report.
        title: The report's title.
    """

    results: Results
    vocab_sizes: dict[str, int] = field(default_factory=dict)
    sweeps: dict[str, list[SweepPoint]] = field(default_factory=dict)
    token_lengths: dict[str, list[int]] = field(default_factory=dict)
    samples: list[Segmentation] = field(default_factory=list)
    missing: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    title: str = "tokensmith comparison"

    @property
    def tokenizers(self) -> list[str]:
        """Tokenizer names, in the order given."""
        return list(self.results)


def _number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def to_json_dict(report: ComparisonReport) -> dict[str, Any]:
    """The report as plain JSON data (NaN and infinity become ``None``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "title": report.title,
        "tokenizers": {
            name: {"vocab_size": report.vocab_sizes.get(name)} for name in report.results
        },
        "results": {
            tok: {
                corpus: {
                    lang: {k: _number(float(v)) for k, v in metrics.items()}
                    for lang, metrics in langs.items()
                }
                for corpus, langs in corpora.items()
            }
            for tok, corpora in report.results.items()
        },
        "missing": report.missing,
        "sweeps": {
            tok: [
                {
                    "vocab_size": p.vocab_size,
                    "bytes_per_token": _number(p.bytes_per_token),
                    "embedding_params": p.embedding_params,
                }
                for p in points
            ]
            for tok, points in report.sweeps.items()
        },
        "token_lengths": report.token_lengths,
        "samples": [
            {
                "text": s.text,
                "tokens": {
                    tok: [{"ids": list(p.ids), "text": p.text} for p in pieces]
                    for tok, pieces in s.pieces.items()
                },
            }
            for s in report.samples
        ],
        "notes": report.notes,
    }


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def validate_report_json(doc: Mapping[str, Any]) -> list[str]:
    """The ways ``doc`` departs from the schema; an empty list means it follows it.

    Checks the required keys and types, not values.
    """
    problems: list[str] = []
    if doc.get("schema_version") != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}")
    for key, kind in (
        ("title", str),
        ("tokenizers", dict),
        ("results", dict),
        ("missing", dict),
        ("sweeps", dict),
        ("token_lengths", dict),
        ("samples", list),
        ("notes", list),
    ):
        if not isinstance(doc.get(key), kind):
            problems.append(f"{key!r} must be a {kind.__name__}")
    if problems:
        return problems
    for tok, corpora in doc["results"].items():
        if tok not in doc["tokenizers"]:
            problems.append(f"results names tokenizer {tok!r} that 'tokenizers' lacks")
        if not isinstance(corpora, dict):
            problems.append(f"results[{tok!r}] must map corpus names to languages")
            continue
        for corpus, langs in corpora.items():
            if not isinstance(langs, dict):
                problems.append(f"results[{tok!r}][{corpus!r}] must map languages to metrics")
                continue
            for lang, metrics in langs.items():
                where = f"results[{tok!r}][{corpus!r}][{lang!r}]"
                if not isinstance(metrics, dict):
                    problems.append(f"{where} must map metric names to numbers")
                    continue
                bad = [k for k, v in metrics.items() if not _is_number(v)]
                if bad:
                    problems.append(f"{where} has non-numeric metrics {bad}")
    for tok, points in doc["sweeps"].items():
        for p in points:
            if set(p) != {"vocab_size", "bytes_per_token", "embedding_params"}:
                problems.append(f"sweeps[{tok!r}] has a malformed point {p}")
    for tok, counts in doc["token_lengths"].items():
        if not all(isinstance(c, int) for c in counts):
            problems.append(f"token_lengths[{tok!r}] must be a list of integers")
    for i, sample in enumerate(doc["samples"]):
        if not isinstance(sample.get("text"), str) or not isinstance(sample.get("tokens"), dict):
            problems.append(f"samples[{i}] needs 'text' and 'tokens'")
    return problems
