"""``tokensmith compare``: evaluate tokenizers on corpora and write a JSON + HTML report."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tokensmith.cli.errors import err_console, fail, user_errors
from tokensmith.eval import TokenizerAdapter, load_tokenizer
from tokensmith.io.output_set import OutputSet
from tokensmith.report import (
    ComparisonReport,
    Corpus,
    build_report,
    read_parallel_corpus,
    read_text_corpus,
    report_json,
    tables,
    work_units,
    write_html,
    write_json,
)


def report_names(specs: Sequence[str]) -> list[str]:
    """Short, unique report names: a bundled name as is, a path by its file name.

    >>> report_names(["o200k_base", "a/tokenizer.json", "b/tokenizer.json"])
    ['o200k_base', 'tokenizer.json', 'tokenizer.json#2']
    """
    names: list[str] = []
    for spec in specs:
        base = os.path.basename(spec.rstrip("/\\")) or spec
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}#{n}"
        names.append(name)
    return names


def load_all(specs: Sequence[str]) -> dict[str, TokenizerAdapter]:
    """Loads each tokenizer spec, keyed by :func:`report_names`."""
    return {
        name: load_tokenizer(spec, name=name)
        for name, spec in zip(report_names(specs), specs, strict=True)
    }


def run_with_progress(
    tokenizers: dict[str, TokenizerAdapter],
    corpora: list[Corpus],
    *,
    sweep: bool,
    samples: list[str] | None,
    title: str,
) -> ComparisonReport:
    """:func:`~tokensmith.report.build_report` with a rich progress bar on stderr."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("evaluating", total=work_units(len(tokenizers), corpora, sweep=sweep))

        def tick(what: str) -> None:
            bar.update(task, advance=1, description=what)

        return build_report(
            tokenizers, corpora, sweep=sweep, samples=samples, progress=tick, title=title
        )


def write_outputs(
    report: ComparisonReport, out: Path, json_file: str | None, console: Console
) -> None:
    """Writes ``out/report.html`` and the JSON (``json_file``, else ``out/report.json``);
    ``json_file == "-"`` prints the JSON to stdout instead of the tables."""
    html_path = out / "report.html"
    write_html(report, html_path)
    if json_file == "-":
        print(report_json(report))
        err_console.print(f"HTML report: {html_path}", highlight=False)
        return
    json_path = Path(json_file) if json_file else out / "report.json"
    write_json(report, json_path)
    for table in tables(report):
        console.print(table)
    for corpus, languages in report.missing.items():
        if languages:
            console.print(
                f"[yellow]warning:[/yellow] {corpus}: no data for {', '.join(languages)} "
                "(kept in the report with empty metrics)",
                highlight=False,
            )
    console.print(f"HTML report: {html_path}\nJSON: {json_path}", highlight=False)


def compare(
    tokenizers: Annotated[
        list[str],
        typer.Argument(
            help="Bundled names (o200k_base), .tiktoken files, tokenizer.json or .model paths.",
            show_default=False,
        ),
    ],
    corpus: Annotated[
        list[Path] | None,
        typer.Option("--corpus", "-c", help="A UTF-8 text file (one text per line); repeatable."),
    ] = None,
    parallel: Annotated[
        Path | None,
        typer.Option(
            "--parallel", "-p", help="A directory of LANG.tsv(.gz) files: English<TAB>translation."
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for report.html and report.json.")
    ] = Path("tokensmith-report"),
    json_file: Annotated[
        str | None,
        typer.Option(
            "--json",
            help="Write the JSON report to this file ('-': print it to stdout, no tables).",
        ),
    ] = None,
    sweep: Annotated[
        bool, typer.Option(help="Sweep vocabulary sizes of byte-level BPE tokenizers.")
    ] = True,
    sample: Annotated[
        list[str] | None,
        typer.Option("--sample", help="A text to show segmented in the report; repeatable."),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace report files that already exist.")
    ] = False,
) -> None:
    """Compare tokenizers on corpora: a table here, JSON + HTML report with plots in --out.

    Example: tokensmith compare o200k_base cl100k_base --corpus notes.txt --parallel parallel/

    Measures bytes per token, fertility, parity against English (with --parallel), Rényi
    efficiency and more, per corpus file and per language (see docs/eval.md).
    """
    console = Console()
    with user_errors():
        # Checked before the (long) evaluation: existing reports and a folder we cannot write.
        OutputSet(out, ["report.html"], overwrite=overwrite).check()
        if json_file != "-":
            json_path = Path(json_file) if json_file else out / "report.json"
            OutputSet(json_path.parent, [json_path.name], overwrite=overwrite).check()
        corpora = [read_text_corpus(p) for p in corpus or []]
        if parallel is not None:
            corpora.append(read_parallel_corpus(parallel))
        if not corpora:
            raise fail("give at least one --corpus FILE or --parallel DIR")
        loaded = load_all(tokenizers)
        report = run_with_progress(loaded, corpora, sweep=sweep, samples=sample, title="compare")
        write_outputs(report, out, json_file, console)
