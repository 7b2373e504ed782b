"""The self-contained HTML report: tables, plots embedded as base64 PNG, sample segmentations.

The page loads nothing from the network (no scripts, fonts or external images), so it can be
mailed or archived as one file.
"""

from __future__ import annotations

import html
from os import PathLike

from tokensmith._atomic import write_text_atomic
from tokensmith.report.plots import (
    bytes_per_token_plot,
    parity_plot,
    sweep_plot,
    token_length_plot,
)
from tokensmith.report.schema import ComparisonReport
from tokensmith.report.segmentation import segmentation_html
from tokensmith.report.summary import corpus_summary, fmt

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
img { max-width: 100%; display: block; margin: 1em 0; }
.tok { border-right: 1px solid #555; padding: 0 1px; font-family: monospace; white-space: pre; }
.seg { margin: 0.3em 0 0.8em 0; line-height: 1.9; }
.missing { color: #a00; }
"""


def _esc(text: object) -> str:
    return html.escape(str(text))


def _summary_table(report: ComparisonReport) -> str:
    corpora = list(dict.fromkeys(c for tok in report.results.values() for c in tok))
    head = "<tr><th>tokenizer</th><th>vocab size</th>" + "".join(
        f"<th>{_esc(c)}: bytes/token</th><th>{_esc(c)}: mean parity</th>" for c in corpora
    )
    rows = []
    for tok, by_corpus in report.results.items():
        cells = [f"<td>{_esc(tok)}</td><td>{report.vocab_sizes.get(tok, '-')}</td>"]
        for corpus in corpora:
            s = corpus_summary(by_corpus.get(corpus, {}))
            cells.append(f"<td>{fmt(s['bytes_per_token'])}</td><td>{fmt(s['mean_parity'])}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>{head}</tr>{''.join(rows)}</table>"


def _language_table(report: ComparisonReport, corpus: str) -> str:
    languages = list(
        dict.fromkeys(lang for tok in report.results.values() for lang in tok.get(corpus, {}))
    )
    head = "<tr><th>language</th>" + "".join(
        f"<th>{_esc(t)}: bytes/token</th><th>{_esc(t)}: fertility</th><th>{_esc(t)}: parity</th>"
        for t in report.results
    )
    rows = []
    for lang in languages:
        cells = [f"<td>{_esc(lang)}</td>"]
        for by_corpus in report.results.values():
            m = by_corpus.get(corpus, {}).get(lang, {})
            cells += [
                f"<td>{fmt(m.get('bytes_per_token'))}</td>",
                f"<td>{fmt(m.get('fertility'))}</td>",
                f"<td>{fmt(m.get('parity'))}</td>",
            ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>{head}</tr>{''.join(rows)}</table>"


def _figure(png: str | None, caption: str) -> str:
    if png is None:
        return f"<p><em>{_esc(caption)}: no data.</em></p>"
    return f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{png}"></figure>'


def render_html(report: ComparisonReport) -> str:
    """The report as one HTML document."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_esc(report.title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_esc(report.title)}</h1>",
    ]
    if report.notes:
        parts.append("<ul>" + "".join(f"<li>{_esc(n)}</li>" for n in report.notes) + "</ul>")
    parts += ["<h2>Summary</h2>", _summary_table(report)]
    for corpus, languages in report.missing.items():
        if languages:
            parts.append(
                f'<p class="missing">{_esc(corpus)}: no data for {_esc(", ".join(languages))} '
                "(shown with empty metrics).</p>"
            )
    parts.append("<h2>Compression</h2>")
    parts.append(_figure(bytes_per_token_plot(report.results), "bytes per token per language"))
    parity_png = parity_plot(report.results)
    if parity_png is not None:
        parts += ["<h2>Parity against English</h2>", _figure(parity_png, "parity per language")]
    parts += ["<h2>Vocabulary-size sweep</h2>", _figure(sweep_plot(report.sweeps), "sweep")]
    parts += [
        "<h2>Token lengths</h2>",
        _figure(token_length_plot(report.token_lengths), "token-length histogram"),
    ]
    if report.samples:
        parts.append("<h2>Sample segmentations</h2>")
        parts.append("<p>Each colored box is one token; hover for its id.</p>")
        for sample in report.samples:
            parts.append(f"<h3>{_esc(sample.text[:80])}</h3>")
            for tok, pieces in sample.pieces.items():
                n = sum(len(p.ids) for p in pieces)
                parts.append(
                    f"<div>{_esc(tok)} ({n} tokens)</div>"
                    f'<div class="seg">{segmentation_html(pieces)}</div>'
                )
    corpora = list(dict.fromkeys(c for tok in report.results.values() for c in tok))
    for corpus in corpora:
        parts += [f"<h2>Per language: {_esc(corpus)}</h2>", _language_table(report, corpus)]
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(report: ComparisonReport, path: str | PathLike[str]) -> None:
    """Writes :func:`render_html` to ``path`` atomically."""
    write_text_atomic(path, render_html(report))
