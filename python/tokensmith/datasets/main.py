"""The command-line face of :func:`encode_dataset`, ready for ``cli.py`` to wire up.

``main_encode_dataset`` takes already-parsed options, runs the job with a progress line,
prints a summary table, and returns a process exit code: 0 on success, 1 when ``verify``
found documents that do not round-trip, 2 when tokensmith refused the job (bad input, an
occupied output directory, a missing optional package); the message says how to fix it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from tokensmith.datasets.encode import encode_dataset
from tokensmith.errors import TokensmithError
from tokensmith.rss import format_bytes


def main_encode_dataset(
    inputs: Sequence[str],
    *,
    out: str,
    progress: bool = True,
    console: Console | None = None,
    as_json: bool = False,
    **options: Any,
) -> int:
    """Runs ``encode-dataset``; returns the exit code (0 ok, 1 verify failed, 2 refused).

    ``options`` are :func:`~tokensmith.datasets.encode_dataset`'s keyword arguments. With
    ``as_json`` the summary's fields are printed to stdout as one JSON object.
    """
    console = console or Console(stderr=True)
    try:
        s = encode_dataset(inputs, out_dir=out, progress=progress, **options)
    except (TokensmithError, ValueError) as e:
        console.print(f"[red]error:[/red] {e}", markup=True, highlight=False)
        return 2
    if as_json:
        print(json.dumps(dataclasses.asdict(s), default=str))
        return 1 if s.verify_failures else 0
    table = Table(title=f"encode-dataset -> {s.out_dir}", show_header=False)
    table.add_row("format", f"{s.format} ({s.dtype})")
    table.add_row("documents", f"{s.documents:,}")
    table.add_row("tokens", f"{s.tokens:,}")
    table.add_row("bytes per token", f"{s.bytes_per_token:.3f}")
    table.add_row("shards", f"{s.shards} ({s.resumed_shards} resumed)")
    table.add_row("seconds", f"{s.seconds:.1f}")
    table.add_row("peak RSS", format_bytes(s.peak_rss_bytes))
    if s.replaced_utf8:
        table.add_row("invalid UTF-8", f"{s.replaced_utf8:,} sequences replaced with U+FFFD")
    if s.skipped_records:
        table.add_row("skipped records", f"{s.skipped_records:,} (first: {s.first_skipped})")
    if s.verified:
        table.add_row("verified", f"{s.verified - len(s.verify_failures)}/{s.verified} round-trip")
    console.print(table)
    for failure in s.verify_failures:
        console.print(f"[red]verify:[/red] {failure}", highlight=False)
    return 1 if s.verify_failures else 0
