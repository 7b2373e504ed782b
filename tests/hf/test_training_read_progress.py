"""The bar over the texts ``Tokenizer.train_from_iterator`` reads: as in HF, ``length`` is
only its total, it is drawn when the trainer's ``show_progress`` is True (and nothing when
False), it counts texts (the items of a batch one by one) and it closes before the
training's own bar opens. Its ticks are read by standing a recorder in for it; the output
on stderr is read to see the real bar's count and total.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import tokensmith
from progress_recorder import LINES, record_bar
from tokensmith.train import progress as bars


def trainer(kind: str, show_progress: bool) -> tuple[Any, Any]:
    t = tokensmith.trainers
    m = tokensmith.models
    if kind == "bpe":
        return m.BPE(), t.BpeTrainer(vocab_size=3000, show_progress=show_progress)
    if kind == "wordpiece":
        return m.WordPiece(), t.WordPieceTrainer(vocab_size=3000, show_progress=show_progress)
    if kind == "unigram":
        return m.Unigram(), t.UnigramTrainer(vocab_size=3000, show_progress=show_progress)
    return m.WordLevel(), t.WordLevelTrainer(show_progress=show_progress)


KINDS = ["bpe", "wordpiece", "unigram", "wordlevel"]


def train(kind: str, show_progress: bool, texts: Any, length: int | None) -> Any:
    model, options = trainer(kind, show_progress)
    tok = tokensmith.Tokenizer(model)
    tok.pre_tokenizer = tokensmith.pre_tokenizers.Whitespace()
    tok.train_from_iterator(texts, options, length=length)
    return json.loads(tok.to_str())


@pytest.mark.parametrize("kind", KINDS)
def test_length_is_the_total_and_texts_are_counted(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = record_bar(monkeypatch, "read_bar")
    batches = [LINES[i : i + 50] for i in range(0, len(LINES), 50)]
    train(kind, True, iter(batches), length=len(LINES))
    assert recorder.bars == [((len(LINES),), True)]
    assert len(recorder.ticks) == len(LINES)


@pytest.mark.parametrize("kind", KINDS)
def test_show_progress_false_disables_the_bar(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = record_bar(monkeypatch, "read_bar")
    train(kind, False, LINES, length=len(LINES))
    assert recorder.bars == [((len(LINES),), False)]


@pytest.mark.parametrize("kind", KINDS)
def test_the_bar_shows_texts_read_of_length(kind: str, capfd: pytest.CaptureFixture[str]) -> None:
    train(kind, True, LINES, length=len(LINES) + 7)
    out, err = capfd.readouterr()
    assert out == ""
    reading = [line for line in err.splitlines() if line.startswith("reading texts")]
    assert len(reading) == 1, err
    assert f"{len(LINES)}/{len(LINES) + 7}" in reading[0]
    # The reading bar closes before the training's own bar (if any) is drawn.
    assert err.splitlines()[0] == reading[0]


@pytest.mark.parametrize("kind", KINDS)
def test_length_changes_nothing_of_the_result(kind: str) -> None:
    assert train(kind, False, LINES, length=3) == train(kind, False, LINES, length=None)
    assert train(kind, True, LINES, length=3) == train(kind, False, LINES, length=None)


def test_read_bar_yields_every_text_past_the_tick_interval() -> None:
    texts = [str(i) for i in range(2 * bars.READ_EVERY + 3)]
    assert list(bars.read_bar(iter(texts), None, enabled=True)) == texts
    assert list(bars.read_bar(iter(texts), 1, enabled=False)) == texts
