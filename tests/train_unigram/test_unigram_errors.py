"""Bad input to the Unigram trainer: typed errors that name the problem, never a crash."""

from __future__ import annotations

import os
import re
import signal
import threading
from pathlib import Path

import pytest
import tokensmith
from tokensmith.errors import (
    EmptyCorpusError,
    InvalidTrainerOptionError,
    UnsupportedFeatureError,
)

DATA = Path(__file__).parent.parent / "data"
TEXTS = ["the cat sat on the mat", "the dog sat on the log"] * 10


@pytest.mark.parametrize("texts", [[], ["", "   "], iter([])])
def test_empty_corpus(texts: list[str]) -> None:
    with pytest.raises(EmptyCorpusError):
        tokensmith.train_unigram(texts, vocab_size=100)


def test_vocab_size_too_large_names_the_achievable_size() -> None:
    with pytest.raises(InvalidTrainerOptionError, match=r"vocab_size=5000 is too large") as e:
        tokensmith.train_unigram(TEXTS, vocab_size=5000)
    achievable = int(re.search(r"use vocab_size <= (\d+)", str(e.value)).group(1))  # type: ignore[union-attr]
    assert 3 < achievable < 5000


def test_vocab_size_too_small_for_the_characters() -> None:
    with pytest.raises(InvalidTrainerOptionError, match="character_coverage"):
        tokensmith.train_unigram(TEXTS, vocab_size=10)


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"character_coverage": 0.5}, "character_coverage"),
        ({"shrinking_factor": 0.99}, "shrinking_factor"),
        ({"num_sub_iterations": 0}, "num_sub_iterations"),
        ({"max_piece_length": 0}, "max_piece_length"),
        ({"seed_sentencepiece_size": 10}, "seed_sentencepiece_size"),
        ({"input_sentence_size": -1}, "input_sentence_size"),
        ({"vocab_size": 2}, "vocab_size"),
        ({"user_defined_symbols": ["<x>", "<x>"]}, "user_defined_symbols"),
        ({"control_symbols": ["<unk>"]}, "control_symbols"),
        ({"normalization_rule_name": "bogus"}, "normalization_rule_name=.bogus"),
        ({"required_chars": "a b"}, "required_chars holds ' '"),
        ({"input_format": "csv"}, "input_format='csv'"),
        ({"model_type": "trie"}, "model_type='trie'"),
        ({"model_type": "bpe", "use_all_vocab": True}, "use_all_vocab"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], name: str) -> None:
    options.setdefault("vocab_size", 100)
    with pytest.raises(InvalidTrainerOptionError, match=name):
        tokensmith.train_unigram(TEXTS, **options)  # type: ignore[arg-type]


def test_unsupported_features() -> None:
    with pytest.raises(UnsupportedFeatureError, match="ray"):
        tokensmith.train_unigram(TEXTS, vocab_size=100, model_type="bpe", engine="ray")


def test_wrong_types() -> None:
    with pytest.raises(TypeError, match="single string"):
        tokensmith.train_unigram("abc", vocab_size=100)
    with pytest.raises(TypeError, match=r"texts\[1\] is a int"):
        tokensmith.train_unigram(["a", 3], vocab_size=100)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not both"):
        tokensmith.train_unigram(TEXTS, files="x.txt", vocab_size=100)
    with pytest.raises(tokensmith.InputNotFoundError):
        tokensmith.train_unigram(files="/nonexistent/*.txt", vocab_size=100)


def test_an_exception_in_the_progress_callback_stops_training() -> None:
    seen: list[str] = []

    def progress(kind: str, info: object) -> None:
        seen.append(kind)
        if kind == "em_round":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        tokensmith.train_unigram(TEXTS * 5, vocab_size=30, progress=progress)
    assert "finished" not in seen
    assert seen.count("em_round") == 1


def test_ctrl_c_between_em_rounds_raises_keyboard_interrupt() -> None:
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    seen: list[str] = []

    def progress(kind: str, info: object) -> None:
        seen.append(kind)
        if kind == "seeded":
            # Delivered like a real Ctrl-C: to the process, from another thread, while the
            # main thread waits on the trainer with the GIL released.
            threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT)).start()

    # Python's own Ctrl-C handler, whatever an earlier test (Ray) installed.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            tokensmith.train_unigram(lines, vocab_size=4000, progress=progress)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "finished" not in seen
