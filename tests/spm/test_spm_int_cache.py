"""The Python ints in id lists: one cached int per id, shared by every list that holds the id,
filled safely by threads that list the same new ids at once, and owned correctly (each list
holds its own reference, so the ints outlive the processor that made them).

CPython itself keeps the ints up to 256, so every check here is about larger ids, from the
8,000-piece Japanese model on Japanese and multilingual text.
"""

from __future__ import annotations

import gc
import sys
import threading

import sentencepiece as spm
import tokensmith
from spm_helpers import DATA

MODEL = str(DATA / "spm" / "test_ja_model.model")


def sample_lines(lines: list[str]) -> list[str]:
    neko = (DATA / "spm" / "wagahaiwa_nekodearu_head.txt").read_text("utf-8").splitlines()
    return [x for x in neko + lines[:400] if x.strip()]


def test_equal_ids_are_one_int_object(lines: list[str]) -> None:
    sp = tokensmith.SentencePieceProcessor(model_file=MODEL)
    texts = sample_lines(lines)
    first = {}
    large = 0
    for text in texts + texts:
        for i in sp.encode(text):
            if i > 256:
                large += 1
                assert first.setdefault(i, i) is i, i
    assert large > 1000 and len(first) > 100


def encode_in_threads(sp, texts: list[str], threads: int) -> list[list[list[int]]]:
    """Each thread's ids of every text, the threads started together."""
    start = threading.Barrier(threads)
    got: list[list[list[int]]] = [[] for _ in range(threads)]

    def work(k: int) -> None:
        start.wait()
        got[k] = [sp.encode(x) for x in texts]

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return got


def test_threads_filling_a_new_cache_at_once_agree(lines: list[str]) -> None:
    texts = sample_lines(lines)
    want = spm.SentencePieceProcessor(model_file=MODEL).encode(texts)
    for _ in range(3):
        sp = tokensmith.SentencePieceProcessor(model_file=MODEL)  # every cell empty
        got = encode_in_threads(sp, texts, 4)
        for result in got:
            assert result == want
        # Whichever thread filled a cell, every thread got that cell's int.
        for a, b in zip(got[0], got[3], strict=True):
            assert all(x is y for x, y in zip(a, b, strict=True) if x > 256)


def test_each_list_holds_its_own_reference() -> None:
    sp = tokensmith.SentencePieceProcessor(model_file=MODEL)
    text = "吾輩は猫である。名前はまだ無い。"
    ids = sp.encode(text)
    big = max(ids)
    assert big > 256

    def refs() -> int:
        # Counted outside `assert`, whose rewriting keeps a reference of its own.
        return sys.getrefcount(ids[ids.index(big)])

    before = refs()
    more = [sp.encode(text) for _ in range(10)]
    after = refs()
    assert after - before == 10 * ids.count(big)
    del more
    after_del = refs()
    assert after_del == before
    # The processor and its cache go (one reference less); the lists keep their ints.
    want = list(spm.SentencePieceProcessor(model_file=MODEL).encode(text))
    del sp
    gc.collect()
    assert ids == want
    after_drop = refs()
    assert after_drop == before - 1
