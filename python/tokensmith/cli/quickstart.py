"""``tokensmith quickstart``: train a byte-level BPE and a Unigram tokenizer on bundled text and
compare them with o200k/cl100k.

Needs no user data and no network: the package ships a multilingual sample
(``data/sample_multilingual.txt``) and a small parallel sample (``data/parallel/``, 15
languages × 20 lines). Lines of the parallel sample are kept out of training, and every 10th
remaining line is held out, so the trained tokenizer is measured only on text it never saw.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

import tokensmith
from tokensmith.cli.compare import run_with_progress, write_outputs
from tokensmith.cli.errors import err_console, user_errors
from tokensmith.eval import (
    SentencePieceAdapter,
    TiktokenLikeAdapter,
    TokenizerAdapter,
    load_tokenizer,
    read_parallel,
)
from tokensmith.report import Corpus, parallel_corpus


def split_sample(lines: list[str], exclude: set[str]) -> tuple[list[str], list[str]]:
    """``(train, held_out)``: lines in ``exclude`` dropped, every 10th of the rest held out.

    >>> split_sample([f"l{i}" for i in range(12)], {"l1"})
    (['l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9', 'l10'], ['l0', 'l11'])
    """
    kept = [line for line in lines if line.strip() and line not in exclude]
    return [t for i, t in enumerate(kept) if i % 10], kept[::10]


def bundled_corpora() -> tuple[list[str], list[str], Corpus]:
    """The training lines, the held-out lines and the bundled parallel corpus."""
    data = resources.files("tokensmith").joinpath("data")
    sample = data.joinpath("sample_multilingual.txt").read_text(encoding="utf-8").splitlines()
    with resources.as_file(data.joinpath("parallel")) as parallel_dir:
        pairs = read_parallel(parallel_dir)
    exclude = {side for lang in pairs.values() for pair in lang for side in pair}
    train, held_out = split_sample(sample, exclude)
    return train, held_out, parallel_corpus("parallel sample", pairs)


def train_with_spinner(train: list[str], vocab_size: int) -> tokensmith.Encoding:
    """``train_bpe`` on ``train``, with a spinner (the trainer reports no progress itself)."""
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as bar:
        size = sum(len(t.encode("utf-8")) for t in train)
        bar.add_task(f"training byte-level BPE ({vocab_size:,} tokens, {size / 1e3:.0f} KB)")
        return tokensmith.train_bpe(train, vocab_size=vocab_size, name=f"bpe-{vocab_size}")


def quickstart(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for report.html and report.json.")
    ] = Path("tokensmith-report"),
    vocab_size: Annotated[
        int,
        typer.Option(
            min=3000, max=16384, help="Vocabulary size of the trained BPE and Unigram."
        ),
    ] = 6000,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the JSON report instead of the tables.")
    ] = False,
) -> None:
    """Train a BPE and a Unigram on bundled text and compare them with o200k_base and cl100k_base.

    Needs no data or network: trains on the bundled multilingual sample, measures on held-out
    lines and a bundled parallel sample, prints the table and writes the HTML report and the
    two trained tokenizers (bpe.json, unigram.model) to --out.

    Example: tokensmith quickstart --out tokensmith-report
    """
    console = Console()
    start = time.perf_counter()
    with user_errors():
        train, held_out, parallel = bundled_corpora()
        encoding = train_with_spinner(train, vocab_size)
        unigram = tokensmith.train_unigram(
            train, vocab_size=vocab_size, byte_fallback=True, show_progress=not as_json
        )
        trained = f"bpe-{vocab_size} (trained)"
        trained_unigram = f"unigram-{vocab_size} (trained)"
        tokenizers: dict[str, TokenizerAdapter] = {
            trained: TiktokenLikeAdapter(encoding),
            trained_unigram: SentencePieceAdapter(unigram, name=trained_unigram),
        }
        tokenizers |= {name: load_tokenizer(name) for name in ("o200k_base", "cl100k_base")}
        corpora = [Corpus("sample (held out)", {"all": held_out}), parallel]
        report = run_with_progress(
            tokenizers, corpora, sweep=True, samples=None, title="tokensmith quickstart"
        )
        report.notes += [
            f"{trained} and {trained_unigram}: a byte-level BPE and a Unigram (SentencePiece "
            f"style, byte fallback) trained on {len(train):,} lines of the bundled multilingual "
            f"sample; measured on {len(held_out):,} held-out lines and on the bundled parallel "
            "sample, neither of which they saw in training.",
        ]
        out.mkdir(parents=True, exist_ok=True)
        encoding.save(out / "bpe.json", overwrite=True)
        unigram.save(out / "unigram.model")
        write_outputs(report, out, "-" if as_json else None, console)
    err_console.print(f"quickstart took {time.perf_counter() - start:.1f} s", highlight=False)
