"""``tokensmith train bpe FILES...``: train a byte-level BPE from files and save it.

>>> from typer.testing import CliRunner
>>> result = CliRunner().invoke(train_app, ["bpe", "--help"])
>>> "--vocab-size" in result.output
True

Registered in :mod:`tokensmith.cli` as the ``train`` group.
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

import tokensmith
from tokensmith.bounded_counts import scale_options
from tokensmith.corpus import Corpus
from tokensmith.rss import format_bytes, peak_rss_bytes
from tokensmith.train import InvalidUtf8Warning

train_app = typer.Typer(
    help="Train tokenizers from text files.",
    no_args_is_help=True,
    add_completion=False,
)
_out = Console()
_err = Console(stderr=True)


@train_app.callback()
def train() -> None:
    """Train tokenizers from text files (a group, so that more kinds can join ``bpe``)."""


PATTERNS = {
    "o200k": tokensmith.O200K_PATTERN,
    "cl100k": tokensmith.CL100K_PATTERN,
    "r50k": tokensmith.R50K_PATTERN,
    "gpt2": tokensmith.R50K_PATTERN,
}


def resolve_pattern(pattern: str) -> str:
    """A bundled pattern's name (``o200k``, ``cl100k``, ``r50k``/``gpt2``) or a regex as is.

    >>> resolve_pattern("gpt2") == tokensmith.R50K_PATTERN, resolve_pattern(r"\\w+|\\s+")
    (True, '\\\\w+|\\\\s+')
    """
    return PATTERNS.get(pattern.lower(), pattern)


def save_outputs(enc: tokensmith.Encoding, out: Path) -> list[Path]:
    """Saves ``enc``: one format for a ``.json``/``.tiktoken`` path, every format for a directory.

    A directory gets ``tokenizer.json``, ``NAME.tiktoken`` (+ sidecar), and ``vocab.json`` +
    ``merges.txt`` (+ ``tokensmith.json``); ``tokensmith.load(DIR)`` reads the last pair.
    """
    if out.suffix in (".json", ".tiktoken"):
        out.parent.mkdir(parents=True, exist_ok=True)
        enc.save(out)
        return [out] + ([Path(f"{out}.json")] if out.suffix == ".tiktoken" else [])
    out.mkdir(parents=True, exist_ok=True)
    tiktoken_path = out / f"{enc.name}.tiktoken"
    enc.save(out / "tokenizer.json")
    enc.save(tiktoken_path)
    enc.save(out)
    return [
        out / "tokenizer.json",
        tiktoken_path,
        Path(f"{tiktoken_path}.json"),
        out / "vocab.json",
        out / "merges.txt",
        out / "tokensmith.json",
    ]


class _ReadThenMerge:
    """A progress display: a bar over the input bytes, then a spinner while merges are learned."""

    def __init__(self, progress: Progress, total: int, n_files: int, vocab_size: int) -> None:
        self.progress = progress
        self.total = total
        self.n_files = n_files
        self.vocab_size = vocab_size
        self.reading: TaskID = progress.add_task(f"counting words in {n_files} files", total=total)
        self.merging: TaskID | None = None

    def __call__(self, done: int) -> None:
        """Called by the corpus as it reads; the last call comes after the last file."""
        self.progress.update(self.reading, completed=done)
        if done >= self.total and self.merging is None:
            self.progress.update(self.reading, description=f"counted {self.n_files} files")
            self.merging = self.progress.add_task(
                f"learning merges up to {self.vocab_size:,} tokens", total=None
            )


@train_app.command("bpe")
def bpe(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILES...",
            help="Text or JSONL files, plain, .gz or .zst; globs such as 'data/*.gz'.",
        ),
    ],
    vocab_size: Annotated[
        int, typer.Option("--vocab-size", "-v", min=256, help="Tokens in all, specials included.")
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="NAME.json (tokenizer.json), NAME.tiktoken, or a directory for every format.",
        ),
    ],
    pattern: Annotated[
        str,
        typer.Option(help="Pre-tokenizer: o200k, cl100k, r50k/gpt2, or a regex."),
    ] = "o200k",
    min_frequency: Annotated[
        int, typer.Option(min=0, help="Pairs seen fewer times are never merged.")
    ] = 2,
    special_token: Annotated[
        list[str] | None,
        typer.Option("--special-token", "-s", help="A special token (repeat for more)."),
    ] = None,
    max_token_length: Annotated[
        int | None, typer.Option(min=1, help="The longest learned token, in bytes.")
    ] = None,
    field: Annotated[str, typer.Option(help="The text field of JSONL records.")] = "text",
    strict_utf8: Annotated[
        bool, typer.Option("--strict-utf8", help="Stop at invalid UTF-8 instead of replacing.")
    ] = False,
    name: Annotated[
        str | None, typer.Option(help="The tokenizer's name (default: from --out).")
    ] = None,
    engine: Annotated[str, typer.Option(help="Count words: local, or ray (Ray tasks).")] = "local",
    address: Annotated[
        str | None, typer.Option(help="The Ray cluster to join; default: start one.")
    ] = None,
    max_memory: Annotated[
        str | None, typer.Option(help="Bound the word-count table, e.g. 2GB (spills to disk).")
    ] = None,
    approximate: Annotated[
        bool, typer.Option(help="With --max-memory: cut rare words, no spilling (approximate).")
    ] = False,
) -> None:
    """Train a byte-level BPE on FILES and save it to --out.

    Text files give one text per line; .jsonl/.ndjson files give --field of each record.

    Example: tokensmith train bpe 'corpus/*.txt.gz' --vocab-size 32000 --out my-tokenizer/
    """
    start = time.perf_counter()
    try:
        corpus = Corpus(files, field=field, errors="strict" if strict_utf8 else "replace")
        tok_name = name or (out.stem if out.suffix else out.name) or "trained"
        columns = (
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=_err, transient=False) as progress:
            display = _ReadThenMerge(progress, corpus.total_bytes, len(corpus.files), vocab_size)
            corpus.on_progress = display
            with warnings.catch_warnings():
                # The count of replaced bytes is printed below, in the summary.
                warnings.simplefilter("ignore", InvalidUtf8Warning)
                enc = tokensmith.train_bpe(
                    files=corpus,
                    vocab_size=vocab_size,
                    pat_str=resolve_pattern(pattern),
                    min_frequency=min_frequency,
                    special_tokens=special_token or [],
                    max_token_length=max_token_length,
                    name=tok_name,
                    **scale_options(engine, address, max_memory, approximate),
                )
            if display.merging is not None:
                progress.remove_task(display.merging)
        written = save_outputs(enc, out)
    except tokensmith.TokensmithError as e:
        _err.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    stats = corpus.stats
    elapsed = time.perf_counter() - start
    _out.print(
        f"trained {enc.name!r}: {enc.n_vocab:,} tokens from {stats.files} files, "
        f"{stats.lines:,} lines, {stats.bytes / 1e6:.1f} MB in {elapsed:.1f} s, "
        f"peak RSS {format_bytes(peak_rss_bytes())}",
        highlight=False,
    )
    if stats.replaced:
        _out.print(
            f"replaced {stats.replaced:,} invalid UTF-8 sequences with U+FFFD "
            "(--strict-utf8 stops at the first)",
            highlight=False,
        )
    for path in written:
        _out.print(f"wrote {os.fspath(path)}", highlight=False, markup=False, soft_wrap=True)
