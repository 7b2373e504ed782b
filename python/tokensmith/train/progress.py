"""A rich progress bar over the merges of a training run (``train_bpe(show_progress=True)``).

>>> with merge_bar(1000, enabled=False) as tick:
...     tick(100)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def merge_bar(vocab_size: int, *, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields ``tick(n)``, which moves a bar on stderr to ``n`` merges (of at most
    ``vocab_size``: the bar's end is an upper bound, since the alphabet takes ids too)."""
    columns = (
        TextColumn("learning merges"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), disable=not enabled) as bar:
        task = bar.add_task("merges", total=vocab_size)

        def tick(n: int) -> None:
            bar.update(task, completed=n)

        yield tick
