"""``tokensmith fingerprint`` and ``tokensmith diff``: catch tokenizer drift."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from tokensmith.cli.errors import user_errors

_FILES = typer.Option("--file", "-f", help="A text file whose lines are checked too; repeat.")


def fingerprint(
    tokenizer: Annotated[str, typer.Argument(help="A bundled name or a tokenizer file/folder.")],
    file: Annotated[list[str] | None, _FILES] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print a short digest of what TOKENIZER does (ids on the probe set and on each token's
    own text, vocabulary, special tokens); the same tokenizer in any format gives the same one.

    Example: tokensmith fingerprint cl100k_base
    """
    from tokensmith.conversion.fingerprint import fingerprint as digest

    with user_errors():
        value = digest(tokenizer, files=file or [])
    if as_json:
        print(json.dumps({"tokenizer": tokenizer, "fingerprint": value, "files": file or []}))
    else:
        print(value)


def diff(
    a: Annotated[str, typer.Argument(help="The first tokenizer.")],
    b: Annotated[str, typer.Argument(help="The second tokenizer.")],
    file: Annotated[list[str] | None, _FILES] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show where A and B differ: the first texts with their tokens, then the vocabulary,
    special tokens, merges and normalizer. Exits 1 when they differ.

    Example: tokensmith diff cl100k_base exported/tokenizer.json
    """
    from tokensmith.conversion.fingerprint import diff as compare

    with user_errors():
        found = compare(a, b, files=file or [])
    if as_json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
    else:
        print("same behaviour" if found["same"] else "different behaviour")
        print(f"fingerprints: {found['fingerprints'][0]} {found['fingerprints'][1]}")
        print(f"{found['identical']}/{found['texts']} texts identical")
        for m in found["mismatches"]:
            print(f"  {m['where']}: {m['text'][:60]!r}")
            print(f"    a[{m['first']}:] {' '.join(m['source'][:8])}")
            print(f"    b[{m['first']}:] {' '.join(m['target'][:8])}")
        for key in ("vocabulary_differences", "special_token_differences"):
            if found[key]:
                print(f"  {key.replace('_', ' ')}: " + "; ".join(found[key][:5]))
        _print_merges(found["merges"])
        for field in found["normalizer"]:
            print(f"  {field['field']}: {field['a']!r} -> {field['b']!r}")
    if not found["same"]:
        raise typer.Exit(1)


def _print_merges(found: dict[str, Any] | None, shown: int = 5) -> None:
    """The merge differences, each kind counted, with its first few."""
    if found is None:
        return
    for kind in ("removed", "added"):
        items = found[kind]
        if items:
            first = ", ".join(f"{m['rank']}:{m['merge']!r}" for m in items[:shown])
            print(f"  merges {kind}: {len(items)} ({first})")
    moved = found["reordered"]
    if moved:
        first = ", ".join(f"{m['merge']!r} {m['rank_a']}->{m['rank_b']}" for m in moved[:shown])
        print(f"  merges reordered: {len(moved)} ({first})")
