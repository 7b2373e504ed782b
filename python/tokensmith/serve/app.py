"""The web application: the page's static files, the API, and the guard around both.

>>> app = create_app(ServeConfig())
>>> type(app).__name__
'RequestGuard'
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tokensmith.serve.catalog import Catalog
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.limits import ASGIApp, RequestGuard
from tokensmith.serve.routes import api_routes
from tokensmith.serve.training import TrainJobs

__all__ = ["STATIC", "create_app"]

#: The page: plain HTML, CSS and JavaScript modules, no build step.
STATIC = Path(__file__).resolve().parent / "static"


def create_app(config: ServeConfig, *, catalog: Catalog | None = None) -> ASGIApp:
    """The ASGI app for ``config`` (``catalog`` to share one already loaded)."""
    catalog = catalog or Catalog(config)
    jobs = TrainJobs(lambda tokenizer, label: catalog.add_trained(tokenizer, label=label))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/", index),
        *api_routes(catalog, jobs),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    return RequestGuard(
        app,
        max_body=config.max_body,
        time_limit=config.time_limit,
        loopback_only=config.loopback_only,
    )
