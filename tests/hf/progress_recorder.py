"""A stand-in for the bars of ``tokensmith.train.progress``, shared by the training progress
tests: it keeps what each bar was opened with and every tick, so a test reads the ticks
instead of the terminal drawing (which is rich's).

>>> recorder = BarRecorder()
>>> with recorder.bar(900, enabled=True) as tick:
...     tick(100)
>>> recorder.bars, recorder.ticks
([((900,), True)], [(100,)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tokensmith.train import progress as bars

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
#: The texts the training progress tests train on.
LINES = TEXT.read_text(encoding="utf-8").splitlines()[:600]


class BarRecorder:
    """Records each bar opened, as its arguments and whether it was enabled, and each tick,
    as the arguments it was called with (a text read, for :meth:`reader`: the count so far).
    """

    def __init__(self) -> None:
        self.bars: list[tuple[tuple[int | None, ...], bool]] = []
        self.ticks: list[tuple[int, ...]] = []

    @contextmanager
    def bar(self, *args: int, enabled: bool = True) -> Iterator[Callable[..., None]]:
        """Stands in for ``merge_bar`` and ``round_bar``: yields their ``tick``."""
        self.bars.append((args, enabled))
        yield lambda *tick: self.ticks.append(tick)

    def reader(
        self, texts: Iterator[str], total: int | None, *, enabled: bool = True
    ) -> Iterator[str]:
        """Stands in for ``read_bar``: yields ``texts``, ticking once a text."""
        self.bars.append(((total,), enabled))
        for text in texts:
            self.ticks.append((len(self.ticks) + 1,))
            yield text


def record_bar(monkeypatch: pytest.MonkeyPatch, name: str) -> BarRecorder:
    """Replaces the bar ``name`` of ``tokensmith.train.progress`` with a new recorder."""
    recorder = BarRecorder()
    monkeypatch.setattr(bars, name, recorder.reader if name == "read_bar" else recorder.bar)
    return recorder
