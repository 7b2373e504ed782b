"""``tokensmith convert``: write a tokenizer in another format, verified first."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from tokensmith.cli.errors import err_console, fail, user_errors


def convert(
    source: Annotated[str, typer.Argument(help="A bundled name or a tokenizer file/folder.")],
    out: Annotated[str, typer.Argument(help="The output; its extension names the format.")],
    to: Annotated[
        str | None,
        typer.Option(
            help="tokenizer.json, tiktoken, vocab+merges, sentencepiece or vocab.txt "
            "(default: from OUT's extension, which must agree)."
        ),
    ] = None,
    verify: Annotated[
        list[str] | None,
        typer.Option(help="A text file to verify on, besides the built-in probe set; repeat."),
    ] = None,
    lossy: Annotated[
        bool, typer.Option(help="Write the output even if it gives other ids; report how often.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Convert SOURCE to OUT, exactly or not at all: run both on the probe set (and --verify
    files) and write OUT only if every id agrees (or --lossy). Exits 1 when the format cannot
    express SOURCE or the ids differ, 2 on bad input.

    Example: tokensmith convert cl100k_base cl100k.json --verify corpus.txt
    """
    from tokensmith.conversion.convert import convert as run
    from tokensmith.errors import ConversionMismatchError, InexpressibleComponentError

    with user_errors():
        try:
            report = run(
                source,
                out,
                to=to,  # type: ignore[arg-type]  # checked by convert
                verify=verify or [],
                lossy=lossy,
            )
        except (ConversionMismatchError, InexpressibleComponentError) as e:
            # The input was understood; the conversion is what failed (exit 1, not 2).
            raise fail(e, code=1) from None
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        return
    err_console.print(f"wrote {report.out} ({report.format})", markup=False)
    print(report.verification.summary())
