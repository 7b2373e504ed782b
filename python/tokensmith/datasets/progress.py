"""The live progress line of an encode job: MB read, MB/s, tokens, tokens/s, shards.

Rates are computed here from the totals, not by rich, so they count only this run's work
(shards skipped on resume are not counted as instant throughput).
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn


class EncodeProgress:
    """A context manager; :meth:`update` adds a batch's bytes, tokens and documents."""

    def __init__(self, enabled: bool, console: Console | None = None) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()
        self.bytes = self.tokens = self.documents = self.shards = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if enabled:
            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=console or Console(stderr=True),
                transient=False,
            )

    def __enter__(self) -> EncodeProgress:
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task(self._line(), total=None)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._refresh()
            self._progress.stop()

    def update(self, *, text_bytes: int = 0, tokens: int = 0, documents: int = 0) -> None:
        self.bytes += text_bytes
        self.tokens += tokens
        self.documents += documents
        self._refresh()

    def shard_done(self) -> None:
        self.shards += 1
        self._refresh()

    def _line(self) -> str:
        secs = max(time.perf_counter() - self.start, 1e-9)
        mb = self.bytes / 1e6
        return (
            f"encoding  {mb:,.1f} MB  {mb / secs:,.1f} MB/s  "
            f"{self.tokens:,} tokens  {self.tokens / secs:,.0f} tok/s  "
            f"{self.documents:,} docs  {self.shards} shards"
        )

    def _refresh(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=self._line())
