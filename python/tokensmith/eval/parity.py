"""Cross-language parity on parallel text (Petrov et al. 2023).

The *premium* of language L is the number of tokens its translation needs over the number the
English source needs. 1.0 is parity; 2.0 means L pays twice as much per request and fits half
as much in a context window.

Two aggregates are reported, because they answer different questions:

- ``parity`` — the ratio of totals, ``sum_i |t(y_i)| / sum_i |t(x_i)|``. This is Petrov et
  al.'s definition (premium over the whole parallel corpus) and the one to quote.
- ``parity_mean`` — the mean of per-pair ratios, ``mean_i |t(y_i)| / |t(x_i)|``. It weighs
  short messages as much as long ones, so it runs higher on corpora of short UI strings.

>>> import tokensmith.eval as ev
>>> r = ev.parity("cl100k_base", [("Open file", "Datei öffnen")])
>>> r.english_tokens, r.translation_tokens
(2, 4)
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from tokensmith.errors import CorpusFormatError, EmptyCorpusError, InputNotFoundError
from tokensmith.eval.adapters import TokenizerSpec, load_tokenizer

Pair = tuple[str, str]


@dataclass(frozen=True)
class ParityResult:
    """Parity of one language against English.

    Attributes:
        language: The language, if known.
        n_pairs: Parallel pairs measured (0 means the language had no data: ratios are NaN).
        english_tokens: Tokens of all English sources.
        translation_tokens: Tokens of all translations.
        parity: ``translation_tokens / english_tokens`` (Petrov et al. 2023).
        parity_mean: The mean over pairs of per-pair ratios (pairs whose English side has no
            tokens are left out).
    """

    language: str | None
    n_pairs: int
    english_tokens: int
    translation_tokens: int
    parity: float
    parity_mean: float


def parity(
    tokenizer: TokenizerSpec, pairs: Sequence[Pair], *, language: str | None = None
) -> ParityResult:
    """Token premium of translations over their English sources (Petrov et al. 2023).

    ``parity = sum_i |t(translation_i)| / sum_i |t(english_i)|``, with ``parity_mean`` the mean
    of the per-pair ratios. Source: A. Petrov, E. La Malfa, P. Torr, A. Bibi, "Language Model
    Tokenizers Introduce Unfairness Between Languages", NeurIPS 2023.

    Raises :class:`~tokensmith.errors.EmptyCorpusError` when ``pairs`` is empty.
    """
    if not pairs:
        where = f" for language {language!r}" if language else ""
        raise EmptyCorpusError(f"no parallel pairs{where}")
    adapter = load_tokenizer(tokenizer)
    english = adapter.encode_batch([p[0] for p in pairs]).lengths()
    translated = adapter.encode_batch([p[1] for p in pairs]).lengths()
    total_en, total_tr = int(english.sum()), int(translated.sum())
    has_en = english > 0
    ratios = translated[has_en] / english[has_en]
    return ParityResult(
        language=language,
        n_pairs=len(pairs),
        english_tokens=total_en,
        translation_tokens=total_tr,
        parity=total_tr / total_en if total_en else math.nan,
        parity_mean=float(ratios.mean()) if ratios.size else math.nan,
    )


def parity_by_language(
    tokenizer: TokenizerSpec, corpora: Mapping[str, Sequence[Pair]]
) -> dict[str, ParityResult]:
    """:func:`parity` for every language. A language without pairs is kept, with
    ``n_pairs == 0`` and NaN ratios, so a report shows it instead of silently dropping it."""
    adapter = load_tokenizer(tokenizer)
    out: dict[str, ParityResult] = {}
    for language, pairs in corpora.items():
        if pairs:
            out[language] = parity(adapter, pairs, language=language)
        else:
            out[language] = ParityResult(language, 0, 0, 0, math.nan, math.nan)
    return out


def read_parallel_file(path: str | PathLike[str]) -> list[Pair]:
    """Reads ``English<TAB>translation`` lines (plain or ``.gz``).

    Raises :class:`~tokensmith.errors.CorpusFormatError` naming the file and line of a line
    without a tab, and :class:`~tokensmith.errors.InputNotFoundError` for a missing file.
    """
    p = Path(path)
    if not p.is_file():
        raise InputNotFoundError(f"no such parallel corpus file: {p}")
    raw = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
    pairs: list[Pair] = []
    # Split on "\n" only: messages may hold vertical tabs or U+2028, which splitlines() breaks.
    for number, line in enumerate(raw.decode("utf-8").split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line:
            continue
        english, tab, translation = line.partition("\t")
        if not tab:
            raise CorpusFormatError(f"{p}:{number}: expected 'English<TAB>translation'")
        pairs.append((english, translation))
    return pairs


def read_parallel(path: str | PathLike[str]) -> dict[str, list[Pair]]:
    """Reads a parallel corpus: one file, or a directory of ``LANG.tsv`` / ``LANG.tsv.gz``.

    The language is the file name without its extensions. Returns languages in sorted order.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.name.endswith((".tsv", ".tsv.gz")))
        if not files:
            raise EmptyCorpusError(f"{p} holds no .tsv or .tsv.gz files")
        return {f.name.split(".", 1)[0]: read_parallel_file(f) for f in files}
    return {p.name.split(".", 1)[0]: read_parallel_file(p)}


def mean_parity(results: Mapping[str, ParityResult]) -> float:
    """The mean of ``parity`` over the languages that have data."""
    values = np.array([r.parity for r in results.values() if r.n_pairs], dtype=np.float64)
    return float(values.mean()) if values.size else math.nan
