"""The HTTP endpoints: thin glue from requests to the catalog, the segmenters, the chat view,
training, downloads and reports. Heavy work runs in a worker thread (the Rust core releases
the GIL), abandoned if the request's time limit passes first.

=========================  ==========================================================
``GET  /api/tokenizers``   what the picker offers, the algorithms and the limits
``POST /api/tokenize``     the body's text cut by ``?t=KEY`` (1–4): binary, see ``wire``
``GET  /api/piece``        one token (``?t=KEY&id=N``) for the hover card
``POST /api/chat``         a conversation through a chat template, counted
``POST /api/train``        starts training; ``GET /api/train/ID/events`` follows it (SSE)
``GET  /api/download/KEY`` a trained tokenizer as files (``?format=...``)
``POST /api/save/KEY``     a trained tokenizer saved into ``--dir``, listed from then on
``POST /api/report``       the ``compare`` HTML report of a form's text and tokenizers
=========================  ==========================================================
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tokensmith.errors import TokensmithError, UnknownTokenizerError
from tokensmith.serve.catalog import Catalog
from tokensmith.serve.chat_view import chat_view, template_names
from tokensmith.serve.downloads import download, formats_for
from tokensmith.serve.pieces import describe
from tokensmith.serve.report_view import adapter_of, report_for_text
from tokensmith.serve.safe_paths import PathRefusedError
from tokensmith.serve.saving import NoSaveFolderError
from tokensmith.serve.segmenter import Cut, Segmenter, TextLayout
from tokensmith.serve.training import ALGORITHMS, TrainJobs
from tokensmith.serve.wire import labels_for, pack

__all__ = ["api_routes"]

T = TypeVar("T")
MAX_TOKENIZERS = 4
_REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


class BadRequest(Exception):
    """A request the page should not have sent; its message is shown."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def error_response(error: Exception) -> JSONResponse:
    """A JSON ``{"error": ...}`` with the status that fits ``error``."""
    if isinstance(error, BadRequest):
        status = error.status
    elif isinstance(error, PathRefusedError):
        status = 403
    elif isinstance(error, UnknownTokenizerError):
        status = 404
    elif isinstance(error, NoSaveFolderError):
        status = 409
    else:
        status = 400
    return JSONResponse({"error": str(error)}, status_code=status)


async def in_thread(work: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)


def _keys(values: list[str]) -> list[str]:
    if not 1 <= len(values) <= MAX_TOKENIZERS:
        raise BadRequest(f"pick 1 to {MAX_TOKENIZERS} tokenizers, not {len(values)}")
    return values


def _text(body: bytes, limit: int) -> str:
    if len(body) > limit:
        raise BadRequest(f"the text is larger than {limit} bytes", status=413)
    return body.decode("utf-8", errors="replace")


async def _json(request: Request) -> dict[str, Any]:
    try:
        doc = json.loads(await request.body())
    except ValueError as e:
        raise BadRequest(f"the request body is not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise BadRequest("the request body must be a JSON object")
    return doc


def api_routes(catalog: Catalog, jobs: TrainJobs) -> list[Route]:
    """The API's routes over ``catalog`` and ``jobs``."""
    limit = catalog.config.max_text_bytes

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def call(request: Request) -> Response:
            try:
                response: Response = await handler(request)
                return response
            except (TokensmithError, BadRequest) as e:
                return error_response(e)

        return call

    async def tokenizers(request: Request) -> Response:
        entries = await in_thread(catalog.entries)
        listed = []
        for e in entries:
            item: dict[str, Any] = {"key": e.key, "label": e.label, "source": e.source}
            if e.source == "trained":
                item["formats"] = formats_for(catalog.trained_object(e.key))
            listed.append(item)
        return JSONResponse(
            {
                "tokenizers": listed,
                "algorithms": ALGORITHMS,
                "max_tokenizers": MAX_TOKENIZERS,
                "max_text_bytes": limit,
            }
        )

    async def tokenize(request: Request) -> Response:
        keys = _keys(request.query_params.getlist("t"))
        text = _text(await request.body(), limit)

        def work() -> bytes:
            layout = TextLayout.of(text)

            def one(key: str) -> tuple[str, str, Cut, dict[str, str]]:
                seg = catalog.get(key)
                cut = seg.segment(layout)
                return key, seg.label, cut, labels_for(seg, cut, layout)

            # The Rust encoders release the GIL: the tokenizers run side by side.
            with ThreadPoolExecutor(max_workers=len(keys)) as pool:
                items = list(pool.map(one, keys))
            return pack(n_bytes=layout.n_bytes, n_chars=len(text), items=items)

        return Response(await in_thread(work), media_type="application/octet-stream")

    async def piece(request: Request) -> Response:
        key = request.query_params.get("t", "")
        raw_id = request.query_params.get("id", "")
        if not raw_id.isdigit():
            raise BadRequest("id must be a token id")
        seg = await in_thread(lambda: catalog.get(key))
        info = describe(seg.piece(int(raw_id)))
        return JSONResponse({"id": int(raw_id), "tokenizer": seg.label, **info})

    async def chat(request: Request) -> Response:
        doc = await _json(request)
        keys = _keys(doc.get("tokenizers") or [])
        template = str(doc.get("template") or "chatml")
        window = doc.get("context_window", 8192)
        if not isinstance(window, int) or window < 1:
            raise BadRequest("context_window must be a positive integer")

        def one(seg: Segmenter) -> dict[str, Any]:
            names = template_names(seg)
            try:
                view = chat_view(seg, doc.get("messages"), template=template, context_window=window)
            except TokensmithError as e:
                return {"tokenizer": seg.label, "error": str(e), "templates": names}
            return {**view, "templates": names}

        views = await in_thread(lambda: [one(catalog.get(k)) for k in keys])
        return JSONResponse({"views": views})

    async def train(request: Request) -> Response:
        doc = await _json(request)
        text = doc.get("text")
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("paste or upload some text to train on")
        if len(text.encode("utf-8")) > limit:
            raise BadRequest(f"the training text is larger than {limit} bytes", status=413)
        job = jobs.start(
            text=text,
            algorithm=str(doc.get("algorithm", "bpe")),
            vocab_size=doc.get("vocab_size", 1000),
            name=str(doc.get("name") or "")[:40],
        )
        return JSONResponse({"job": job.id})

    async def train_events(request: Request) -> Response:
        job = jobs.get(request.path_params["job"])
        if job is None:
            raise BadRequest("no such training job", status=404)

        async def stream() -> AsyncIterator[str]:
            sent = 0
            while True:
                finished = job.finished.is_set()
                events = job.events[sent:]
                for event in events:
                    yield f"data: {json.dumps(event)}\n\n"
                sent += len(events)
                if finished and sent == len(job.events):
                    return
                await asyncio.sleep(0.05)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def download_file(request: Request) -> Response:
        tokenizer = catalog.trained_object(request.path_params["key"])
        fmt = request.query_params.get("format", "all")
        name, data = await in_thread(lambda: download(tokenizer, fmt))
        disposition = f'attachment; filename="{name}"'
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": disposition},
        )

    async def save(request: Request) -> Response:
        key = request.path_params["key"]
        rel = await in_thread(lambda: catalog.save(key))
        return JSONResponse({"path": rel, "key": f"dir:{rel}"})

    async def report(request: Request) -> Response:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        keys = _keys(form.get("t", []))
        text = _text("".join(form.get("text", [])).encode("utf-8"), limit)

        def work() -> str:
            adapters = {}
            for key in keys:
                seg = catalog.get(key)
                name = seg.label if seg.label not in adapters else f"{seg.label} ({key})"
                adapters[name] = adapter_of(seg)
            return report_for_text(adapters, text)

        html = await in_thread(work)
        return Response(
            html, media_type="text/html", headers={"Content-Security-Policy": _REPORT_CSP}
        )

    return [
        Route("/api/tokenizers", guarded(tokenizers)),
        Route("/api/tokenize", guarded(tokenize), methods=["POST"]),
        Route("/api/piece", guarded(piece)),
        Route("/api/chat", guarded(chat), methods=["POST"]),
        Route("/api/train", guarded(train), methods=["POST"]),
        Route("/api/train/{job}/events", guarded(train_events)),
        Route("/api/download/{key}", guarded(download_file)),
        Route("/api/save/{key}", guarded(save), methods=["POST"]),
        Route("/api/report", guarded(report), methods=["POST"]),
    ]
