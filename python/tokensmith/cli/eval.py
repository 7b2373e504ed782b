"""Registers the evaluation commands (``compare``, ``show``, ``quickstart``) on the CLI app,
and holds what they share: turning tokensmith errors into a message and exit code 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from tokensmith.errors import TokensmithError

#: Messages and progress go to stderr, so ``--json`` output on stdout stays parseable.
err_console = Console(stderr=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turns a tokensmith error (unknown tokenizer, missing file, empty corpus, ...) into
    ``error: MESSAGE`` on stderr and exit code 2, without a traceback."""
    try:
        yield
    # OSError: unreadable or corrupt (.gz) inputs; UnicodeDecodeError: a file that is not UTF-8.
    except (TokensmithError, OSError, UnicodeDecodeError) as e:
        err_console.print(f"[red]error:[/red] {e}", highlight=False)
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Adds ``compare``, ``show``, ``quickstart`` and ``chat-cost`` to ``app``."""
    from tokensmith.cli.chat import chat_cost
    from tokensmith.cli.compare import compare
    from tokensmith.cli.quickstart import quickstart
    from tokensmith.cli.show import show

    app.command()(quickstart)
    app.command()(compare)
    app.command()(show)
    app.command("chat-cost")(chat_cost)
