"""The report's figures, drawn with matplotlib's Agg backend and returned as base64 PNG.

Figures are built with :class:`matplotlib.figure.Figure` and an explicit Agg canvas, never
through ``pyplot``, so drawing a report changes no global matplotlib state and needs no display.
Each function returns ``None`` when it has nothing to draw.
"""

from __future__ import annotations

import base64
import io
import math
from typing import TYPE_CHECKING

from tokensmith.report.schema import Results, SweepPoint

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 100


def _new_figure(width: float, height: float) -> Figure:
    # Imported here: matplotlib takes half a second to import, and every CLI command would
    # pay for it otherwise.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _png_base64(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value) and not math.isinf(value)


def language_rows(results: Results, metric: str) -> list[tuple[str, dict[str, float]]]:
    """``(label, {tokenizer: value})`` for every (corpus, language) with ``metric``.

    The label is the language, or ``"language (corpus)"`` when the language occurs in more
    than one corpus.
    """
    keys: dict[tuple[str, str], dict[str, float]] = {}
    for tok, corpora in results.items():
        for corpus, langs in corpora.items():
            for lang, metrics in langs.items():
                value = metrics.get(metric)
                if value is not None and _finite(value):
                    keys.setdefault((corpus, lang), {})[tok] = value
    counts: dict[str, int] = {}
    for _, lang in keys:
        counts[lang] = counts.get(lang, 0) + 1
    return [
        (lang if counts[lang] == 1 else f"{lang} ({corpus})", values)
        for (corpus, lang), values in keys.items()
    ]


#: Above this many languages, bars run horizontally so every label stays readable.
HORIZONTAL_FROM = 25


def _grouped_bars(
    rows: list[tuple[str, dict[str, float]]], tokenizers: list[str], *, ylabel: str, title: str
) -> Figure:
    n_bars = len(rows) * max(1, len(tokenizers))
    horizontal = len(rows) > HORIZONTAL_FROM
    length = max(6.0, 0.12 * n_bars + 2) if horizontal else max(6.0, 0.28 * n_bars + 2)
    fig = _new_figure(*((9.0, min(length, 60.0)) if horizontal else (min(length, 16.0), 4.2)))
    ax = fig.add_subplot()
    bar = 0.8 / max(1, len(tokenizers))
    labels = [label for label, _ in rows]
    for j, tok in enumerate(tokenizers):
        xs = [i + (j - (len(tokenizers) - 1) / 2) * bar for i in range(len(rows))]
        ys = [values.get(tok, math.nan) for _, values in rows]
        if horizontal:
            ax.barh(xs, ys, height=bar, label=tok)
        else:
            ax.bar(xs, ys, width=bar, label=tok)
    if horizontal:
        ax.set_yticks(range(len(rows)), labels)
        ax.set_ylim(len(rows) - 0.4, -0.6)  # first row at the top
        ax.set_xlabel(ylabel)
        ax.grid(axis="x", alpha=0.3)
    else:
        ax.set_xticks(range(len(rows)), labels, rotation=60, ha="right")
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def bytes_per_token_plot(results: Results) -> str | None:
    """Bars of bytes per token for each language (higher compresses better)."""
    rows = language_rows(results, "bytes_per_token")
    if not rows:
        return None
    rows.sort(key=lambda row: row[0])
    fig = _grouped_bars(
        rows,
        list(results),
        ylabel="UTF-8 bytes per token",
        title="Compression per language (higher is better)",
    )
    return _png_base64(fig)


def parity_plot(results: Results) -> str | None:
    """Parity against English per language, sorted by the mean over tokenizers (1.0 is
    parity; 2.0 means twice the tokens of the English source)."""
    rows = language_rows(results, "parity")
    if not rows:
        return None
    rows.sort(key=lambda row: sum(row[1].values()) / len(row[1]))
    fig = _grouped_bars(
        rows,
        list(results),
        ylabel="tokens(translation) / tokens(English)",
        title="Parity against English, sorted (Petrov et al. 2023; lower is fairer)",
    )
    parity_line = fig.axes[0].axvline if len(rows) > HORIZONTAL_FROM else fig.axes[0].axhline
    parity_line(1.0, color="black", linewidth=0.8, linestyle="--")
    return _png_base64(fig)


def sweep_plot(sweeps: dict[str, list[SweepPoint]]) -> str | None:
    """Vocabulary size vs bytes per token, and bytes per token vs embedding parameters."""
    drawn = {tok: pts for tok, pts in sweeps.items() if pts}
    if not drawn:
        return None
    fig = _new_figure(11, 4.2)
    left, right = fig.subplots(1, 2)
    for tok, points in drawn.items():
        sizes = [p.vocab_size for p in points]
        bpt = [p.bytes_per_token for p in points]
        params = [p.embedding_params for p in points]
        left.plot(sizes, bpt, marker="o", label=tok)
        right.plot(params, bpt, marker="o", label=tok)
    left.set_xscale("log", base=2)
    left.set_xlabel("vocabulary size (nested BPE prefixes)")
    left.set_ylabel("bytes per token")
    left.set_title("Vocabulary size vs compression")
    right.set_xscale("log")
    right.set_xlabel("embedding + LM head parameters (d_model = 4096, untied)")
    right.set_ylabel("bytes per token")
    right.set_title("Compression vs parameter cost")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    return _png_base64(fig)


def token_length_plot(token_lengths: dict[str, list[int]], *, longest: int = 16) -> str | None:
    """The share of tokens of each length in bytes (lengths above ``longest`` pooled)."""
    drawn = {tok: counts for tok, counts in token_lengths.items() if sum(counts)}
    if not drawn:
        return None
    fig = _new_figure(8, 4.2)
    ax = fig.add_subplot()
    xs = list(range(1, longest + 1))
    for tok, counts in drawn.items():
        total = sum(counts)
        shares = [counts[n] / total if n < len(counts) else 0.0 for n in xs]
        shares[-1] += sum(counts[longest + 1 :]) / total
        ax.step(xs, shares, where="mid", label=tok)
    ax.set_xticks(xs, [*map(str, xs[:-1]), f"{longest}+"])
    ax.set_xlabel("token length (bytes)")
    ax.set_ylabel("share of tokens")
    ax.set_title("Token-length distribution")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return _png_base64(fig)
