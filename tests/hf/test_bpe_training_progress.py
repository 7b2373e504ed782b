"""Progress of ``Tokenizer.train`` with a ``BpeTrainer`` or ``WordPieceTrainer``:
``show_progress=True`` moves a bar over the merges, up to the number learned; ``False`` draws
nothing. The bar's ticks are read by standing a recorder in for it (the terminal drawing is
rich's); the output on stderr is read for ``False``.
"""

from __future__ import annotations

import json

import pytest
import tokensmith
from progress_recorder import LINES, record_bar

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
    recorder = record_bar(monkeypatch, "merge_bar")
    trained = train(kind, show_progress=True)
    assert recorder.bars == [((VOCAB_SIZE,), True)]
    ticks = [n for (n,) in recorder.ticks]
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
    recorder = record_bar(monkeypatch, "merge_bar")
    train(kind, show_progress=False)
    assert recorder.bars == [((VOCAB_SIZE,), False)]
