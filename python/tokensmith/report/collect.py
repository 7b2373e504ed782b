"""Runs the evaluations a comparison report shows: every tokenizer on every corpus and language.

- A plain corpus file is one corpus, language ``"all"``; its texts are its non-empty lines.
- A parallel corpus (a directory of ``LANG.tsv`` / ``LANG.tsv.gz``, ``English<TAB>translation``)
  is one corpus named after the directory. Each language is measured on its translations and
  gets ``parity``, ``parity_mean`` and ``n_pairs`` besides; ``en`` is measured on the English
  sources of all languages. A language whose file holds no pairs keeps a row of NaN metrics
  and is listed in ``missing``.

Tokenizers are loaded once; each text set is encoded once per tokenizer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tokensmith.errors import EmptyCorpusError, InputNotFoundError, InputReadError
from tokensmith.eval import (
    METRIC_NAMES,
    TokenizerAdapter,
    evaluate_tokenized,
    parity,
    read_parallel,
    token_length_distribution,
    tokenize,
    vocab_size_sweep,
)
from tokensmith.eval.parity import Pair
from tokensmith.report.schema import (
    ALL_LANGUAGES,
    ComparisonReport,
    Metrics,
    Segmentation,
    SweepPoint,
)
from tokensmith.report.segmentation import segment

#: Called once per finished unit of work with a short description.
Progress = Callable[[str], None]

STRAWBERRY = "How many r's are in strawberry?"


@dataclass(frozen=True)
class Corpus:
    """One corpus: a name and, per language, its texts (or parallel pairs)."""

    name: str
    texts: dict[str, list[str]]
    pairs: dict[str, list[Pair]] | None = None

    @property
    def units(self) -> int:
        """Units of progress: one per language."""
        return len(self.texts)


def read_text_corpus(path: str | Path) -> Corpus:
    """A plain UTF-8 text file as a corpus of its non-empty lines (language ``"all"``).

    Raises InputNotFoundError for a missing file and EmptyCorpusError for one with no text.
    """
    p = Path(path)
    if not p.is_file():
        raise InputNotFoundError(f"no such corpus file: {p}")
    try:
        lines = [line for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    except UnicodeDecodeError as e:
        raise InputReadError(f"corpus file {p} is not UTF-8 text: {e}") from None
    if not lines:
        raise EmptyCorpusError(f"corpus file {p} holds no text")
    return Corpus(p.name, {ALL_LANGUAGES: lines})


def parallel_corpus(name: str, pairs: Mapping[str, list[Pair]]) -> Corpus:
    """A parallel corpus; ``en`` (the English sources, without duplicates) comes first."""
    english = list(dict.fromkeys(en for lang_pairs in pairs.values() for en, _ in lang_pairs))
    texts = {"en": english} if english and "en" not in pairs else {}
    texts |= {lang: [tr for _, tr in lang_pairs] for lang, lang_pairs in pairs.items()}
    return Corpus(name, texts, dict(pairs))


def read_parallel_corpus(path: str | Path) -> Corpus:
    """A parallel corpus directory (or one ``.tsv`` file); see the module docstring."""
    p = Path(path)
    if not p.exists():
        raise InputNotFoundError(f"no such parallel corpus: {p}")
    return parallel_corpus(p.name if p.is_dir() else p.name.split(".", 1)[0], read_parallel(p))


def _empty_metrics() -> Metrics:
    return {name: math.nan for name in METRIC_NAMES} | {"n_texts": 0.0}


def _add_histogram(total: list[int], counts: np.ndarray[Any, Any]) -> list[int]:
    merged = total + [0] * max(0, len(counts) - len(total))
    for i, c in enumerate(counts.tolist()):
        merged[i] += int(c)
    return merged


def evaluate_corpus(
    adapter: TokenizerAdapter, corpus: Corpus, lengths: list[int], progress: Progress
) -> tuple[dict[str, Metrics], list[int]]:
    """Metrics per language of ``corpus``; also returns ``lengths`` plus its token lengths."""
    out: dict[str, Metrics] = {}
    for lang, texts in corpus.texts.items():
        if texts:
            data = tokenize(adapter, texts, language=lang)
            metrics = evaluate_tokenized(data)
            lengths = _add_histogram(lengths, token_length_distribution(data))
        else:
            metrics = _empty_metrics()
        if corpus.pairs is not None:
            if lang == "en" and lang not in corpus.pairs:
                metrics |= {"parity": 1.0, "parity_mean": 1.0}
            elif corpus.pairs.get(lang):
                r = parity(adapter, corpus.pairs[lang], language=lang)
                metrics |= {"parity": r.parity, "parity_mean": r.parity_mean}
            else:
                metrics |= {"parity": math.nan, "parity_mean": math.nan}
            metrics["n_pairs"] = float(len(corpus.pairs.get(lang, [])))
        out[lang] = metrics
        progress(f"{adapter.name} · {corpus.name} · {lang}")
    return out, lengths


def sweep_points(adapter: TokenizerAdapter, texts: Sequence[str]) -> list[SweepPoint] | None:
    """The vocabulary-size sweep of a byte-level BPE adapter, or None if it has no nested
    vocabulary (HF, sentencepiece, or ranks that are not byte-first)."""
    encoding = getattr(adapter, "encoding", None)
    if encoding is None or not texts:
        return None
    try:
        rows = vocab_size_sweep(encoding, texts)
    except (TypeError, ValueError):
        return None
    return [SweepPoint(r.vocab_size, r.bytes_per_token, r.embedding_params) for r in rows]


def default_samples(corpora: Sequence[Corpus], *, per_corpus: int = 4) -> list[str]:
    """The strawberry question, then a few short texts spread over each corpus's languages."""
    samples = [STRAWBERRY]
    for corpus in corpora:
        langs = [lang for lang, texts in corpus.texts.items() if texts]
        step = max(1, len(langs) // per_corpus)
        for lang in langs[::step][:per_corpus]:
            short = [t for t in corpus.texts[lang] if 10 <= len(t) <= 120] or corpus.texts[lang]
            samples.append(short[0])
    return list(dict.fromkeys(samples))


def build_report(
    tokenizers: Mapping[str, TokenizerAdapter],
    corpora: Sequence[Corpus],
    *,
    samples: Sequence[str] | None = None,
    sweep: bool = True,
    sweep_texts: int = 2000,
    progress: Progress | None = None,
    title: str = "tokensmith comparison",
) -> ComparisonReport:
    """Evaluates every tokenizer on every corpus and gathers a :class:`ComparisonReport`.

    Args:
        tokenizers: Report name -> loaded tokenizer.
        corpora: What to measure on.
        samples: Texts to show segmented (default :func:`default_samples`).
        sweep: Whether to sweep the vocabulary sizes of BPE tokenizers.
        sweep_texts: At most this many texts (taken across the corpora) go into a sweep.
        progress: Called after each language of each corpus, and after each sweep.
        title: The report's title.
    """
    if not corpora:
        raise EmptyCorpusError("nothing to compare on: give at least one corpus")
    tick = progress or (lambda _: None)
    report = ComparisonReport(results={}, title=title)
    report.missing = {
        c.name: [lang for lang, texts in c.texts.items() if not texts] for c in corpora
    }
    pooled = [t for c in corpora for texts in c.texts.values() for t in texts]
    stride = max(1, len(pooled) // sweep_texts)
    sweep_corpus = pooled[::stride][:sweep_texts]
    for name, adapter in tokenizers.items():
        report.vocab_sizes[name] = adapter.vocab_size
        note = getattr(adapter, "note", None)
        if note:
            report.notes.append(note)
        lengths: list[int] = []
        by_corpus: dict[str, dict[str, Metrics]] = {}
        for corpus in corpora:
            by_corpus[corpus.name], lengths = evaluate_corpus(adapter, corpus, lengths, tick)
        report.results[name] = by_corpus
        report.token_lengths[name] = lengths
        if sweep:
            points = sweep_points(adapter, sweep_corpus)
            if points:
                report.sweeps[name] = points
            else:
                report.notes.append(
                    f"No vocabulary-size sweep for {name}: it is not a byte-level BPE encoding "
                    "with nested ranks (a tokensmith or tiktoken encoding)."
                )
            tick(f"{name} · sweep")
    texts = list(samples) if samples is not None else default_samples(corpora)
    report.samples = [
        Segmentation(t, {name: segment(a, t) for name, a in tokenizers.items()}) for t in texts
    ]
    return report


def work_units(n_tokenizers: int, corpora: Sequence[Corpus], *, sweep: bool = True) -> int:
    """How many times :func:`build_report` calls ``progress``."""
    return n_tokenizers * (sum(c.units for c in corpora) + (1 if sweep else 0))
