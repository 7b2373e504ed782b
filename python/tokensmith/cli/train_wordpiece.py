"""``tokensmith train wordpiece FILES...``: train a WordPiece (BERT) tokenizer and save it.

>>> from typer.testing import CliRunner
>>> from tokensmith.cli import app
>>> result = CliRunner().invoke(app, ["train", "wordpiece", "--help"])
>>> "--vocab-size" in result.output
True

Writes one HF ``tokenizer.json`` (atomically). Registered on the ``train`` group of
:mod:`tokensmith.cli.train` when this module is imported (:mod:`tokensmith.cli` does).
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

import tokensmith
from tokensmith.cli.errors import fail
from tokensmith.cli.train import FilesArgument, train_app
from tokensmith.corpus import Corpus
from tokensmith.train.bpe import InvalidUtf8Warning
from tokensmith.train.wordpiece import BERT_SPECIAL_TOKENS

_out = Console()
_err = Console(stderr=True)


@train_app.command("wordpiece")
def wordpiece(
    files: FilesArgument,
    vocab_size: Annotated[
        int, typer.Option("--vocab-size", "-v", min=1, help="Tokens in all, specials included.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The tokenizer.json to write.")],
    min_frequency: Annotated[
        int, typer.Option(min=0, help="Pairs seen fewer times are never merged.")
    ] = 0,
    special_token: Annotated[
        list[str] | None,
        typer.Option(
            "--special-token", "-s",
            help="A special token (repeat for more; default: [PAD] [UNK] [CLS] [SEP] [MASK]).",
        ),
    ] = None,
    limit_alphabet: Annotated[
        int | None, typer.Option(min=1, help="Keep at most this many characters.")
    ] = None,
    lowercase: Annotated[bool, typer.Option(help="Lowercase (BERT normalizer).")] = True,
    strip_accents: Annotated[
        bool | None,
        typer.Option(
            "--strip-accents/--no-strip-accents",
            help="Strip accents (BERT normalizer; default: follow --lowercase, as BERT does).",
            show_default=False,
        ),
    ] = None,
    initial_alphabet: Annotated[
        str,
        typer.Option(help="Characters always in the alphabet, given as one string (e.g. 'ΩЖ☃')."),
    ] = "",
    prefix: Annotated[
        str, typer.Option("--prefix", help="The continuing-subword prefix.")
    ] = "##",
    scoring: Annotated[
        str, typer.Option(help="frequency (HF WordPieceTrainer) or likelihood.")
    ] = "frequency",
    field: Annotated[str, typer.Option(help="The text field of JSONL records.")] = "text",
    strict_utf8: Annotated[
        bool, typer.Option("--strict-utf8", help="Stop at invalid UTF-8 instead of replacing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Train a WordPiece tokenizer on FILES and save its tokenizer.json to --out.

    Example: tokensmith train wordpiece 'corpus/*.txt' --vocab-size 30000 --out tokenizer.json
    """
    start = time.perf_counter()
    try:
        corpus = Corpus(files, field=field, errors="strict" if strict_utf8 else "replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InvalidUtf8Warning)
            tok = tokensmith.train_wordpiece(
                files=corpus,
                vocab_size=vocab_size,
                min_frequency=min_frequency,
                special_tokens=special_token or list(BERT_SPECIAL_TOKENS),
                limit_alphabet=limit_alphabet,
                lowercase=lowercase,
                strip_accents=strip_accents,
                initial_alphabet=list(initial_alphabet),
                continuing_subword_prefix=prefix,
                scoring=scoring,  # type: ignore[arg-type]  # checked by train_wordpiece
                show_progress=not as_json,
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        tok.save(out)
    except tokensmith.TokensmithError as e:
        raise fail(e) from None
    stats = corpus.stats
    seconds = time.perf_counter() - start
    if as_json:
        print(json.dumps({
            "tokens": tok.get_vocab_size(),
            "files": stats.files,
            "lines": stats.lines,
            "bytes": stats.bytes,
            "replaced_utf8": stats.replaced,
            "seconds": round(seconds, 3),
            "written": [str(out)],
        }))
        return
    _out.print(
        f"trained a WordPiece tokenizer: {tok.get_vocab_size():,} tokens from {stats.files} "
        f"files, {stats.lines:,} lines in {seconds:.1f} s",
        highlight=False,
    )
    _out.print(f"wrote {out}", highlight=False, markup=False, soft_wrap=True)
