"""Where batches of documents are encoded and shards written: here, or on a Ray cluster.

Both engines yield ``(batch, tokens, lengths)`` in input order, the tokens already in the
shard dtype with BOS/EOS added, so cutting shards and keeping the manifest is the same code
for both, and the shards are byte-identical whichever engine made them.

- ``local``: tokensmith's Rust threads (``encode_ordinary_batch_to_numpy``, GIL released),
  and the shards are written by this process.
- ``ray``: each batch is a Ray task on one CPU of the cluster (up to two tasks per CPU in
  flight, results taken in order); the encoding is shipped to the workers once (bundled
  encodings pickle by name, others by their ranks). A task returns its tokens and their
  per-document lengths as two objects: only the lengths come back here, to decide where
  shards end; the tokens stay in the cluster's object store as :class:`RemoteTokens`, and a
  worker writes each shard from them (:class:`RemoteShard`), atomically as the local engine
  does. The output directory must therefore be on a file system every node sees (on one
  machine, any directory). The driver reads the inputs and keeps the manifest.

Not handled: reading the inputs on the workers (with Ray Data); the driver reads them, which
is not the bottleneck next to encoding. Ray is optional: ``pip install ray``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tokensmith._ray import ray_module
from tokensmith.datasets.formats import Format, open_shard
from tokensmith.datasets.shard import ShardWriter
from tokensmith.datasets.specials import add_specials
from tokensmith.encoding import Encoding

Engine = Literal["local", "ray"]
Encoded = tuple[Any, Any, np.ndarray[Any, Any]]


@dataclass(frozen=True)
class Specials:
    """What every engine adds to the encoded batch: BOS/EOS ids and the shard dtype."""

    bos: int | None
    eos: int | None
    dtype: np.dtype[np.generic]


def encode_batches(
    enc: Encoding,
    batches: Iterable[Any],
    texts_of: Any,
    specials: Specials,
    *,
    engine: Engine = "local",
    workers: int = 1,
    address: str | None = None,
) -> Iterator[Encoded]:
    """Encodes each batch (``texts_of(batch)`` gives its strings), in order."""
    if engine == "local":
        for batch in batches:
            yield (batch, *_encode_texts(enc, texts_of(batch), specials, workers))
    elif engine == "ray":
        yield from _ray_batches(enc, batches, texts_of, specials, address)
    else:
        raise ValueError(f"engine must be 'local' or 'ray', not {engine!r}")


def _encode_texts(
    enc: Encoding, texts: list[str], specials: Specials, threads: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    toks, offs = enc.encode_ordinary_batch_to_numpy(texts, num_threads=threads)
    lengths = np.diff(offs).astype(np.int64)
    toks, lengths = add_specials(toks, lengths, bos=specials.bos, eos=specials.eos)
    return toks.astype(specials.dtype), lengths


def _encode_on_worker(
    enc: Encoding, texts: list[str], specials: Specials
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    return _encode_texts(enc, texts, specials, 1)


@dataclass(frozen=True)
class RemoteTokens:
    """Tokens ``[start, stop)`` of an array held in the Ray object store; slicing gives a
    narrower window of the same array, as :class:`~tokensmith.datasets.encode` cuts shards.

    >>> window = RemoteTokens("ref", 10, 20)
    >>> window[2:5], len(window[7:])
    (RemoteTokens(ref='ref', start=12, stop=15), 3)
    """

    ref: Any
    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, window: slice) -> RemoteTokens:
        lo, hi, _ = window.indices(len(self))
        return RemoteTokens(self.ref, self.start + lo, self.start + hi)


def _ray_batches(
    enc: Encoding, batches: Iterable[Any], texts_of: Any, specials: Specials, address: str | None
) -> Iterator[Encoded]:
    ray = ray_module(address)
    encode = ray.remote(num_cpus=1, num_returns=2)(_encode_on_worker)
    enc_ref = ray.put(enc)
    window = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: deque[tuple[Any, Any, Any]] = deque()

    def oldest() -> Encoded:
        batch, toks_ref, lengths_ref = pending.popleft()
        lengths: np.ndarray[Any, Any] = ray.get(lengths_ref)
        return batch, RemoteTokens(toks_ref, 0, int(lengths.sum())), lengths

    for batch in batches:
        pending.append((batch, *encode.remote(enc_ref, texts_of(batch), specials)))
        if len(pending) >= window:
            yield oldest()
    while pending:
        yield oldest()


def shard_opener(engine: Engine) -> Any:
    """``open(fmt, out_dir, index, dtype) -> ShardWriter`` for ``engine``'s tokens."""
    return RemoteShard if engine == "ray" else open_shard


@dataclass
class RemoteShard:
    """A shard that a Ray worker writes from :class:`RemoteTokens` pieces (same calling
    sequence as :class:`~tokensmith.datasets.shard.ShardWriter`)."""

    fmt: Format
    out_dir: Path
    index: int
    dtype: np.dtype[np.generic]
    pieces: list[RemoteTokens] = field(default_factory=list)
    lengths: list[np.ndarray[Any, Any]] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)

    def add(self, tokens: RemoteTokens, lengths: np.ndarray[Any, Any]) -> None:
        self.pieces.append(tokens)
        self.lengths.append(lengths)

    def finish(self) -> None:
        ray = ray_module(None)
        write = ray.remote(num_cpus=1)(_write_on_worker)
        windows = [(p.start, p.stop) for p in self.pieces]
        refs = [p.ref for p in self.pieces]
        spec = (self.fmt, str(self.out_dir), self.index, self.dtype)
        self.paths = [Path(p) for p in ray.get(write.remote(spec, windows, self.lengths, *refs))]

    def commit(self) -> list[Path]:
        return self.paths

    def abort(self) -> None:
        """Nothing to undo here: a failed worker aborts its own temporaries."""


def _write_on_worker(
    spec: tuple[Format, str, int, np.dtype[np.generic]],
    windows: list[tuple[int, int]],
    lengths: list[np.ndarray[Any, Any]],
    *arrays: np.ndarray[Any, Any],
) -> list[str]:
    fmt, out_dir, index, dtype = spec
    writer: ShardWriter = open_shard(fmt, Path(out_dir), index, dtype)
    try:
        for array, (start, stop), lens in zip(arrays, windows, lengths, strict=True):
            writer.add(array[start:stop], lens)
        writer.finish()
        return [str(p) for p in writer.commit()]
    except BaseException:
        writer.abort()
        raise
