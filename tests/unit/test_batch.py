"""Batch encoding: the same ids as single calls on any number of threads, and the same error."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tokensmith
from tokensmith.errors import DisallowedSpecialTokenError


@pytest.fixture(scope="module")
def docs(multilingual_lines: list[str]) -> list[str]:
    # Documents of uneven length, with empty ones among them, so that ranges of texts end
    # at different places on each thread.
    out = []
    for i in range(0, len(multilingual_lines), 7):
        out.append("".join(multilingual_lines[i : i + 1 + i % 13]))
        if i % 5 == 0:
            out.append("")
    return out


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_numpy_batch_equals_single_calls(name: str, threads: int, docs: list[str]) -> None:
    enc = tokensmith.get_encoding(name)
    expected = [enc.encode_ordinary(d) for d in docs]
    toks, offs = enc.encode_ordinary_batch_to_numpy(docs, num_threads=threads)
    assert toks.dtype == np.uint32 and offs.dtype == np.uint64
    assert offs.tolist() == np.cumsum([0] + [len(e) for e in expected]).tolist()
    assert [toks[offs[i] : offs[i + 1]].tolist() for i in range(len(docs))] == expected
    assert enc.encode_ordinary_batch(docs, num_threads=threads) == expected


@pytest.mark.parametrize("threads", [1, 2])
def test_numpy_batch_arrays_are_the_callers_own(threads: int, docs: list[str]) -> None:
    # The arrays take over the encoder's buffers: writable, contiguous, and still whole after
    # the call's other objects are gone and later batches have run.
    enc = tokensmith.get_encoding("cl100k_base")
    expected = [t for d in docs for t in enc.encode_ordinary(d)]
    toks, offs = enc.encode_ordinary_batch_to_numpy(docs, num_threads=threads)
    for array in (toks, offs):
        assert array.flags.writeable and array.flags.c_contiguous and array.ndim == 1
    # numpy's own scalar types, as np.frombuffer(..., dtype=np.uint32/np.uint64) gives.
    assert toks.dtype.type is np.uint32 and offs.dtype.type is np.uint64
    for _ in range(3):
        enc.encode_ordinary_batch_to_numpy(docs[::-1], num_threads=threads)
    assert toks.tolist() == expected and int(offs[-1]) == len(expected)
    toks[:] = 0
    assert enc.encode_ordinary_batch_to_numpy(docs, num_threads=threads)[0].tolist() == expected


def test_list_batch_of_uneven_texts_keeps_input_order() -> None:
    # The longest texts are encoded first; the lists still come back in input order.
    enc = tokensmith.get_encoding("o200k_base")
    batch = [f"text {i} " * (1 + (i * 37) % 200) for i in range(300)]
    assert enc.encode_ordinary_batch(batch, num_threads=2) == [
        enc.encode_ordinary(t) for t in batch
    ]


@pytest.mark.parametrize("batch", [[], [""], ["one text"], ["", ""]])
def test_tiny_batches(batch: list[str]) -> None:
    enc = tokensmith.get_encoding("o200k_base")
    expected = [enc.encode_ordinary(t) for t in batch]
    assert enc.encode_ordinary_batch(batch, num_threads=2) == expected
    toks, offs = enc.encode_ordinary_batch_to_numpy(batch, num_threads=2)
    assert toks.tolist() == [t for e in expected for t in e]
    assert offs.tolist() == np.cumsum([0] + [len(e) for e in expected]).tolist()


def test_python_threads_can_run_batches_at_once(docs: list[str]) -> None:
    # Every batch call shares one pool of helper threads; calls from several Python threads
    # at once must each get their own complete results.
    enc = tokensmith.get_encoding("o200k_base")
    expected = [enc.encode_ordinary(d) for d in docs]
    flat = [t for e in expected for t in e]
    failures: list[str] = []

    def work(k: int) -> None:
        for _ in range(3):
            if enc.encode_ordinary_batch(docs, num_threads=2) != expected:
                failures.append(f"list, thread {k}")
            toks, _ = enc.encode_ordinary_batch_to_numpy(docs, num_threads=2)
            if toks.tolist() != flat:
                failures.append(f"numpy, thread {k}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_batch_raises_for_its_first_bad_text(docs: list[str]) -> None:
    # Two texts break the rules; whichever thread finishes first, the error is the first one's.
    enc = tokensmith.get_encoding("cl100k_base")
    batch = list(docs)
    batch[3] += " <|endofprompt|>"
    batch[-2] += " <|endoftext|>"
    for _ in range(10):
        with pytest.raises(DisallowedSpecialTokenError, match="endofprompt"):
            enc.encode_batch(batch, num_threads=2)
        with pytest.raises(DisallowedSpecialTokenError, match="endofprompt"):
            enc._core.encode_batch_to_numpy(batch, 2, frozenset(), "all")
