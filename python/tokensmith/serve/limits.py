"""The guard every request passes: body size, time, and origin.

- A body larger than ``max_body`` gets **413**: at once when ``Content-Length`` says so, or as
  soon as the streamed bytes pass the limit.
- A request whose response has not started within ``time_limit`` seconds gets **408**: a body
  that trickles in, or work that takes too long. A response already streaming (the training
  progress events) is not cut.
- A request that carries an ``Origin`` other than the server's own gets **403**, so a page on
  another site cannot drive this server from a visitor's browser. No CORS header is ever sent.
- While the server listens on loopback only, a request whose ``Host`` is not a loopback name
  gets **403** too: a site whose name an attacker points at 127.0.0.1 (DNS rebinding) would
  otherwise count as the server's own origin.
- Every response says ``nosniff``, sends a referrer only to itself, may not be framed, and carries a
  Content-Security-Policy that allows only this server's own scripts, unless the handler set
  a stricter one.

Written as plain ASGI middleware, so it sees the raw byte stream before any handler parses it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import anyio

__all__ = ["RequestGuard"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
_SAFETY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


def _with_safety_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    out = list(headers) + _SAFETY_HEADERS
    if not any(name.lower() == b"content-security-policy" for name, _ in headers):
        out.append((b"content-security-policy", PAGE_CSP.encode()))
    return out


async def _reply(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = _with_safety_headers(
        [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
    )
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _loopback_host(scope: Scope) -> bool:
    from tokensmith.serve.config import is_loopback

    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
    name = urlsplit("//" + host).hostname or ""
    return is_loopback(name)


def _same_origin(scope: Scope) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = headers.get(b"host", b"").decode("latin-1")
    parts = urlsplit(origin.decode("latin-1"))
    return parts.scheme in ("http", "https") and parts.netloc == host


class RequestGuard:
    """Wraps an ASGI app with the size, time and origin rules above."""

    def __init__(
        self, app: ASGIApp, *, max_body: int, time_limit: float, loopback_only: bool = True
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.time_limit = time_limit
        self.loopback_only = loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not _same_origin(scope):
            await _reply(send, 403, "requests from other origins are refused")
            return
        if self.loopback_only and not _loopback_host(scope):
            await _reply(send, 403, "this server answers only to a loopback host name")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await _reply(send, 413, f"the request body is larger than {self.max_body} bytes")
            return
        started = False
        refused = False
        seen = 0

        async def counted_receive() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body and not started:
                    # Answer now, and tell the app the client is gone so it stops reading.
                    refused = True
                    await _reply(
                        send, 413, f"the request body is larger than {self.max_body} bytes"
                    )
                    return {"type": "http.disconnect"}
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": _with_safety_headers(message.get("headers", []))}
            await send(message)

        async def run() -> None:
            try:
                await self.app(scope, counted_receive, watched_send)
            except Exception:
                if not refused:
                    raise

        timed_out = await self._within_limit(run, lambda: started or refused)
        if timed_out and not started and not refused:
            await _reply(send, 408, f"the request took longer than {self.time_limit:g} s")

    async def _within_limit(
        self, run: Callable[[], Awaitable[None]], started: Callable[[], bool]
    ) -> bool:
        """Runs ``run``; if its response has not started when the time is up, cancels it and
        returns True. A response already under way runs to its end."""
        timed_out = False
        async with anyio.create_task_group() as group:

            async def watchdog() -> None:
                nonlocal timed_out
                await anyio.sleep(self.time_limit)
                if not started():
                    timed_out = True
                    group.cancel_scope.cancel()

            group.start_soon(watchdog)
            await run()
            group.cancel_scope.cancel()
        return timed_out
