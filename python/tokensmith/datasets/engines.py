"""Where documents are read and encoded: here, or on a Ray cluster.

Both engines yield :class:`Encoded` chunks in document order, the tokens already in the shard
dtype with BOS/EOS added, so cutting shards and keeping the manifest is the same code for
both, and the shards are byte-identical whichever engine made them.

- ``local``: this process reads the documents (:mod:`tokensmith.datasets.readers`) and
  encodes each batch on tokensmith's Rust threads (``encode_ordinary_batch_to_numpy``, GIL
  released).
- ``ray``: Ray Data reads the input files on the cluster's workers and encodes them there
  (:mod:`tokensmith.datasets.ray_engine`); only the tokens come back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from tokensmith.datasets.any_tokenizer import DatasetEncoder
from tokensmith.datasets.readers import Document
from tokensmith.datasets.specials import add_specials

Engine = Literal["local", "ray"]

# A batch closes at this many characters or documents; either bounds the memory one batch
# takes. Neither changes the output.
BATCH_CHARS = 1 << 22
BATCH_DOCS = 8192


@dataclass(frozen=True)
class Specials:
    """What every engine adds to the encoded batch: BOS/EOS ids and the shard dtype."""

    bos: int | None
    eos: int | None
    dtype: np.dtype[np.generic]


@dataclass(frozen=True)
class Encoded:
    """Consecutive documents, encoded: ``tokens`` (all of them, in the shard dtype), and per
    document its token count (``lengths``) and the UTF-8 bytes of its text (``text_bytes``)."""

    tokens: np.ndarray[Any, Any]
    lengths: np.ndarray[Any, Any]
    text_bytes: np.ndarray[Any, Any]


def encode_texts(
    enc: DatasetEncoder, texts: list[str], specials: Specials, threads: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The tokens of ``texts`` (BOS/EOS added, in the shard dtype) and their counts."""
    toks, offs = enc.encode_ordinary_batch_to_numpy(texts, num_threads=threads)
    lengths = np.diff(offs).astype(np.int64)
    toks, lengths = add_specials(toks, lengths, bos=specials.bos, eos=specials.eos)
    return toks.astype(specials.dtype), lengths


def utf8_sizes(texts: list[str]) -> np.ndarray[Any, Any]:
    """The UTF-8 size of each text (lone surrogates counted as they were read).

    >>> utf8_sizes(["a", "é"]).tolist()
    [1, 2]
    """
    return np.array([len(t.encode("utf-8", "surrogatepass")) for t in texts], np.int64)


def encode_local(
    enc: DatasetEncoder, docs: Iterable[Document], specials: Specials, workers: int
) -> Iterator[Encoded]:
    """The local engine: ``docs`` in batches, each encoded on ``workers`` Rust threads."""
    for batch in _batches(docs):
        texts = [d.text for d in batch]
        toks, lengths = encode_texts(enc, texts, specials, workers)
        yield Encoded(toks, lengths, utf8_sizes(texts))


def skip_documents(chunks: Iterable[Encoded], first: int) -> Iterator[Encoded]:
    """``chunks`` from document ``first`` on (the ones before are in finished shards).

    >>> one = lambda n: Encoded(np.arange(n), np.ones(n, np.int64), np.ones(n, np.int64))
    >>> [c.tokens.tolist() for c in skip_documents([one(2), one(3)], 3)]
    [[1, 2]]
    """
    seen = 0
    for chunk in chunks:
        n = len(chunk.lengths)
        if seen + n > first:
            k = max(0, first - seen)
            cut = int(chunk.lengths[:k].sum())
            yield Encoded(chunk.tokens[cut:], chunk.lengths[k:], chunk.text_bytes[k:])
        seen += n


def _batches(docs: Iterable[Document]) -> Iterator[list[Document]]:
    batch: list[Document] = []
    chars = 0
    for doc in docs:
        batch.append(doc)
        chars += len(doc.text)
        if chars >= BATCH_CHARS or len(batch) >= BATCH_DOCS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch
