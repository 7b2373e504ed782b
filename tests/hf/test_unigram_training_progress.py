"""Progress of ``Tokenizer.train`` with a ``UnigramTrainer``: ``show_progress=True`` moves a
bar over the rounds of EM and pruning, whose ticks rise to their total; ``False`` draws
nothing. The bar's ticks are read by standing a recorder in for it (the terminal drawing is
rich's); the output on stderr is read for ``False``.
"""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
import tokensmith
from progress_recorder import LINES, record_bar
from tokensmith.components import unigram_training


def train(show_progress: bool) -> tokensmith.Tokenizer:
    tok = tokensmith.Tokenizer(tokensmith.models.Unigram())
    tok.pre_tokenizer = tokensmith.pre_tokenizers.Whitespace()
    trainer = tokensmith.trainers.UnigramTrainer(
        vocab_size=400, unk_token="<unk>", show_progress=show_progress
    )
    tok.train_from_iterator(LINES, trainer)
    return tok


def test_show_progress_false_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    train(show_progress=False)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_show_progress_moves_the_bar_to_its_total(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = record_bar(monkeypatch, "round_bar")
    trained = train(show_progress=True)
    assert recorder.bars == [((), True)]
    ticks = recorder.ticks
    assert len(ticks) >= 2, ticks
    assert all(a[0] < b[0] for a, b in pairwise(ticks)), ticks
    assert all(done <= total for done, total in ticks), ticks
    assert ticks[-1][0] == ticks[-1][1]
    # The bar changes nothing of the result.
    assert json.loads(trained.to_str()) == json.loads(train(show_progress=False).to_str())


def test_show_progress_false_disables_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = record_bar(monkeypatch, "round_bar")
    train(show_progress=False)
    assert recorder.bars == [((), False)]


def test_an_exception_from_the_callback_stops_training() -> None:
    tok = tokensmith.Tokenizer(tokensmith.models.Unigram())
    tok.pre_tokenizer = tokensmith.pre_tokenizers.Whitespace()
    trainer = tokensmith.trainers.UnigramTrainer(vocab_size=400, show_progress=False)
    seen: list[int] = []

    def stop(done: int, total: int) -> None:
        seen.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        unigram_training.train_unigram_model(
            tok, tokensmith.models.Unigram(), trainer, iter(LINES), progress=stop
        )
    assert seen == [1]
