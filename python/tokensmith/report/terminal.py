"""The comparison as rich tables for the terminal."""

from __future__ import annotations

from rich.table import Table

from tokensmith.report.schema import ComparisonReport
from tokensmith.report.summary import corpus_summary, fmt


def summary_table(report: ComparisonReport) -> Table:
    """One row per tokenizer: vocabulary size, then bytes per token and mean parity per corpus."""
    corpora = list(dict.fromkeys(c for tok in report.results.values() for c in tok))
    table = Table(title=report.title)
    table.add_column("tokenizer")
    table.add_column("vocab", justify="right")
    has_parity = {
        c: any("parity" in m for tok in report.results.values() for m in tok.get(c, {}).values())
        for c in corpora
    }
    for c in corpora:
        table.add_column(f"{c}\nbytes/token", justify="right")
        if has_parity[c]:
            table.add_column(f"{c}\nmean parity", justify="right")
    for tok, by_corpus in report.results.items():
        row = [tok, f"{report.vocab_sizes.get(tok, 0):,}"]
        for c in corpora:
            s = corpus_summary(by_corpus.get(c, {}))
            row.append(fmt(s["bytes_per_token"]))
            if has_parity[c]:
                row.append(fmt(s["mean_parity"]))
        table.add_row(*row)
    return table


def language_table(report: ComparisonReport, corpus: str) -> Table:
    """One row per language of ``corpus``: bytes per token and parity for each tokenizer."""
    languages = list(
        dict.fromkeys(lang for tok in report.results.values() for lang in tok.get(corpus, {}))
    )
    missing = set(report.missing.get(corpus, []))
    table = Table(title=f"{corpus}: per language (bytes/token · parity vs English)")
    table.add_column("language")
    for tok in report.results:
        table.add_column(tok, justify="right")
    for lang in languages:
        cells = []
        for by_corpus in report.results.values():
            m = by_corpus.get(corpus, {}).get(lang, {})
            bpt = fmt(m.get("bytes_per_token"))
            cells.append(f"{bpt} · {fmt(m.get('parity'))}" if "parity" in m else bpt)
        label = f"[red]{lang} (no data)[/red]" if lang in missing else lang
        table.add_row(label, *cells)
    return table


def tables(report: ComparisonReport) -> list[Table]:
    """The summary, then a per-language table for each corpus with more than one language."""
    out = [summary_table(report)]
    corpora = list(dict.fromkeys(c for tok in report.results.values() for c in tok))
    for corpus in corpora:
        langs = {lang for tok in report.results.values() for lang in tok.get(corpus, {})}
        if len(langs) > 1:
            out.append(language_table(report, corpus))
    return out
