"""How every command reports a failure: ``error: MESSAGE`` on stderr, no traceback, and exit
code 2 for bad input or 1 for a failed operation.

Messages are printed as plain text (no markup, no highlighting) and never wrapped, so a path or
option in them can be copied from the terminal as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from tokensmith.errors import TokensmithError

#: Messages and progress go to stderr, so ``--json`` output on stdout stays parseable.
err_console = Console(stderr=True)


def print_error(message: object) -> None:
    """Prints ``error: MESSAGE`` on stderr, unwrapped and with MESSAGE taken literally."""
    err_console.print(f"[red]error:[/red] {escape(str(message))}", highlight=False, soft_wrap=True)


def fail(message: object, code: int = 2) -> typer.Exit:
    """Prints ``message`` as an error; returns the ``typer.Exit`` to raise: ``raise fail(e)``."""
    print_error(message)
    return typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turns a tokensmith error (unknown tokenizer, missing file, empty corpus, ...) into
    ``error: MESSAGE`` on stderr and exit code 2, without a traceback."""
    try:
        yield
    # OSError: unreadable or corrupt (.gz) inputs; UnicodeDecodeError: a file that is not UTF-8.
    except (TokensmithError, OSError, UnicodeDecodeError) as e:
        raise fail(e) from None
