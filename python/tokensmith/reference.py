"""Reference-library objects built offline from the vocabularies bundled in tokensmith.

tiktoken downloads its vocabularies on first use. It first looks in ``TIKTOKEN_CACHE_DIR``
for a file named after the SHA-1 of the download URL, and checks its SHA-256. Placing the
bundled files there lets ``tiktoken.get_encoding`` build its own encoding, with its own pattern
and special tokens, and with no network: the most faithful reference for parity checks.

>>> from tokensmith.reference import tiktoken_encoding
>>> tiktoken_encoding("cl100k_base").encode("hello")
[15339]
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from tokensmith.errors import InvalidArgumentError
from tokensmith.registry import BUNDLED, vocab_path

_URLS = {
    "cl100k_base.tiktoken.gz": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base.tiktoken.gz": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
_lock = threading.Lock()


def tiktoken_cache_dir() -> Path:
    """A directory laid out as tiktoken's download cache, holding the bundled vocabularies."""
    root = Path(tempfile.gettempdir()) / f"tokensmith-tiktoken-cache-{os.getuid()}"
    root.mkdir(parents=True, exist_ok=True)
    for filename, url in _URLS.items():
        target = root / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            data = gzip.decompress(Path(str(vocab_path(filename))).read_bytes())
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
    return root


def tiktoken_encoding(name: str) -> Any:
    """``tiktoken.get_encoding(name)`` for a bundled encoding, with no network.

    Raises ImportError if tiktoken is not installed.
    """
    import tiktoken

    if name not in BUNDLED:
        raise InvalidArgumentError(f"{name!r} is not bundled; bundled: {', '.join(BUNDLED)}")
    with _lock:
        old = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir())
        try:
            return tiktoken.get_encoding(name)
        finally:
            if old is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = old
