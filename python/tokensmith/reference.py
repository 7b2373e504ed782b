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

_BLOB = "https://openaipublic.blob.core.windows.net/"
_URLS = {
    f"{stem}.tiktoken.gz": f"{_BLOB}encodings/{stem}.tiktoken"
    for stem in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")
}
# tiktoken builds gpt2 from GPT-2's data-gym files, which tokensmith does not bundle (gpt2
# reads r50k_base's identical ranks); pass a folder holding them gzipped to build it.
_DATA_GYM_URLS = {
    "vocab.bpe.gz": f"{_BLOB}gpt-2/encodings/main/vocab.bpe",
    "encoder.json.gz": f"{_BLOB}gpt-2/encodings/main/encoder.json",
}
_lock = threading.Lock()


def tiktoken_cache_dir(data_gym_dir: Path | None = None) -> Path:
    """A directory laid out as tiktoken's download cache, holding the bundled vocabularies
    (and GPT-2's data-gym files, gzipped in ``data_gym_dir``, when given)."""
    root = Path(tempfile.gettempdir()) / f"tokensmith-tiktoken-cache-{os.getuid()}"
    root.mkdir(parents=True, exist_ok=True)
    sources = {url: vocab_path(filename) for filename, url in _URLS.items()}
    if data_gym_dir is not None:
        sources |= {url: data_gym_dir / filename for filename, url in _DATA_GYM_URLS.items()}
    for url, source in sources.items():
        target = root / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            data = gzip.decompress(Path(str(source)).read_bytes())
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
    return root


def tiktoken_encoding(name: str, *, data_gym_dir: Path | None = None) -> Any:
    """``tiktoken.get_encoding(name)`` for a bundled encoding, with no network.

    ``gpt2`` needs ``data_gym_dir``: a folder with ``vocab.bpe.gz`` and ``encoder.json.gz``.
    Raises ImportError if tiktoken is not installed.
    """
    import tiktoken

    if name not in BUNDLED:
        raise InvalidArgumentError(f"{name!r} is not bundled; bundled: {', '.join(BUNDLED)}")
    if name == "gpt2" and data_gym_dir is None:
        raise InvalidArgumentError(
            "tiktoken builds gpt2 from GPT-2's data-gym files: pass data_gym_dir"
        )
    with _lock:
        old = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir(data_gym_dir))
        try:
            return tiktoken.get_encoding(name)
        finally:
            if old is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = old
