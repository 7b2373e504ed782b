"""``tokensmith train bpe FILES...``: train a BPE (byte-level, character-level or Metaspace)
from files and save it; ``--base`` extends an existing vocabulary instead.

>>> from typer.testing import CliRunner
>>> result = CliRunner().invoke(train_app, ["bpe", "--help"])
>>> "--vocab-size" in result.output
True

Registered in :mod:`tokensmith.cli` as the ``train`` group.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path
from typing import Annotated, Literal, cast

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

import tokensmith
from tokensmith.cli.errors import fail
from tokensmith.corpus import Corpus
from tokensmith.io.output_set import OutputSet
from tokensmith.rss import format_bytes, peak_rss_bytes
from tokensmith.train.bounded_counts import scale_options
from tokensmith.train.bpe import InvalidUtf8Warning

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


def planned_outputs(out: Path, name: str, *, kind: str, overwrite: bool) -> OutputSet:
    """The files ``train bpe`` will write for ``--out``, checked before training: the
    extension against the format, ``--name`` against leaving the folder, existing files
    against ``--overwrite``, and the folder against being read-only.

    A ``.json`` or ``.tiktoken`` path gets one format; a directory gets ``tokenizer.json``,
    ``NAME.tiktoken`` (+ sidecar), and ``vocab.json`` + ``merges.txt`` (+ ``tokensmith.json``),
    of which ``tokensmith.load(DIR)`` reads the last pair. A character-level or Metaspace
    tokenizer (``kind`` char or metaspace) is written as ``tokenizer.json`` only.
    """
    if name in ("", ".", "..") or Path(name).name != name or "\\" in name:
        raise tokensmith.InvalidTrainerOptionError(
            f"--name {name!r} must be a plain file name (no folders), as it names files "
            "inside --out"
        )
    byte = kind == "byte"
    suffixes = (".json", ".tiktoken") if byte else (".json",)
    if out.suffix in suffixes:
        names = [out.name] + ([f"{out.name}.json"] if out.suffix == ".tiktoken" else [])
        outputs = OutputSet(out.parent, names, overwrite=overwrite)
    elif out.suffix and not out.is_dir():
        also = " (a .model is written by `tokensmith train unigram`)" if byte else ""
        raise tokensmith.UnknownFormatError(
            f"{out}: train bpe --kind {kind} writes "
            + ("NAME.json, NAME.tiktoken" if byte else "NAME.json")
            + f" or a directory, not {out.suffix}{also}"
        )
    elif byte:
        tiktoken_name = f"{name}.tiktoken"
        names = ["tokenizer.json", tiktoken_name, f"{tiktoken_name}.json", "vocab.json",
                 "merges.txt", "tokensmith.json"]
        outputs = OutputSet(out, names, overwrite=overwrite)
    else:
        outputs = OutputSet(out, ["tokenizer.json"], overwrite=overwrite)
    outputs.check()
    return outputs


def save_outputs(enc: tokensmith.Encoding | tokensmith.Tokenizer, outputs: OutputSet) -> None:
    """Writes every file of ``outputs`` into a temporary folder beside them, then moves the set
    into place; an error or Ctrl-C leaves the old files as they were."""
    with outputs.write() as tmp:
        first = tmp / outputs.names[0]
        if isinstance(enc, tokensmith.Tokenizer) or len(outputs.names) <= 2:
            enc.save(first)
        else:
            enc.save(tmp / "tokenizer.json")
            enc.save(tmp / outputs.names[1])
            enc.save(tmp)


class _AmountColumn(ProgressColumn):
    """Bytes read for the counting task, merges learned for the merging one."""

    def __init__(self) -> None:
        super().__init__()
        self._bytes = DownloadColumn()

    def render(self, task: Task) -> Text:
        if task.fields.get("merges"):
            total = f"/{int(task.total):,}" if task.total is not None else ""
            return Text(f"{int(task.completed):,}{total} merges", style="progress.download")
        return self._bytes.render(task)


class _ReadThenMerge:
    """A progress display: a bar over the input bytes, then a bar over the merges, which the
    Rust merge loop moves every 100 merges (``merged``)."""

    def __init__(
        self, progress: Progress, total: int, n_files: int, vocab_size: int, most_merges: int
    ) -> None:
        self.progress = progress
        self.total = total
        self.n_files = n_files
        self.vocab_size = vocab_size
        self.most_merges = most_merges
        self.reading: TaskID = progress.add_task(f"counting words in {n_files} files", total=total)
        self.merging: TaskID | None = None

    def __call__(self, done: int) -> None:
        """Called by the corpus as it reads; the last call comes after the last file."""
        self.progress.update(self.reading, completed=done)
        if done >= self.total and self.merging is None:
            self.progress.update(self.reading, description=f"counted {self.n_files} files")
            self.merging = self.progress.add_task(
                f"learning merges up to {self.vocab_size:,} tokens",
                total=self.most_merges,
                merges=True,
            )
            if not self.progress.console.is_terminal:
                # No live display: one line marks the stage (Ctrl-C stops it promptly).
                self.progress.console.print("learning merges", highlight=False)

    def merged(self, n: int) -> None:
        if self.merging is not None:
            self.progress.update(self.merging, completed=n)


# The corpus argument every `train` command takes.
FilesArgument = Annotated[
    list[str],
    typer.Argument(
        metavar="FILES...",
        help="Text, JSONL or Parquet files, plain, .gz or .zst; globs such as 'data/*.gz'.",
    ),
]


@train_app.command("bpe")
def bpe(
    files: FilesArgument,
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
    kind: Annotated[
        str,
        typer.Option(
            help="byte (GPT-2/tiktoken), char (words end in </w>), or metaspace (▁ for spaces)."
        ),
    ] = "byte",
    split_digits: Annotated[
        str | None,
        typer.Option(help="individual (every digit alone) or groups (at most 3, as cl100k)."),
    ] = None,
    limit_alphabet: Annotated[
        int | None, typer.Option(min=1, help="(char, metaspace) Keep this many characters.")
    ] = None,
    initial_alphabet: Annotated[
        str, typer.Option(help="(char, metaspace) Characters always in the alphabet.")
    ] = "",
    unk_token: Annotated[
        str, typer.Option(help="(char, metaspace) The unknown token; '' for none.")
    ] = "<unk>",
    end_of_word_suffix: Annotated[
        str, typer.Option(help="(char) The end-of-word suffix; '' for none.")
    ] = "</w>",
    continuing_subword_prefix: Annotated[
        str, typer.Option(help="(char) The prefix of non-initial symbols, such as ##.")
    ] = "",
    pre_tokenizer: Annotated[
        str, typer.Option(help="(char) whitespace or whitespace_split.")
    ] = "whitespace",
    prepend_scheme: Annotated[
        str, typer.Option(help="(metaspace) always, first or never.")
    ] = "always",
    byte_fallback: Annotated[
        bool, typer.Option("--byte-fallback", help="(metaspace) Reserve <0x00>..<0xFF>.")
    ] = False,
    base: Annotated[
        str | None,
        typer.Option(
            help="(byte) Extend this vocabulary (a bundled name such as cl100k_base, or a "
            "file tokensmith.load reads): its ids stay, new merges fill up to --vocab-size."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace output files that already exist.")
    ] = False,
) -> None:
    """Train a BPE on FILES and save it to --out.

    Text files give one text per line; .jsonl/.ndjson files give --field of each record.
    Ctrl-C stops training within a moment and writes nothing. The outputs are checked
    before training (format, existing files, a writable folder) and written as one set.

    Example: tokensmith train bpe 'corpus/*.txt.gz' --vocab-size 32000 --out my-tokenizer/
    """
    start = time.perf_counter()
    try:
        corpus = Corpus(files, field=field, errors="strict" if strict_utf8 else "replace")
        tok_name = name or (out.stem if out.suffix else out.name) or "trained"
        outputs = planned_outputs(out, tok_name, kind=kind, overwrite=overwrite)
        columns = (
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            _AmountColumn(),
            TimeElapsedColumn(),
        )
        base_encoding = _load_base(base) if base is not None else None
        n_base = 256 if base_encoding is None else base_encoding.n_vocab
        most_merges = max(vocab_size - n_base - len(special_token or []), 1)
        family = _family_options(
            kind, split_digits, limit_alphabet, initial_alphabet, unk_token,
            end_of_word_suffix, continuing_subword_prefix, pre_tokenizer, prepend_scheme,
            byte_fallback, pattern, base,
        )
        with Progress(*columns, console=_err, transient=False) as progress:
            display = _ReadThenMerge(
                progress, corpus.total_bytes, len(corpus.files), vocab_size, most_merges
            )
            corpus.on_progress = display
            with warnings.catch_warnings():
                # The count of replaced bytes is printed below, in the summary.
                warnings.simplefilter("ignore", InvalidUtf8Warning)
                enc = tokensmith.train_bpe(  # type: ignore[call-overload]
                    files=corpus,
                    vocab_size=vocab_size,
                    min_frequency=min_frequency,
                    special_tokens=special_token or [],
                    max_token_length=max_token_length,
                    name=tok_name,
                    base=base_encoding,
                    progress=display.merged,
                    **family,
                    **scale_options(engine, address, max_memory, approximate),
                )
            if display.merging is not None:
                progress.remove_task(display.merging)
        save_outputs(enc, outputs)
        written = outputs.paths
    except tokensmith.TokensmithError as e:
        raise fail(e) from None
    stats = corpus.stats
    n_vocab = enc.get_vocab_size() if isinstance(enc, tokensmith.Tokenizer) else enc.n_vocab
    elapsed = time.perf_counter() - start
    if as_json:
        summary = {
            "name": tok_name,
            "kind": kind,
            "vocab_size": n_vocab,
            "files": stats.files,
            "lines": stats.lines,
            "bytes": stats.bytes,
            "replaced_utf8": stats.replaced,
            "seconds": round(elapsed, 3),
            "peak_rss_bytes": peak_rss_bytes(),
            "written": [os.fspath(p) for p in written],
        }
        print(json.dumps(summary))
        return
    _out.print(
        f"trained {tok_name!r}: {n_vocab:,} tokens from {stats.files} files, "
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


def _load_base(base: str) -> tokensmith.Encoding:
    """``--base``: a bundled encoding's name, or a file that loads as a byte-level encoding."""
    if base in tokensmith.list_encoding_names():
        return tokensmith.get_encoding(base)
    loaded = tokensmith.load(base)
    if not isinstance(loaded, tokensmith.Encoding):
        raise tokensmith.InvalidTrainerOptionError(
            f"--base {base}: only byte-level vocabularies can be extended"
        )
    return loaded


def _family_options(
    kind: str,
    split_digits: str | None,
    limit_alphabet: int | None,
    initial_alphabet: str,
    unk_token: str,
    end_of_word_suffix: str,
    continuing_subword_prefix: str,
    pre_tokenizer: str,
    prepend_scheme: str,
    byte_fallback: bool,
    pattern: str,
    base: str | None,
) -> dict[str, object]:
    """The keyword arguments of ``train_bpe`` that depend on ``--kind``."""
    if kind not in ("byte", "char", "metaspace"):
        raise tokensmith.InvalidTrainerOptionError(
            f"--kind {kind}: use byte, char or metaspace"
        )
    options: dict[str, object] = {"kind": kind, "split_digits": split_digits}
    if kind == "byte":
        if base is None:
            options["pat_str"] = resolve_pattern(pattern)
        return options
    if base is not None:
        raise tokensmith.InvalidTrainerOptionError("--base is for --kind byte")
    options.update(
        limit_alphabet=limit_alphabet,
        initial_alphabet=initial_alphabet,
        unk_token=unk_token or None,
        fuse_unk=False,
    )
    if kind == "char":
        options.update(
            end_of_word_suffix=end_of_word_suffix,
            continuing_subword_prefix=continuing_subword_prefix or None,
            pre_tokenizer=cast(Literal["whitespace", "whitespace_split"], pre_tokenizer),
        )
    else:
        options.update(prepend_scheme=prepend_scheme, byte_fallback=byte_fallback)
    return options
