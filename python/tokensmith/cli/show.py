"""``tokensmith show``: the text with colored token boundaries and ids."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from tokensmith.cli.errors import user_errors
from tokensmith.report.schema import Piece
from tokensmith.report.segmentation import PALETTE, segment, visible


def colored(pieces: list[Piece]) -> Text:
    """The pieces with alternating background colors."""
    text = Text()
    for i, piece in enumerate(pieces):
        text.append(visible(piece.text), style=f"black on {PALETTE[i % len(PALETTE)]}")
    return text


def letter_note(text: str, pieces: list[Piece]) -> str | None:
    """Why counting letters is hard: where the most repeated letter hides among the tokens.

    >>> letter_note("strawberry", [Piece((496,), "str"), Piece((675,), "aw"),
    ...                            Piece((15717,), "berry")])  # doctest: +NORMALIZE_WHITESPACE
    "'r' occurs 3 times, inside 2 of the 3 tokens (str ×1, berry ×2). The model receives only
    the ids [496, 675, 15717], never the letters, so it can count 'r' only if it has memorized
    how each token is spelled."
    """
    letters = Counter(c for c in text.lower() if c.isalpha())
    if not letters:
        return None
    letter, count = letters.most_common(1)[0]
    holders = [(p.text, p.text.lower().count(letter)) for p in pieces if letter in p.text.lower()]
    if count < 2 or len(pieces) >= len(text):
        return None
    ids = [i for p in pieces for i in p.ids]
    where = ", ".join(f"{t.strip() or repr(t)} ×{n}" for t, n in holders)
    return (
        f"'{letter}' occurs {count} times, inside {len(holders)} of the {len(ids)} tokens "
        f"({where}). The model receives only the ids {ids}, never the letters, so it can count "
        f"'{letter}' only if it has memorized how each token is spelled."
    )


def show(
    text: Annotated[str, typer.Argument(help="The text to segment.", show_default=False)],
    tokenizer: Annotated[
        list[str] | None,
        typer.Option(
            "--tokenizer", "-t", help="A name or tokenizer file; repeat to compare [o200k_base]."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show TEXT cut into tokens: colored boundaries, each token's id.

    Example: tokensmith show "strawberry" -t o200k_base -t cl100k_base
    """
    from tokensmith.cli.compare import load_all

    with user_errors():
        loaded = load_all(tokenizer or ["o200k_base"])
        cuts = {name: segment(adapter, text) for name, adapter in loaded.items()}
    if as_json:
        doc = {
            "text": text,
            "n_chars": len(text),
            "tokenizers": {
                name: {
                    "n_tokens": sum(len(p.ids) for p in pieces),
                    "pieces": [{"ids": list(p.ids), "text": p.text} for p in pieces],
                }
                for name, pieces in cuts.items()
            },
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    console = Console()
    for name, pieces in cuts.items():
        n = sum(len(p.ids) for p in pieces)
        console.print(f"[bold]{name}[/bold]: {n} tokens for {len(text)} characters")
        console.print(colored(pieces))
        console.print(
            "  ".join(f"{' '.join(map(str, p.ids))}:{visible(p.text)!r}" for p in pieces),
            markup=False,
            highlight=False,
        )
        note = letter_note(text, pieces)
        if note:
            console.print(note, highlight=False)
        console.print()
