"""``tokensmith serve``: a local web page to see, compare and train tokenizers.

The server is Starlette on uvicorn; the page is plain HTML, CSS and JavaScript in ``static/``.
One concept per module:

- :mod:`~tokensmith.serve.config`: the settings, and which hosts need ``--allow-remote``;
- :mod:`~tokensmith.serve.server`: binding the socket and running uvicorn;
- :mod:`~tokensmith.serve.app`: the application; :mod:`~tokensmith.serve.routes`: the API;
- :mod:`~tokensmith.serve.limits`: body size, time limit, origin and security headers;
- :mod:`~tokensmith.serve.safe_paths`: files only from ``--dir``;
- :mod:`~tokensmith.serve.catalog`: the tokenizers on offer;
- :mod:`~tokensmith.serve.segmenter`: ids with byte spans;
- :mod:`~tokensmith.serve.wire`: the binary tokenize answer (:mod:`~tokensmith.serve.varint`:
  its varints);
  :mod:`~tokensmith.serve.pieces`: tokens written readably;
- :mod:`~tokensmith.serve.chat_view`, :mod:`~tokensmith.serve.training`,
  :mod:`~tokensmith.serve.downloads`, :mod:`~tokensmith.serve.report_view`: the other views.

Starlette and uvicorn come with the ``serve`` extra: ``pip install 'tokensmith[serve]'``.
"""

from tokensmith.serve.app import create_app
from tokensmith.serve.config import ServeConfig, is_loopback

__all__ = ["ServeConfig", "create_app", "is_loopback"]
