"""``train_unigram(..., engine="ray")``: the counting stage on a Ray cluster, the EM here.

What can be spread is the reading and the counting: each worker normalizes its sentences and
counts their words exactly as the local trainer does (``_core.count_unigram_words``, the same
Rust code, GIL released), and the partial word tables are summed in a tree of merge tasks
(fan-in 4) on the cluster. The summed table comes back to the driver, where seeding, EM and
pruning run as in local training. Counts are sums, so the table, and hence the model, is the
one local training makes.

Files are read on the workers by Ray Data, one task per file
(:mod:`tokensmith.datasets.ray_read`, tokensmith's reader with the options of
:class:`~tokensmith.corpus.Corpus`); texts given as a Python iterable (or an HF dataset) are
read here and sent in chunks of 50,000.

Not handled: ``input_sentence_size`` (a seeded sample of the whole stream) with this engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokensmith.corpus import Corpus
from tokensmith.errors import ArgumentTypeError, InvalidTrainerOptionError
from tokensmith.records import file_kind

__all__ = ["count_on_ray"]

# Texts per counting task (texts read here), rows per counting batch (files read by Ray Data),
# and how many partial tables one merge task sums.
CHUNK_TEXTS = 50_000
BATCH_ROWS = 65_536
FAN_IN = 4
# What counting saw: sentences counted, and skipped (too long, or holding U+2585).
_COUNTED = ("sentences", "too_long")


def count_on_ray(
    texts: Iterable[str],
    corpus: Corpus | None,
    options: dict[str, Any],
    address: str | None,
) -> tuple[bytes, int, int]:
    """The Unigram word table of ``texts`` (or of ``corpus``' files), counted on Ray with the
    counting ``options`` of ``_core.count_unigram_words``, as ``(word-count buffer, sentences,
    sentences skipped)``, which ``_core.train_unigram`` takes in place of texts. What the
    workers read (lines, bytes, replaced UTF-8, skipped records) is added to
    ``corpus.stats``."""
    from tokensmith._ray import ray_module, unwrap
    from tokensmith.datasets.ray_read import add_stats

    ray = ray_module(address)
    merge = ray.remote(num_cpus=1)(_merge)
    try:
        if corpus is not None and corpus.dataset is None:
            refs = _count_files(ray, corpus, options)
        else:
            count = ray.remote(num_cpus=1)(_count_chunk)
            refs = [count.remote(chunk, options) for chunk in _chunks(texts)]
        if not refs:
            refs = [ray.remote(num_cpus=1)(_count_chunk).remote([], options)]
        while len(refs) > 1:
            refs = [merge.remote(*refs[i : i + FAN_IN]) for i in range(0, len(refs), FAN_IN)]
        table = ray.get(refs[0])
    except Exception as e:
        raise unwrap(e) from None
    row = table.to_pylist()[0]
    if corpus is not None and corpus.dataset is None:
        add_stats(corpus.stats, row)
        corpus.stats.files += len(corpus.files)
        if corpus.on_progress is not None:
            # The workers read every byte; the caller's progress bar would stay at 0.
            corpus.on_progress(corpus.total_bytes)
    return row["counts"], row["sentences"], row["too_long"]


def check_options(input_sentence_size: int, input_format: str = "text") -> None:
    """Refuses what the Ray engine cannot do the way local training does."""
    if input_format != "text":
        raise InvalidTrainerOptionError(
            f"input_format={input_format!r}: engine='ray' counts sentences of text; a word-count "
            "TSV is already counted, so train it with engine='local'"
        )
    if input_sentence_size:
        raise InvalidTrainerOptionError(
            "input_sentence_size samples the whole stream of sentences, which engine='ray' "
            "does not see in one place; drop input_sentence_size or use engine='local'"
        )


def _chunks(texts: Iterable[str]) -> Iterable[list[str]]:
    chunk: list[str] = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ArgumentTypeError(f"texts[{i}] is a {type(text).__name__}, not a str")
        chunk.append(text)
        if len(chunk) == CHUNK_TEXTS:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _count_files(ray: Any, corpus: Corpus, options: dict[str, Any]) -> list[Any]:
    """Refs of one-row count tables, one per batch of the files' records."""
    from tokensmith.datasets.ray_read import records_dataset

    ray.data.DataContext.get_current().enable_progress_bars = False
    kinds = [corpus.format if corpus.format != "auto" else file_kind(p) for p in corpus.files]
    ds = records_dataset(ray, list(zip(corpus.files, kinds, strict=True)), corpus.options)
    counted = ds.map_batches(
        _count_batch,
        batch_size=BATCH_ROWS,
        batch_format="pyarrow",
        fn_kwargs={"options": options},
        num_cpus=1,
    )
    return list(counted.to_arrow_refs())


def _count_batch(batch: Any, options: dict[str, Any]) -> Any:
    from tokensmith.datasets.ray_read import sum_stats

    texts = [t for t in batch.column("text").to_pylist() if t is not None]
    return _count_chunk(texts, options, sum_stats(batch))


def _count_chunk(
    texts: list[str], options: dict[str, Any], stats: dict[str, Any] | None = None
) -> Any:
    """One chunk's word table as a one-row table, with what reading it saw."""
    from tokensmith._core import count_unigram_words
    from tokensmith.datasets.ray_read import STATS

    blob, sentences, too_long = count_unigram_words(texts, num_threads=1, **options)
    stats = stats or {**dict.fromkeys(STATS, 0), "first_skip": None}
    return _row(blob, {**stats, "sentences": sentences, "too_long": too_long})


def _merge(*tables: Any) -> Any:
    """The sum of one-row count tables, as one."""
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]

    from tokensmith._core import merge_word_counts
    from tokensmith.datasets.ray_read import sum_stats

    table = pa.concat_tables(tables)
    stats = sum_stats(table)
    for name in _COUNTED:
        stats[name] = sum(table.column(name).to_pylist())
    return _row(merge_word_counts(table.column("counts").to_pylist()), stats)


def _row(blob: bytes, stats: dict[str, Any]) -> Any:
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]

    from tokensmith.datasets.ray_read import stats_columns

    counted = {name: pa.array([stats[name]], pa.int64()) for name in _COUNTED}
    columns = {"counts": pa.array([blob], pa.large_binary()), **counted}
    return pa.table({**columns, **stats_columns(stats)})
