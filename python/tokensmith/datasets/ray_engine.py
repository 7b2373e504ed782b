"""The Ray engine of ``encode_dataset``: Ray Data reads and encodes, the driver cuts shards.

The pipeline, all on the cluster's workers:

1. :func:`~tokensmith.datasets.ray_read.records_dataset` reads each input file in a task of
   its own, with tokensmith's reader, into tables of records;
2. ``map_batches`` encodes each batch of documents with the Rust core on one thread (the GIL
   released), adding BOS/EOS and casting to the shard dtype.

The execution keeps the order of blocks, so the driver receives the encoded documents in input
order and cuts and writes the shards with the code the local engine uses: the bytes are the
same. The driver reads no input; only tokens and per-document sizes come back to it. Resuming
skips the documents of finished shards as they arrive (they are read and encoded again, but
not written).

Not handled: HF ``datasets`` objects (they live in the driver's memory; use the local engine)
and writing the shards on the workers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tokensmith._ray import ray_module, unwrap
from tokensmith.datasets.engines import BATCH_DOCS, Encoded, Specials, encode_texts, utf8_sizes
from tokensmith.datasets.ray_read import add_stats, records_dataset, stats_columns, sum_stats
from tokensmith.encoding import Encoding
from tokensmith.records import Kind, ReadOptions, ReadStats


def encode_on_ray(
    enc: Encoding,
    files: Sequence[tuple[str, Kind]],
    opts: ReadOptions,
    specials: Specials,
    stats: ReadStats,
    address: str | None,
) -> Iterator[Encoded]:
    """The documents of ``files``, encoded on the Ray cluster at ``address`` (default: a new
    local one), in order; what reading saw is added to ``stats``."""
    if not files:
        return
    ray = ray_module(address)
    ray.data.DataContext.get_current().enable_progress_bars = False
    ds = records_dataset(ray, files, opts).map_batches(
        _encode_batch,
        batch_size=BATCH_DOCS,
        batch_format="pyarrow",
        fn_kwargs={"enc": enc, "specials": specials},
        num_cpus=1,
    )
    try:
        for table in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            for row in table.to_pylist():
                add_stats(stats, row)
                yield Encoded(
                    np.frombuffer(row["tokens"], specials.dtype),
                    np.frombuffer(row["lengths"], np.int64),
                    np.frombuffer(row["text_bytes"], np.int64),
                )
    except Exception as e:
        raise unwrap(e) from None


def _encode_batch(batch: Any, enc: Encoding, specials: Specials) -> Any:
    """One table of records to one row: its documents' tokens, token counts and UTF-8 sizes
    (as bytes), and its reading statistics."""
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]

    texts = [t for t in batch.column("text").to_pylist() if t is not None]
    toks, lengths = encode_texts(enc, texts, specials, 1)
    return pa.table(
        {
            "tokens": pa.array([toks.tobytes()], pa.large_binary()),
            "lengths": pa.array([lengths.tobytes()], pa.large_binary()),
            "text_bytes": pa.array([utf8_sizes(texts).tobytes()], pa.large_binary()),
            **stats_columns(sum_stats(batch)),
        }
    )
