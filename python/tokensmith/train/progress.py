"""Rich progress bars on stderr for training runs: over the merges of a BPE run
(``train_bpe(show_progress=True)``) and over the rounds of HF's Unigram training
(``Tokenizer.train`` with ``UnigramTrainer(show_progress=True)``), and over the texts
``Tokenizer.train_from_iterator`` reads (its ``length`` the total).

>>> with merge_bar(1000, enabled=False) as tick:
...     tick(100)
>>> with round_bar(enabled=False) as tick:
...     tick(1, 5)
>>> list(read_bar(iter(["a", "b"]), 2, enabled=False))
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


@contextmanager
def _bar(label: str, total: int | None, enabled: bool) -> Iterator[tuple[Progress, TaskID]]:
    """A bar on stderr named ``label`` (drawn only when ``enabled``) and its one task."""
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), disable=not enabled) as bar:
        yield bar, bar.add_task(label, total=total)


@contextmanager
def merge_bar(vocab_size: int, *, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields ``tick(n)``, which moves a bar on stderr to ``n`` merges (of at most
    ``vocab_size``: the bar's end is an upper bound, since the alphabet takes ids too)."""
    with _bar("learning merges", vocab_size, enabled) as (bar, task):

        def tick(n: int) -> None:
            bar.update(task, completed=n)

        yield tick


@contextmanager
def round_bar(*, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """Yields ``tick(done, total)``, which moves a bar on stderr to ``done`` rounds of
    ``total`` (an estimate the trainer refines each round; equal to ``done`` at the end)."""
    with _bar("EM rounds", None, enabled) as (bar, task):

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick


READ_EVERY = 1000
"""The reading bar moves every this many texts (and at the end)."""


def read_bar(texts: Iterator[str], total: int | None, *, enabled: bool = True) -> Iterator[str]:
    """Yields ``texts``, moving a bar on stderr (drawn only when ``enabled``) over the number
    read, of ``total`` (None: unknown). The bar closes when ``texts`` runs out, before the
    training's own bar opens."""
    if not enabled:
        yield from texts
        return
    with _bar("reading texts", total, True) as (bar, task):
        n = 0
        for n, text in enumerate(texts, 1):
            yield text
            if n % READ_EVERY == 0:
                bar.update(task, completed=n)
        bar.update(task, completed=n)
