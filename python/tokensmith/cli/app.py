"""The ``tokensmith`` command line.

tokensmith speed             encode the bundled sample with each bundled encoding, beside tiktoken
tokensmith encode TEXT       print the ids of TEXT
tokensmith quickstart        train a BPE on bundled text, compare it, write an HTML report
tokensmith compare TOK...    evaluate tokenizers on corpora: table, JSON and HTML report
tokensmith show TEXT         the text with colored token boundaries and ids
tokensmith serve [TOK...]    a local web page to see, compare and train tokenizers
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import tokensmith
from tokensmith.cli.convert import convert as convert_command
from tokensmith.cli.dataset import register as register_dataset_command
from tokensmith.cli.errors import fail
from tokensmith.cli.eval import register as register_eval_commands
from tokensmith.cli.fingerprint import diff as diff_command
from tokensmith.cli.fingerprint import fingerprint as fingerprint_command
from tokensmith.cli.serve import serve as _serve_command
from tokensmith.cli.train import train_app
from tokensmith.cli.train_unigram import unigram as _train_unigram_command  # noqa: F401
from tokensmith.cli.train_wordpiece import wordpiece as _train_wordpiece_command  # noqa: F401

app = typer.Typer(
    help="tokensmith: train, run, convert and evaluate LLM tokenizers.",
    epilog=(
        "Examples:  tokensmith quickstart  ·  tokensmith compare o200k_base cl100k_base "
        "--corpus notes.txt --parallel parallel/  ·  tokensmith show strawberry -t cl100k_base  ·  "
        "tokensmith encode 'hello' -e o200k_base  ·  tokensmith speed --rounds 1  ·  "
        "tokensmith chat-cost -t cl100k_base --template chatml  ·  "
        "tokensmith train bpe corpus.txt -v 32000 -o tok.json  ·  "
        "tokensmith encode-dataset docs.jsonl -t o200k_base -o shards/"
    ),
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
register_eval_commands(app)
app.command()(convert_command)
app.command()(fingerprint_command)
app.command()(diff_command)
register_dataset_command(app)
app.add_typer(train_app, name="train")
app.command("serve")(_serve_command)


def sample_text() -> str:
    """The real multilingual sample text shipped in the package (about 300 KB)."""
    path = Path(tokensmith.__file__).resolve().parent / "data" / "sample_multilingual.txt"
    return path.read_text(encoding="utf-8")


def _throughput(encode: object, docs: list[str], rounds: int) -> tuple[float, int]:
    """Best-of-`rounds` MB/s of calling `encode` on each doc, and the token count."""
    assert callable(encode)
    n_bytes = sum(len(d.encode("utf-8")) for d in docs)
    best = float("inf")
    n_tokens = 0
    for _ in range(rounds):
        start = time.perf_counter()
        n_tokens = sum(len(encode(d)) for d in docs)
        best = min(best, time.perf_counter() - start)
    return n_bytes / best / 1e6, n_tokens


@app.command()
def speed(
    rounds: Annotated[int, typer.Option(min=1, help="Timing rounds; the best is shown.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Encode the bundled sample text with o200k_base and cl100k_base, beside tiktoken.

    Shows tokens per byte and single-thread throughput of each. tiktoken is built offline from
    the bundled vocabularies; it is skipped if not installed.
    """
    text = sample_text()
    lines = text.splitlines(keepends=True)
    docs = ["".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    n_bytes = len(text.encode("utf-8"))
    rows = []
    for name in ("o200k_base", "cl100k_base"):
        ours = tokensmith.get_encoding(name)
        mbps, n_tok = _throughput(ours.encode_ordinary, docs, rounds)
        row = {
            "encoding": name,
            "library": "tokensmith",
            "tokens": n_tok,
            "tokens_per_byte": n_tok / n_bytes,
            "mb_per_s": mbps,
        }
        rows.append(row)
        try:
            from tokensmith.reference import tiktoken_encoding

            ref = tiktoken_encoding(name)
        except ImportError:
            continue
        ref_mbps, ref_tok = _throughput(ref.encode_ordinary, docs, rounds)
        rows.append(
            {
                "encoding": name,
                "library": "tiktoken",
                "tokens": ref_tok,
                "tokens_per_byte": ref_tok / n_bytes,
                "mb_per_s": ref_mbps,
            }
        )
        row["speedup_vs_tiktoken"] = mbps / ref_mbps
        row["same_ids_as_tiktoken"] = all(
            ours.encode_ordinary(d) == ref.encode_ordinary(d) for d in docs
        )
    if as_json:
        print(
            json.dumps({"sample_bytes": n_bytes, "documents": len(docs), "results": rows}, indent=2)
        )
        return
    title = f"Encoding the bundled sample ({n_bytes / 1e6:.2f} MB, {len(docs)} docs, 1 thread)"
    table = Table(title=title)
    for col in ("encoding", "library", "tokens", "tokens/byte", "MB/s", "× tiktoken", "same ids"):
        table.add_column(col, justify="right" if col not in ("encoding", "library") else "left")
    for r in rows:
        speedup = r.get("speedup_vs_tiktoken")
        same = r.get("same_ids_as_tiktoken")
        table.add_row(
            str(r["encoding"]),
            str(r["library"]),
            f"{r['tokens']:,}",
            f"{r['tokens_per_byte']:.4f}",
            f"{r['mb_per_s']:.1f}",
            f"{speedup:.2f}" if speedup else "",
            "" if same is None else ("yes" if same else "NO"),
        )
    console.print(table)


@app.command()
def encode(
    text: Annotated[str, typer.Argument(help="The text to encode.")],
    encoding: Annotated[
        str,
        typer.Option(
            "--encoding",
            "-e",
            "--tokenizer",
            "-t",
            help="A bundled name or a tokenizer file (.tiktoken, tokenizer.json, .model, ...).",
        ),
    ] = "o200k_base",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print the ids and pieces of TEXT.

    Special-token text is encoded as ordinary text by an encoding; a tokenizer.json or .model
    runs as its library does (added tokens matched, the post-processor's template added).

    Example: tokensmith encode "strawberry" -e cl100k_base
    """
    try:
        enc = tokensmith.load(encoding)
    except tokensmith.TokensmithError as e:
        raise fail(e) from None
    if isinstance(enc, tokensmith.Encoding):
        ids = enc.encode(text, disallowed_special=())
        pieces = [enc.decode_single_token_bytes(i).decode("utf-8", "replace") for i in ids]
    else:
        result = enc.encode(text)
        ids, pieces = list(result.ids), list(result.tokens)
    if as_json:
        print(json.dumps({"encoding": encoding, "ids": ids, "pieces": pieces}, ensure_ascii=False))
    else:
        console.print(f"{len(ids)} tokens: {ids}")
        console.print(" | ".join(pieces), markup=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
