"""Input files read by Ray Data on the cluster's workers, in order, with tokensmith's reader.

:func:`records_dataset` makes a Ray ``Dataset`` whose rows are the records of the files, in
the order of the files and of their lines. Each file is read by one task with
:func:`tokensmith.records.read_file`, the reader the local engine and training use: the same
documents, the same UTF-8 handling, and the same errors, naming the file and line (raised on
the worker, re-raised here as the original exception by :func:`tokensmith._ray.unwrap`).
Ray Data's own readers (``read_text``, ``read_json``, ``read_parquet``) split, skip and decode
differently and do not give line numbers, so they are not used.

Rows have the columns ``text`` (null in a row that only carries statistics), the
:data:`STATS` counts (what reading saw since the file's previous row) and ``first_skip`` (the
first skipped record's message, once). :func:`add_stats` folds those into a
:class:`~tokensmith.records.ReadStats`.

The execution keeps the order of blocks (``preserve_order``), so anything mapped over the rows
sees the documents in input order, whatever the number of workers.

Not handled: splitting one file among several tasks (a file is read by one worker; the
encoding after it runs in parallel).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tokensmith._ray import original_message
from tokensmith.records import Kind, ReadOptions, ReadStats, read_file

# Records per output table of a read task (or fewer, at this many characters).
ROWS_PER_TABLE = 8192
CHARS_PER_TABLE = 1 << 22
# Read tasks reserve no CPU, so that they are not fused with the stage after them (which
# reserves one) and leave every CPU to it: one file's documents are encoded by every worker
# while it is read. As many read tasks run at once as the cluster has CPUs (or files).
READ_CPUS = 0.0
# The ReadStats counts that rows carry.
STATS = ("lines", "bytes", "skipped", "replaced")


def records_dataset(ray: Any, files: Sequence[tuple[str, Kind]], opts: ReadOptions) -> Any:
    """A Ray ``Dataset`` of the records of ``files`` (``(path, kind)``), read by ``opts``."""
    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    items = [{"path": path, "kind": kind} for path, kind in files]
    ds = ray.data.from_items(items, override_num_blocks=max(1, len(items)))
    return ds.map_batches(
        _read_files,
        batch_size=1,
        batch_format="pyarrow",
        fn_kwargs={"opts": opts},
        num_cpus=READ_CPUS,
        concurrency=max(1, min(len(items), int(ray.cluster_resources().get("CPU", 1)))),
    )


def _read_files(batch: Any, opts: ReadOptions) -> Iterator[Any]:
    """The records of the files named in ``batch``, as pyarrow tables."""
    paths, kinds = batch.column("path").to_pylist(), batch.column("kind").to_pylist()
    with original_message():
        for path, kind in zip(paths, kinds, strict=True):
            yield from _read_one(path, kind, opts)


def _read_one(path: str, kind: Kind, opts: ReadOptions) -> Iterator[Any]:
    stats = ReadStats()
    reported = ReadStats()
    texts: list[str | None] = []
    chars = 0
    for record in read_file(path, kind, opts, stats):
        texts.append(record.text)
        chars += len(record.text)
        if len(texts) >= ROWS_PER_TABLE or chars >= CHARS_PER_TABLE:
            yield _table(texts, stats, reported)
            texts, chars = [], 0
    yield _table(texts or [None], stats, reported)


def _table(texts: list[str | None], stats: ReadStats, reported: ReadStats) -> Any:
    """``texts`` with the statistics gathered since ``reported`` on the first row."""
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]

    n = len(texts)
    pad = [0] * (n - 1)
    first = None
    if stats.first_skip is not None and reported.first_skip is None:
        first = reported.first_skip = stats.first_skip
    columns: dict[str, Any] = {"text": pa.array(texts, pa.large_string())}
    for name in STATS:
        delta = getattr(stats, name) - getattr(reported, name)
        columns[name] = pa.array([delta, *pad], pa.int64())
        setattr(reported, name, getattr(stats, name))
    columns["first_skip"] = pa.array([first, *([None] * (n - 1))], pa.large_string())
    table = pa.table(columns)
    return table


def sum_stats(batch: Any) -> dict[str, Any]:
    """The statistics of a table of rows (or of one-row summaries), summed."""
    total: dict[str, Any] = {name: sum(batch.column(name).to_pylist()) for name in STATS}
    skips = [s for s in batch.column("first_skip").to_pylist() if s is not None]
    total["first_skip"] = skips[0] if skips else None
    return total


def stats_columns(stats: dict[str, Any]) -> dict[str, Any]:
    """One-row pyarrow columns of :func:`sum_stats`' result."""
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]

    columns = {name: pa.array([stats[name]], pa.int64()) for name in STATS}
    columns["first_skip"] = pa.array([stats["first_skip"]], pa.large_string())
    return columns


def add_stats(stats: ReadStats, row: dict[str, Any]) -> None:
    """Adds one row's statistics to ``stats``; the first skip seen stays."""
    for name in STATS:
        setattr(stats, name, getattr(stats, name) + row[name])
    if stats.first_skip is None and row["first_skip"] is not None:
        stats.first_skip = row["first_skip"]
