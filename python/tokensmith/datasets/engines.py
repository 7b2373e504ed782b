"""Where batches of documents are encoded: on this machine, or on a Ray cluster.

Both engines yield ``(batch, tokens, offsets)`` in input order, so everything after encoding
(cutting shards, writing them atomically, the manifest) is the same code for both, and the
shards are byte-identical whichever engine made them.

- ``local``: tokensmith's Rust threads (``encode_ordinary_batch_to_numpy``, GIL released).
- ``ray``: each batch is a Ray task on one CPU of the cluster; up to two tasks per CPU are in
  flight, and results are taken in order. The encoding is shipped to the workers once
  (bundled encodings pickle by name, others by their ranks). Reading the inputs and writing
  the shards stay on the driver, so output order and bytes never depend on the cluster.

Ray is optional: ``pip install ray``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Literal

import numpy as np

from tokensmith._ray import ray_module
from tokensmith.encoding import Encoding

Engine = Literal["local", "ray"]
Encoded = tuple[Any, np.ndarray[Any, Any], np.ndarray[Any, Any]]


def encode_batches(
    enc: Encoding,
    batches: Iterable[Any],
    texts_of: Any,
    *,
    engine: Engine = "local",
    workers: int = 1,
    address: str | None = None,
) -> Iterator[Encoded]:
    """Encodes each batch (``texts_of(batch)`` gives its strings), in order."""
    if engine == "local":
        for batch in batches:
            toks, offs = enc.encode_ordinary_batch_to_numpy(texts_of(batch), num_threads=workers)
            yield batch, toks, offs
    elif engine == "ray":
        yield from _ray_batches(enc, batches, texts_of, address)
    else:
        raise ValueError(f"engine must be 'local' or 'ray', not {engine!r}")


def _encode_texts(enc: Encoding, texts: list[str]) -> tuple[Any, Any]:
    return enc.encode_ordinary_batch_to_numpy(texts, num_threads=1)


def _ray_batches(
    enc: Encoding, batches: Iterable[Any], texts_of: Any, address: str | None
) -> Iterator[Encoded]:
    ray = ray_module(address)
    encode = ray.remote(num_cpus=1)(_encode_texts)
    enc_ref = ray.put(enc)
    window = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: deque[tuple[Any, Any]] = deque()
    for batch in batches:
        pending.append((batch, encode.remote(enc_ref, texts_of(batch))))
        if len(pending) >= window:
            done, ref = pending.popleft()
            toks, offs = ray.get(ref)
            yield done, toks, offs
    while pending:
        done, ref = pending.popleft()
        toks, offs = ray.get(ref)
        yield done, toks, offs
