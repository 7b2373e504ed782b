"""Batch encoding of SentencePiece models: sentencepiece's ids for every text, in input order, on
any number of threads, for any iterable of texts, and the first bad text's error.

The batch path reads the texts in place and encodes them in groups of a few kilobytes whose ids
share one buffer, listing them on the calling thread while other threads encode later groups. The
texts here have uneven lengths (empty ones, single characters, joined lines of kilobytes), so
that groups end at different places and threads finish out of order.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import DATA

SHIPPED = ["test_model.model", "test_ja_model.model"]


def threads_kw(threads: int | None) -> dict[str, int]:
    """``num_threads`` for an encode call; none at all (the compiled list path) for ``None``."""
    return {} if threads is None else {"num_threads": threads}


def shipped_pair(name: str):
    path = str(DATA / "spm" / name)
    return tokensmith.SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(
        model_file=path
    )


@pytest.fixture(scope="module")
def texts(lines: list[str]) -> list[str]:
    botchan = (DATA / "spm" / "botchan.txt").read_text("utf-8").splitlines()
    neko = (DATA / "spm" / "wagahaiwa_nekodearu_head.txt").read_text("utf-8").splitlines()
    out: list[str] = []
    for i, line in enumerate(lines + botchan[:1500] + neko):
        out.append(line)
        if i % 11 == 0:
            out.append("")
        if i % 97 == 0:
            out.append(" ".join(lines[i % len(lines) : i % len(lines) + 40]))  # a few KB
        if i % 53 == 0:
            out.append(line[:1])
    return out


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("threads", [1, 2, 8, None])
def test_batch_ids_equal_sentencepiece_in_order(
    name: str, threads: int | None, texts: list[str]
) -> None:
    ours, ref = shipped_pair(name)
    want = ref.encode(texts)
    assert ours.encode(texts, **threads_kw(threads)) == want
    assert [ours.encode(t) for t in texts] == want
    # Again, now that every thread's word cache holds these words.
    assert ours.encode(texts, **threads_kw(threads)) == want


@pytest.mark.parametrize("threads", [1, 2, None])
def test_batch_pieces_equal_sentencepiece(threads: int | None, texts: list[str]) -> None:
    ours, ref = shipped_pair("test_ja_model.model")
    want = ref.encode(texts, out_type=str)
    assert ours.encode(texts, out_type=str, **threads_kw(threads)) == want
    pieces_by_default = tokensmith.SentencePieceProcessor(
        model_file=str(DATA / "spm" / "test_ja_model.model"), out_type=str
    )
    assert pieces_by_default.encode(texts, **threads_kw(threads)) == want


def test_batch_ids_on_trained_models(models, texts: list[str]) -> None:
    ours, ref = models
    assert ours.encode(texts, num_threads=2) == ref.encode(texts)


@pytest.mark.parametrize(
    "batch",
    [[], [""], ["", "", ""], ["one text"], ["a", ""], ["x"] * 5000, ["", "ab"] * 3000]
    + [["x"] * 40_000, ["", "abc de"] * 6000],
)
@pytest.mark.parametrize("threads", [1, 2, 16, None])
def test_small_and_degenerate_batches(batch: list[str], threads: int | None) -> None:
    # More threads than texts, batches under the size that releases the GIL (1 KB) or that
    # uses other threads (32 KB) and over it, tens of thousands of one-character texts (many
    # texts per group), and empty texts.
    ours, ref = shipped_pair("test_model.model")
    assert ours.encode(batch, **threads_kw(threads)) == [ref.encode(t) for t in batch]


def test_any_iterable_of_texts(texts: list[str]) -> None:
    ours, ref = shipped_pair("test_model.model")
    want = ref.encode(texts)

    class Texts(list):  # type: ignore[type-arg]
        pass

    assert ours.encode(Texts(texts)) == want
    assert ours.encode(tuple(texts)) == want
    assert ours.encode(tuple(texts), num_threads=2) == want
    assert ours.encode((t for t in texts), num_threads=2) == want
    assert ours.encode(iter(texts), out_type=str, num_threads=2) == ref.encode(texts, out_type=str)


@pytest.mark.parametrize("threads", [1, 2, None])
def test_a_batch_raises_for_its_first_bad_text(threads: int | None, texts: list[str]) -> None:
    ours, _ = shipped_pair("test_model.model")
    batch = list(texts)
    # bytes are UTF-8 text, as in sentencepiece; anything else is refused by position.
    batch[700] = texts[700].encode("utf-8")  # type: ignore[call-overload]
    assert ours.encode(batch, **threads_kw(threads)) == ours.encode(texts, **threads_kw(threads))
    batch[-3] = 7  # type: ignore[call-overload]
    for out_type in (int, str):
        with pytest.raises(TypeError, match=rf"texts\[{len(texts) - 3}\] has type int, not str"):
            ours.encode(batch, out_type=out_type, **threads_kw(threads))
    # A lone surrogate cannot be UTF-8, as in a single call.
    batch = list(texts)
    batch[5] = "ok \ud800"
    with pytest.raises(UnicodeEncodeError):
        ours.encode(batch[5])
    with pytest.raises(UnicodeEncodeError):
        ours.encode(batch, **threads_kw(threads))
    # The processor still works after a failed batch.
    assert ours.encode(texts[:50], **threads_kw(threads)) == [ours.encode(t) for t in texts[:50]]


def test_the_core_rejects_a_single_str() -> None:
    ours, _ = shipped_pair("test_model.model")
    with pytest.raises(TypeError, match="not a str"):
        ours._model.encode_ids_batch("abc", 2)


def test_a_batch_reads_a_snapshot_of_a_list_that_changes_meanwhile(texts: list[str]) -> None:
    # The batch reads the texts from its own copy of the list: another thread that keeps
    # replacing the list's texts (freeing the old ones) while the batch runs without the GIL
    # cannot free a text under it. Each result is that of one whole version of the list.
    ours, ref = shipped_pair("test_model.model")
    want = ref.encode(texts)
    want_spaced = ref.encode([f"{t} " for t in texts])
    batch = list(texts)
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            batch[:] = [f"{t} " for t in texts]  # new strings, only this list holds them
            batch[:] = [t for t in texts]

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        for _ in range(10):
            got = ours.encode(batch)
            assert got == want or got == want_spaced
    finally:
        stop.set()
        worker.join()


def test_python_threads_can_run_batches_at_once(texts: list[str]) -> None:
    ours, ref = shipped_pair("test_ja_model.model")
    want = ref.encode(texts)
    failures: list[int] = []

    def work(k: int) -> None:
        for _ in range(3):
            if ours.encode(texts, num_threads=2) != want:
                failures.append(k)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []


def test_the_result_list_is_hidden_from_other_threads_until_complete(texts: list[str]) -> None:
    # While the batch runs without the GIL, a thread walking every object the garbage
    # collector knows never meets the result list with empty slots; the finished list is
    # known to the collector again (it can be part of a cycle once returned).
    ours, ref = shipped_pair("test_model.model")
    want = ref.encode(texts)
    stop = threading.Event()
    seen: list[int] = []

    def walk() -> None:
        while not stop.is_set():
            for obj in gc.get_objects():
                if type(obj) is list and len(obj) == len(texts):
                    seen.append(sum(len(item) for item in obj))

    walker = threading.Thread(target=walk)
    walker.start()
    try:
        results = [ours.encode(texts, num_threads=2) for _ in range(5)]
    finally:
        stop.set()
        walker.join()
    assert all(r == want for r in results)
    assert all(gc.is_tracked(r) for r in results)


def encode_watching_collections(
    sp: tokensmith.SentencePieceProcessor, batch: list[str], threads: int, look: Callable[[], None]
) -> list[list[int]]:
    """``sp.encode(batch)``, calling ``look()`` at the start of every collection it triggers;
    fails when it triggers none (the batch is then too small to show anything)."""
    seen = 0

    def on_collection(phase: str, info: dict[str, int]) -> None:
        nonlocal seen
        if phase == "start":
            seen += 1
            look()

    gc.callbacks.append(on_collection)
    try:
        got: list[list[int]] = sp.encode(batch, num_threads=threads)
    finally:
        gc.callbacks.remove(on_collection)
    assert seen > 0, "the call triggered no collection"
    return got


@pytest.mark.parametrize("threads", [1, 2])
def test_the_collector_does_not_walk_the_private_copy_of_the_texts(
    texts: list[str], threads: int
) -> None:
    # The lists a batch makes trigger collections during the call; each collection would walk
    # every text again if the batch's own copy of the input list were known to the collector.
    # At every collection the call triggers, no tracked list but the caller's holds the texts.
    ours, ref = shipped_pair("test_model.model")
    batch = texts * 2  # enough lists for several collections
    first = batch[0]
    copies: list[int] = []

    def look() -> None:
        copies.extend(
            id(obj)
            for obj in gc.get_objects()
            if type(obj) is list and obj is not batch and len(obj) == len(batch) and obj[0] is first
        )

    got = encode_watching_collections(ours, batch, threads, look)
    assert copies == []
    assert got == ref.encode(batch)


def test_every_returned_list_is_tracked_and_a_cycle_through_one_is_collected(
    texts: list[str],
) -> None:
    ours, _ = shipped_pair("test_model.model")
    got = ours.encode(texts, num_threads=2)
    assert gc.is_tracked(got)
    assert all(gc.is_tracked(ids) for ids in got)
    gc.collect()
    looped = got[len(got) // 2]
    looped.append(looped)
    del got, looped
    assert gc.collect() >= 1


@pytest.mark.parametrize("threads", [1, 2])
def test_the_collector_does_not_walk_the_lists_the_call_is_still_making(
    texts: list[str], threads: int
) -> None:
    # Each collection the call triggers would otherwise walk every list of ids made so far in
    # the call (none of which can be garbage yet). At every collection during the call, the
    # collector knows no list of ints that it did not know before the call; afterwards, it
    # knows every returned list.
    ours, ref = shipped_pair("test_model.model")
    batch = texts * 2  # enough lists for several collections

    during: list[int] = []

    def id_lists() -> int:
        return sum(
            1
            for obj in gc.get_objects()
            if type(obj) is list and obj is not during and obj and type(obj[0]) is int
        )

    before = id_lists()
    got = encode_watching_collections(ours, batch, threads, lambda: during.append(id_lists()))
    assert max(during) <= before
    assert got == ref.encode(batch)
    assert all(gc.is_tracked(ids) for ids in got)
    assert id_lists() >= before + sum(1 for ids in got if ids)
