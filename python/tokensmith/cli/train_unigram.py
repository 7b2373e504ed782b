"""``tokensmith train unigram FILES...``: train a Unigram SentencePiece model and save it.

>>> from typer.testing import CliRunner
>>> from tokensmith.cli.train import train_app
>>> result = CliRunner().invoke(train_app, ["unigram", "--help"])
>>> "--vocab-size" in result.output
True

Writes ``NAME.vocab`` (sentencepiece's ``piece<TAB>score`` listing) and ``NAME.model`` through
``SentencePieceProcessor.save`` (the ``.model`` writer; a build without it reports so and
exits with status 2 after writing the ``.vocab``). Registered on the ``train`` group of
:mod:`tokensmith.cli.train` when this module is imported (:mod:`tokensmith.cli` does).
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

import tokensmith
from tokensmith._atomic import write_text_atomic
from tokensmith.cli.errors import fail
from tokensmith.cli.train import FilesArgument, train_app
from tokensmith.corpus import Corpus
from tokensmith.io.output_set import OutputSet
from tokensmith.sentencepiece import SentencePieceProcessor
from tokensmith.train.bpe import InvalidUtf8Warning

_out = Console()
_err = Console(stderr=True)


def vocab_text(sp: SentencePieceProcessor) -> str:
    """The ``.vocab`` file sentencepiece writes beside a model: ``piece<TAB>score`` per line.

    >>> sp = tokensmith.train_unigram(["ab ab ba"] * 5, vocab_size=8,
    ...                               seed_sentencepiece_size=1000)
    >>> vocab_text(sp).splitlines()[:3]
    ['<unk>\\t0', '<s>\\t0', '</s>\\t0']
    """
    lines = []
    for i in range(sp.piece_size()):
        score = sp.get_score(i)
        lines.append(f"{sp.id_to_piece(i)}\t{score:g}")
    return "\n".join(lines) + "\n"


class _Display:
    """A bar over the input bytes, then one over the EM rounds."""

    def __init__(self, progress: Progress, corpus: Corpus) -> None:
        self.progress = progress
        self.reading = progress.add_task(
            f"reading {len(corpus.files)} files", total=corpus.total_bytes
        )
        self.em = progress.add_task("EM", total=None, visible=False)
        self.summary: dict[str, float] = {}

    def bytes_read(self, done: int) -> None:
        self.progress.update(self.reading, completed=done)

    def __call__(self, kind: str, info: Mapping[str, float]) -> None:
        self.summary.update({f"{kind}.{k}": v for k, v in info.items()})
        if kind == "counted":
            self.progress.update(
                self.reading,
                description=f"{int(info['sentences']):,} sentences, {int(info['words']):,} words",
            )
        elif kind == "seeded":
            self.progress.update(
                self.em,
                visible=True,
                total=int(info["rounds"]),
                description=f"EM from {int(info['pieces']):,} seed pieces",
            )
        elif kind == "em_round":
            self.progress.update(
                self.em,
                completed=int(info["round"]),
                description=(
                    f"EM: {int(info['pieces']):,} pieces, objective {info['objective']:.3f}"
                ),
            )
        elif kind == "finished":
            total = self.progress.tasks[self.em].total
            self.progress.update(self.em, completed=total, description="EM done")


@train_app.command("unigram")
def unigram(
    files: FilesArgument,
    vocab_size: Annotated[
        int, typer.Option("--vocab-size", "-v", min=1, help="Pieces in all, meta pieces included.")
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="NAME.model; NAME.vocab is written beside it.")
    ],
    character_coverage: Annotated[
        float, typer.Option(help="Share of character occurrences the alphabet covers.")
    ] = 0.9995,
    required_chars: Annotated[
        str, typer.Option(help="Characters always kept as pieces, whatever the coverage.")
    ] = "",
    normalization_rule_name: Annotated[
        str,
        typer.Option(
            "--normalization-rule-name",
            help="nmt_nfkc, nfkc, nmt_nfkc_cf, nfkc_cf or identity (as sentencepiece).",
        ),
    ] = "nmt_nfkc",
    input_format: Annotated[
        str, typer.Option(help="text, or tsv: each line is sentence<TAB>count.")
    ] = "text",
    byte_fallback: Annotated[bool, typer.Option(help="Add the 256 <0xNN> pieces.")] = False,
    split_digits: Annotated[bool, typer.Option(help="Each digit is its own piece.")] = False,
    max_piece_length: Annotated[int, typer.Option(min=1, help="Longest piece, in chars.")] = 16,
    user_defined_symbol: Annotated[
        list[str] | None, typer.Option("--user-defined-symbol", help="Repeat for more.")
    ] = None,
    control_symbol: Annotated[
        list[str] | None, typer.Option("--control-symbol", help="Repeat for more.")
    ] = None,
    input_sentence_size: Annotated[
        int, typer.Option(min=0, help="Train on a sample of this many sentences (0: all).")
    ] = 0,
    seed: Annotated[int, typer.Option(min=0, help="Seed of that sample.")] = 0,
    threads: Annotated[int, typer.Option(min=0, help="Threads (0: one per core).")] = 0,
    field: Annotated[str, typer.Option(help="The text field of JSONL records.")] = "text",
    strict_utf8: Annotated[
        bool, typer.Option("--strict-utf8", help="Stop at invalid UTF-8 instead of replacing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    engine: Annotated[
        str, typer.Option(help="Read and count: local, or ray (Ray workers; EM here).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option(help="The Ray cluster to join; default: start one.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace output files that already exist.")
    ] = False,
) -> None:
    """Train a Unigram SentencePiece model on FILES and save it to --out.

    Text files give one sentence per line; .jsonl/.ndjson files give --field of each record.
    Text is normalized with sentencepiece's nmt_nfkc unless --normalization-rule-name says
    otherwise; --input-format tsv reads sentencepiece's word<TAB>count files.

    Example: tokensmith train unigram 'corpus/*.txt.gz' --vocab-size 32000 --out m.model
    """
    start = time.perf_counter()
    try:
        corpus = Corpus(files, field=field, errors="strict" if strict_utf8 else "replace")
        if out.suffix != ".model":
            raise tokensmith.UnknownFormatError(
                f"{out}: train unigram writes a SentencePiece NAME.model (and NAME.vocab); "
                "end --out in .model"
            )
        outputs = OutputSet(out.parent, [out.with_suffix(".vocab").name, out.name],
                            overwrite=overwrite)
        outputs.check()
        columns = (
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=_err, transient=as_json) as progress:
            display = _Display(progress, corpus)
            corpus.on_progress = display.bytes_read
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", InvalidUtf8Warning)
                sp = tokensmith.train_unigram(
                    files=corpus,
                    vocab_size=vocab_size,
                    character_coverage=character_coverage,
                    required_chars=required_chars,
                    normalization_rule_name=normalization_rule_name,  # type: ignore[arg-type]
                    input_format=input_format,  # type: ignore[arg-type]
                    byte_fallback=byte_fallback,
                    split_digits=split_digits,
                    max_piece_length=max_piece_length,
                    user_defined_symbols=user_defined_symbol or [],
                    control_symbols=control_symbol or [],
                    input_sentence_size=input_sentence_size,
                    seed=seed,
                    num_threads=threads,
                    progress=display,
                    engine=engine,  # type: ignore[arg-type]
                    address=address,
                )
        with outputs.write() as tmp:
            write_text_atomic(tmp / outputs.names[0], vocab_text(sp))
            sp.save(tmp / outputs.names[1])
        written = outputs.paths
    except tokensmith.TokensmithError as e:
        raise fail(e) from None
    stats = corpus.stats
    seconds = time.perf_counter() - start
    if as_json:
        summary = {
            "pieces": sp.piece_size(),
            "files": stats.files,
            "lines": stats.lines,
            "bytes": stats.bytes,
            "replaced_utf8": stats.replaced,
            "seconds": round(seconds, 3),
            "written": [str(p) for p in written],
            **display.summary,
        }
        print(json.dumps(summary))
        return
    _out.print(
        f"trained a Unigram model: {sp.piece_size():,} pieces from {stats.files} files, "
        f"{stats.lines:,} lines, {stats.bytes / 1e6:.1f} MB in {seconds:.1f} s",
        highlight=False,
    )
    for path in written:
        _out.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
