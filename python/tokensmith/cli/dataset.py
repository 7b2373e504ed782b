"""``tokensmith encode-dataset``: turn a text corpus into training-ready token shards."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from tokensmith.datasets import main_encode_dataset


def register(app: typer.Typer) -> None:
    """Adds the ``encode-dataset`` command to ``app``."""

    @app.command("encode-dataset")
    def encode_dataset_command(
        inputs: Annotated[list[str], typer.Argument(help="Text (.gz/.zst), JSONL, Parquet files.")],
        tokenizer: Annotated[str, typer.Option(
                "--tokenizer",
                "-t",
                help="A bundled name or a tokenizer file (.tiktoken, tokenizer.json, .model, ...).",
            ),],
        out: Annotated[str, typer.Option("--out", "-o", help="Output directory.")],
        format: Annotated[
            str, typer.Option(help="megatron (.bin/.idx), nanogpt (.bin) or npy.")
        ] = "megatron",
        field: Annotated[
            str, typer.Option(help="The text field of JSONL records or Parquet column.")
        ] = "text",
        append_eos: Annotated[bool, typer.Option(help="End each document with EOS.")] = False,
        prepend_bos: Annotated[bool, typer.Option(help="Start each document with BOS.")] = False,
        shard_size: Annotated[int, typer.Option(min=1, help="Tokens per shard.")] = 50_000_000,
        workers: Annotated[int | None, typer.Option(min=1, help="Encoding threads.")] = None,
        overwrite: Annotated[bool, typer.Option(help="Replace another job's shards.")] = False,
        verify: Annotated[int, typer.Option(min=0, help="Documents to decode back.")] = 0,
        skip_bad_records: Annotated[
            bool, typer.Option(help="Skip JSONL records with no text instead of stopping.")
        ] = False,
        replace_invalid_utf8: Annotated[
            bool, typer.Option(help="Replace invalid UTF-8 with U+FFFD instead of stopping.")
        ] = False,
        engine: Annotated[
            str, typer.Option(help="local (Rust threads) or ray (tasks on a Ray cluster).")
        ] = "local",
        address: Annotated[
            str | None, typer.Option(help="The Ray cluster to join; default: start one.")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    ) -> None:
        """Encode documents into shards an LLM trainer reads; resumable and deterministic.

        Example: tokensmith encode-dataset corpus.jsonl.gz -t o200k_base -o shards/ --append-eos
        """
        if format not in ("megatron", "nanogpt", "npy"):
            raise typer.BadParameter(f"unknown format {format!r}", param_hint="--format")
        fmt: Literal["megatron", "nanogpt", "npy"] = format  # type: ignore[assignment]
        if engine not in ("local", "ray"):
            raise typer.BadParameter(f"unknown engine {engine!r}", param_hint="--engine")
        eng: Literal["local", "ray"] = engine  # type: ignore[assignment]
        code = main_encode_dataset(
            inputs,
            tokenizer=tokenizer,
            out=out,
            format=fmt,
            text_field=field,
            on_error="skip" if skip_bad_records else "raise",
            errors="replace" if replace_invalid_utf8 else "strict",
            append_eos=append_eos,
            prepend_bos=prepend_bos,
            shard_size=shard_size,
            workers=workers,
            overwrite=overwrite,
            verify=verify,
            engine=eng,
            address=address,
            as_json=as_json,
        )
        raise typer.Exit(code)
