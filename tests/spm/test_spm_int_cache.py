"""The Python ints in id lists: one cached int per id, shared by every list that holds the id,
filled safely by threads that list the same new ids at once, and counted correctly, so the
ints outlive every list and the processor that made them.

On CPython before 3.12 with the GIL, ints are lent: one int per id for the whole process,
holding 2**60 references for the lists, which store it without an increment and give one back
when freed. Elsewhere each processor's cache owns its ints and each list takes a reference.

CPython itself keeps the ints up to 256, so every check here is about larger ids, from the
8,000-piece Japanese model on Japanese and multilingual text.
"""

from __future__ import annotations

import gc
import sys
import sysconfig
import threading

import sentencepiece as spm
import tokensmith
from spm_helpers import DATA

MODEL = str(DATA / "spm" / "test_ja_model.model")

# Whether this interpreter lends ints to lists (see the module's docstring).
LENT = (
    sys.implementation.name == "cpython"
    and sys.version_info < (3, 12)
    and not sysconfig.get_config_var("Py_GIL_DISABLED")
)
LENT_REFS = 2**60


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


def test_list_references_are_counted_and_ints_outlive_the_processor() -> None:
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
    placed = 10 * ids.count(big)
    if LENT:
        # Stored without an increment; the int holds the lists' references in advance.
        assert after == before and before > LENT_REFS - 2**40
    else:
        assert after - before == placed
    del more
    after_del = refs()
    # Each freed list gives back one reference a place it held the int.
    assert after_del == after - placed
    want = list(spm.SentencePieceProcessor(model_file=MODEL).encode(text))
    del sp
    gc.collect()
    assert ids == want
    # The processor's cache goes: an owned int loses the cache's reference, a lent one nothing.
    assert refs() == after_del - (0 if LENT else 1)


def test_processors_share_lent_ints() -> None:
    text = "吾輩は猫である。名前はまだ無い。"
    a = tokensmith.SentencePieceProcessor(model_file=MODEL).encode(text)
    b = tokensmith.SentencePieceProcessor(model_file=MODEL).encode(text)
    assert a == b
    large = [(x, y) for x, y in zip(a, b, strict=True) if x > 256]
    assert large
    # Lent ints are one per id for the process; owned ones are one per processor's cache.
    assert all((x is y) == LENT for x, y in large)


# A vocabulary above 40,960 pieces, where listing ids looks ahead (prefetches) and most ids are
# beyond CPython's own ints: piece `▁w<n>` is a whole word, at an id known from its position.
WORDS = 45_000
FIRST_WORD_ID = 2  # after <unk> and the fallback character pieces below
LETTERS = [chr(c) for c in range(ord("0"), ord("9") + 1)] + ["w", "▁"]


def large_model() -> tokensmith.SentencePieceProcessor:
    pieces = [("<unk>", 0.0, "unknown"), ("▁", -50.0, "normal")]
    pieces += [(f"▁w{n}", -1.0 - n * 1e-6, "normal") for n in range(WORDS)]
    pieces += [(c, -60.0, "normal") for c in LETTERS if c != "▁"]
    sp = tokensmith.SentencePieceProcessor.from_pieces(pieces)
    assert sp.get_piece_size() > 40_960
    return sp


def words_text(numbers: list[int]) -> tuple[str, list[int]]:
    """A text of the words `w<n>` and the ids it must encode to (known from the piece list)."""
    return " ".join(f"w{n}" for n in numbers), [FIRST_WORD_ID + n for n in numbers]


def test_large_vocabulary_ids_are_the_pieces_ids() -> None:
    sp = large_model()
    for numbers in ([WORDS - 1], [3, 44_000, 3, 42_000], list(range(0, WORDS, 7))):
        text, want = words_text(numbers)
        assert sp.encode(text) == want
        assert sp.encode([text, text]) == [want, want]


def test_large_vocabulary_lists_share_one_int_and_own_a_reference_each() -> None:
    sp = large_model()
    # Short and long lists (the look-ahead reaches past the end of short ones).
    short, short_ids = words_text([44_999, 43_000])
    long, long_ids = words_text([44_999] + list(range(42_000, 42_400)) + [44_999])
    big = FIRST_WORD_ID + 44_999
    first = sp.encode(short)

    def refs() -> int:
        return sys.getrefcount(first[0])

    before = refs()
    kept = [sp.encode(short) for _ in range(5)] + [sp.encode(long) for _ in range(5)]
    kept += sp.encode([short, long] * 5)
    after = refs()
    assert all(x is first[0] for ids in kept for x in ids if x == big)
    assert kept == [short_ids] * 5 + [long_ids] * 5 + [short_ids, long_ids] * 5
    # One reference per place the id is listed (the wanted ids, from the piece list): taken
    # by each list, or lent in advance.
    placed = 10 * (short_ids.count(big) + long_ids.count(big))
    assert after - before == (0 if LENT else placed)
    del kept
    assert refs() == after - placed


def test_large_vocabulary_threads_filling_a_new_cache_agree() -> None:
    numbers = list(range(41_000, WORDS, 3))
    texts = [words_text(numbers[k::9])[0] for k in range(9)]
    want = [words_text(numbers[k::9])[1] for k in range(9)]
    for _ in range(3):
        sp = large_model()  # every cell empty
        got = encode_in_threads(sp, texts, 8)
        for result in got:
            assert result == want
        for a, b in zip(got[0], got[7], strict=True):
            assert all(x is y for x, y in zip(a, b, strict=True))
