"""Progress of ``Tokenizer.train`` with a ``BpeTrainer`` or ``WordPieceTrainer``:
``show_progress=True`` moves a bar over the merges, up to the number learned; ``False`` draws
nothing. The bar's ticks are read by standing a recorder in for it (the terminal drawing is
rich's); the output on stderr is read for ``False``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import tokensmith
from tokensmith.train import progress as bars

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()[:600]
VOCAB_SIZE = 900
KINDS = ["bpe", "wordpiece"]


def train(kind: str, show_progress: bool) -> tokensmith.Tokenizer:
    if kind == "bpe":
        model: tokensmith.models.Model = tokensmith.models.BPE()
        trainer: tokensmith.trainers.Trainer = tokensmith.trainers.BpeTrainer(
            vocab_size=VOCAB_SIZE, show_progress=show_progress
        )
    else:
        model = tokensmith.models.WordPiece()
        trainer = tokensmith.trainers.WordPieceTrainer(
            vocab_size=VOCAB_SIZE, show_progress=show_progress
        )
    tok = tokensmith.Tokenizer(model)
    tok.pre_tokenizer = tokensmith.pre_tokenizers.Whitespace()
    tok.train_from_iterator(LINES, trainer)
    return tok


class Recorder:
    """Stands in for ``merge_bar``: keeps each bar's total, whether it was enabled, and
    every tick."""

    def __init__(self) -> None:
        self.bars: list[tuple[int, bool]] = []
        self.ticks: list[int] = []

    @contextmanager
    def __call__(self, vocab_size: int, *, enabled: bool = True) -> Iterator[Callable[[int], None]]:
        self.bars.append((vocab_size, enabled))
        yield self.ticks.append


@pytest.mark.parametrize("kind", KINDS)
def test_show_progress_false_prints_nothing(kind: str, capfd: pytest.CaptureFixture[str]) -> None:
    train(kind, show_progress=False)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


@pytest.mark.parametrize("kind", KINDS)
def test_show_progress_true_draws_on_stderr(kind: str, capfd: pytest.CaptureFixture[str]) -> None:
    train(kind, show_progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    assert "learning merges" in err


@pytest.mark.parametrize("kind", KINDS)
def test_show_progress_moves_the_bar_to_the_merges_learned(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    monkeypatch.setattr(bars, "merge_bar", recorder)
    trained = train(kind, show_progress=True)
    assert recorder.bars == [(VOCAB_SIZE, True)]
    ticks = recorder.ticks
    assert len(ticks) >= 2, ticks
    # Every 100 merges from the core, then the number learned, within the bar's total.
    assert ticks[:-1] == list(range(100, 100 * len(ticks), 100)), ticks
    assert ticks[-2] <= ticks[-1] <= VOCAB_SIZE, ticks
    model = json.loads(trained.to_str())["model"]
    if kind == "bpe":
        assert ticks[-1] == len(model["merges"])
    else:
        # WordPiece keeps the vocabulary alone: each merge added one token to it.
        assert ticks[-1] <= len(model["vocab"])
    # The bar changes nothing of the result.
    assert json.loads(trained.to_str()) == json.loads(train(kind, show_progress=False).to_str())


@pytest.mark.parametrize("kind", KINDS)
def test_show_progress_false_disables_the_bar(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(bars, "merge_bar", recorder)
    train(kind, show_progress=False)
    assert recorder.bars == [(VOCAB_SIZE, False)]
