"""``tokensmith serve``: the playground page on this machine.

>>> from typer.testing import CliRunner
>>> app = typer.Typer()
>>> _ = app.command()(serve)
>>> result = CliRunner().invoke(app, ["--host", "0.0.0.0"])
>>> result.exit_code, "--allow-remote" in result.output
(2, True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from tokensmith.cli.errors import err_console, user_errors

__all__ = ["serve"]


def serve(
    tokenizers: Annotated[
        list[str] | None,
        typer.Argument(
            help="Tokenizers to offer: bundled names or files (any path).", show_default=False
        ),
    ] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port (0: any free one).")] = 8765,
    folder: Annotated[
        Path | None,
        typer.Option(
            "--dir", help="Offer the tokenizer files under this folder (and read no other)."
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(help="Allow a --host that other machines can reach (no authentication!)."),
    ] = False,
    max_body_mb: Annotated[
        float, typer.Option(min=0.001, help="The largest request body, in MB (413 beyond).")
    ] = 12.0,
    time_limit: Annotated[
        float, typer.Option(min=0.1, help="Seconds a request may take (408 beyond).")
    ] = 30.0,
) -> None:
    """Start the playground: see, compare and train tokenizers in the browser.

    Example: tokensmith serve --dir models/ my.tiktoken   (then open http://127.0.0.1:8765/)
    """
    with user_errors():
        try:
            from tokensmith.serve.catalog import Catalog
            from tokensmith.serve.config import ServeConfig, is_loopback
            from tokensmith.serve.server import bind_socket, run
        except ImportError as e:
            from tokensmith.errors import MissingDependencyError

            raise MissingDependencyError(
                f"tokensmith serve needs starlette and uvicorn ({e}): "
                "pip install 'tokensmith[serve]'"
            ) from None
        if folder is not None and not folder.is_dir():
            from tokensmith.errors import InputNotFoundError

            raise InputNotFoundError(f"--dir {folder}: no such folder")
        config = ServeConfig(
            root=folder.resolve() if folder is not None else None,
            tokenizers=tuple(
                os.path.abspath(t) if os.path.exists(t) else t for t in tokenizers or ()
            ),
            max_body=int(max_body_mb * 1024 * 1024),
            time_limit=time_limit,
            loopback_only=is_loopback(host),
        )
        catalog = Catalog(config)
        for i in range(len(config.tokenizers)):
            catalog.get(f"arg:{i}")  # a bad tokenizer fails now, not in the page
        sock = bind_socket(host, port, allow_remote=allow_remote)
    try:
        run(
            config,
            sock,
            catalog=catalog,
            announce=lambda line: err_console.print(line, highlight=False),
        )
    except KeyboardInterrupt:
        pass
