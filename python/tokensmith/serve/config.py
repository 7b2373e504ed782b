"""What ``tokensmith serve`` is started with, and the rule for which hosts it may bind.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ServeConfig", "is_loopback"]

#: 10 MB of text plus room for the rest of a request.
DEFAULT_MAX_BODY = 12 * 1024 * 1024


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost`` or a loopback address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServeConfig:
    """The server's settings.

    Attributes:
        root: The only folder tokenizer files are read from (``--dir``), or None for none.
        tokenizers: Tokenizers named on the command line (bundled names or paths); the
            operator chose them, so their paths need not lie under ``root``.
        max_body: The largest request body, in bytes; a larger one gets 413.
        time_limit: Seconds a request may take until its response starts; then 408.
        max_text_bytes: The largest text the page may send to be tokenized.
        loopback_only: Answer only requests addressed to a loopback host name (the server
            listens on loopback); False with ``--allow-remote``.
    """

    root: Path | None = None
    tokenizers: tuple[str, ...] = ()
    max_body: int = DEFAULT_MAX_BODY
    time_limit: float = 30.0
    max_text_bytes: int = 10 * 1024 * 1024
    loopback_only: bool = True
    bundled: tuple[str, ...] = field(default=("o200k_base", "cl100k_base", "o200k_harmony"))
