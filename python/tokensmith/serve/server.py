"""Binding the listening socket and running uvicorn on it.

The socket is bound here, not by uvicorn, so that ``--port 0`` (any free port) can print the
real address, and so that the loopback rule is checked in one place before anything listens:
a host other than this machine's own needs ``allow_remote=True`` and prints a warning.

>>> sock = bind_socket("127.0.0.1", 0, allow_remote=False)
>>> sock.getsockname()[0]
'127.0.0.1'
>>> sock.close()
>>> try:
...     bind_socket("0.0.0.0", 0, allow_remote=False)
... except RemoteBindError as e:
...     print(e)
refusing to listen on 0.0.0.0, which other machines may reach: pass --allow-remote to do it anyway
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from typing import Any

from tokensmith.errors import TokensmithError
from tokensmith.serve.catalog import Catalog
from tokensmith.serve.config import ServeConfig, is_loopback

__all__ = ["RemoteBindError", "bind_socket", "make_server", "run"]

REMOTE_WARNING = (
    "WARNING: tokensmith serve is listening on {host}, which other machines may reach. It has "
    "no authentication: anyone who can connect can tokenize, train and read the tokenizers "
    "under --dir."
)


class RemoteBindError(TokensmithError, PermissionError):
    """A host other than loopback was asked for without ``--allow-remote``."""


def bind_socket(host: str, port: int, *, allow_remote: bool) -> socket.socket:
    """A listening TCP socket on ``host:port``.

    Raises:
        RemoteBindError: ``host`` is not a loopback address and ``allow_remote`` is False.
        OSError: the address cannot be bound (in use, unknown host).
    """
    if not is_loopback(host) and not allow_remote:
        raise RemoteBindError(
            f"refusing to listen on {host}, which other machines may reach: "
            "pass --allow-remote to do it anyway"
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def make_server(config: ServeConfig, *, catalog: Catalog | None = None) -> Any:
    """The ``uvicorn.Server`` for ``config``: quiet, with short keep-alives, a bound on
    concurrent connections and on the size of a request's headers."""
    import uvicorn

    from tokensmith.serve.app import create_app

    return uvicorn.Server(
        uvicorn.Config(
            create_app(config, catalog=catalog),
            log_level="warning",
            timeout_keep_alive=5,
            limit_concurrency=64,
            h11_max_incomplete_event_size=64 * 1024,
        )
    )


def run(
    config: ServeConfig,
    sock: socket.socket,
    *,
    catalog: Catalog | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serves the page on ``sock`` until interrupted."""
    host, port = sock.getsockname()[:2]
    if not is_loopback(host):
        print(REMOTE_WARNING.format(host=host), file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    announce(f"tokensmith playground on http://{shown}:{port}/  (Ctrl-C stops it)")
    make_server(config, catalog=catalog).run(sockets=[sock])
