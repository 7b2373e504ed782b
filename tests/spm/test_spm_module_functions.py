"""sentencepiece's module-level functions and ``ThreadPool`` in ``tokensmith.sentencepiece``:
each takes and refuses the arguments sentencepiece's does, and has its effect (the n-best
timeout falls back to the best segmentation; a seed repeats samples; a pool sets the threads).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sentencepiece as spm
import tokensmith.sentencepiece as ours
from spm_helpers import pair

SETTERS = [
    "SetRandomGeneratorSeed",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetDataDir",
    "set_random_generator_seed",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_data_dir",
]

ARGUMENTS: list[tuple[Any, ...]] = [
    (),
    (0,),
    (1,),
    (-1,),
    (True,),
    (2**31 - 1,),
    (2**31,),
    (2**32 - 1,),
    (2**32,),
    (-(2**31),),
    (-(2**31) - 1,),
    (np.int64(7),),
    (1.5,),
    ("1",),
    (b"1",),
    (None,),
    (Path("/"),),
    (1, 2),
]

SPM_DATA_DIR = str(Path(spm.__file__).parent / "package_data")


@pytest.fixture(autouse=True)
def restore_settings() -> Iterator[None]:
    yield
    for module in (spm, ours):
        module.SetNBestTimeout(30_000)
        module.SetMinLogLevel(0)
    spm.SetDataDir(SPM_DATA_DIR)
    ours.SetDataDir(SPM_DATA_DIR)


def outcome(call: Callable[..., Any], args: tuple[Any, ...]) -> str:
    try:
        call(*args)
    except TypeError:
        return "TypeError"
    return "ok"


@pytest.mark.parametrize("name", SETTERS)
def test_setters_take_and_refuse_what_sentencepiece_does(name: str) -> None:
    for args in ARGUMENTS:
        if name.lower().endswith(("data_dir", "datadir")) and args and isinstance(args[0], Path):
            continue  # tokensmith also takes a path object, which sentencepiece refuses
        want = outcome(getattr(spm, name), args)
        got = outcome(getattr(ours, name), args)
        assert got == want, (name, args)


def test_twins_are_one_function() -> None:
    for camel, snake in zip(SETTERS[:4], SETTERS[4:], strict=True):
        assert getattr(spm, snake) is getattr(spm, camel)
        assert getattr(ours, snake) is getattr(ours, camel)


def test_nbest_timeout_falls_back_to_the_best_segmentation() -> None:
    mine, ref = pair("unigram_nmt_nfkc")
    text = "the" * 1000  # an n-best search of several milliseconds in both libraries
    for module in (spm, ours):
        module.SetNBestTimeout(0)
    full = ref.nbest_encode(text, nbest_size=10, out_type=str)
    assert len(full) == 10
    assert mine.nbest_encode(text, nbest_size=10, out_type=str) == full
    for module in (spm, ours):
        module.set_nbest_timeout(1)
    # Twenty times longer: its best path alone takes well over the 1 ms in both libraries,
    # so the search cannot finish in time however fast the machine.
    long_text = text * 20
    cut = ref.nbest_encode(long_text, nbest_size=10, out_type=str)
    assert cut == [ref.encode(long_text, out_type=str)]
    assert mine.nbest_encode(long_text, nbest_size=10, out_type=str) == cut
    # A short text finishes well within the time, in both.
    assert mine.nbest_encode("the cat", nbest_size=3) == ref.nbest_encode("the cat", nbest_size=3)


def test_a_seed_repeats_the_samples() -> None:
    mine, _ = pair("unigram_nmt_nfkc")
    text = "sampling draws a segmentation of this text at random"

    def draws() -> list[list[int]]:
        return [
            mine.encode(text, enable_sampling=True, alpha=0.1, nbest_size=-1) for _ in range(20)
        ]

    ours.SetRandomGeneratorSeed(5)
    first = draws()
    ours.set_random_generator_seed(5)
    assert draws() == first
    assert len({tuple(d) for d in first}) > 1


def test_data_dir_leaves_normalization_as_sentencepiece_has_it() -> None:
    # tokensmith builds the rule tables that sentencepiece reads from its data directory.
    ours.SetDataDir(b"/nonexistent")
    ours.set_data_dir(Path("/nonexistent"))
    text = "ＡＢＣ ① ㍿ ﬁ  x"
    for rule in ("nfkc", "nmt_nfkc", "nfkc_cf", "nmt_nfkc_cf", "identity"):
        want = spm.SentencePieceNormalizer(rule_name=rule).normalize(text)
        assert ours.SentencePieceNormalizer(rule_name=rule).normalize(text) == want, rule


@pytest.mark.parametrize("threads", [-5, -1, 0, 1, 3, 1024, 1025, 5000, True])
def test_thread_pool_resolves_threads_as_sentencepiece(threads: int) -> None:
    assert ours.ThreadPool(threads).num_threads() == spm.ThreadPool(threads).num_threads()
    if threads < 0:
        assert ours.ThreadPool(threads).num_threads() == min(os.cpu_count() or 1, 1024)


def test_thread_pool_refuses_what_sentencepiece_refuses() -> None:
    for args in ARGUMENTS:
        want = outcome(spm.ThreadPool, args)
        assert outcome(ours.ThreadPool, args) == want, args
    # sentencepiece's pool holds threads and cannot be pickled; tokensmith's is a number.
    with pytest.raises(TypeError):
        pickle.dumps(spm.ThreadPool(2))
    assert pickle.loads(pickle.dumps(ours.ThreadPool(3))).num_threads() == 3


def test_a_thread_pool_runs_a_batch(lines: list[str]) -> None:
    mine, ref = pair("unigram_byte_fallback")
    texts = lines[::5]
    want = ref.encode(texts, out_type=str, thread_pool=spm.ThreadPool(2))
    assert mine.encode(texts, out_type=str, thread_pool=ours.ThreadPool(2)) == want
    assert mine.decode(mine.encode(texts), thread_pool=ours.ThreadPool(2)) == ref.decode(
        ref.encode(texts), thread_pool=spm.ThreadPool(2)
    )
