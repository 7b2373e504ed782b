"""Registers the evaluation commands (``compare``, ``show``, ``quickstart``) on the CLI app,
whose errors :mod:`tokensmith.cli.errors` reports."""

from __future__ import annotations

import typer


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
