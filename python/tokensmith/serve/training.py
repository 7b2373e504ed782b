"""Training in the page: a job per request, run in a thread, its progress read as events.

The page posts text, an algorithm and a vocabulary size; :class:`TrainJobs` starts a thread
that calls tokensmith's trainer with a progress callback, and the page follows the job's
events (server-sent events, see :mod:`tokensmith.serve.routes`). When training ends the
tokenizer joins the :class:`~tokensmith.serve.catalog.Catalog`, and the last event names its
key.

>>> jobs = TrainJobs(lambda tok, label: "trained:1")
>>> job = jobs.start(text="low lower lowest " * 50, algorithm="bpe", vocab_size=300, name="t")
>>> job.wait(30)
True
>>> job.events[-1]["stage"], job.events[-1]["key"]
('done', 'trained:1')
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tokensmith.errors import InvalidTrainerOptionError, TokensmithError

__all__ = ["ALGORITHMS", "TrainJob", "TrainJobs"]

#: What the page offers: name -> what it trains.
ALGORITHMS = {
    "bpe": "byte-level BPE (tiktoken / GPT style)",
    "unigram": "Unigram (SentencePiece)",
    "wordpiece": "WordPiece (BERT)",
}
_MAX_VOCAB = 200_000


@dataclass
class TrainJob:
    """One training run: its events so far, appended by the training thread."""

    id: str
    vocab_size: int
    events: list[dict[str, Any]] = field(default_factory=list)
    finished: threading.Event = field(default_factory=threading.Event)

    def emit(self, stage: str, **info: Any) -> None:
        self.events.append({"stage": stage, "time": time.monotonic(), **info})

    def wait(self, timeout: float) -> bool:
        """Waits for the end; True if it came."""
        return self.finished.wait(timeout)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _train(algorithm: str, text: str, vocab_size: int, name: str, job: TrainJob) -> Any:
    import tokensmith

    def merges(n: int) -> None:
        job.emit("merges", done=n, total=vocab_size)

    def unigram(kind: str, info: Mapping[str, float]) -> None:
        job.emit(kind, **{k: float(v) for k, v in info.items()})

    lines = _lines(text)
    if algorithm == "bpe":
        return tokensmith.train_bpe(lines, vocab_size=vocab_size, name=name, progress=merges)
    if algorithm == "wordpiece":
        return tokensmith.train_wordpiece(lines, vocab_size=vocab_size, progress=merges)
    if algorithm == "unigram":
        return tokensmith.train_unigram(lines, vocab_size=vocab_size, progress=unigram)
    raise InvalidTrainerOptionError(
        f"algorithm={algorithm!r} is not offered; use one of {', '.join(ALGORITHMS)}"
    )


class TrainJobs:
    """Starts training jobs and keeps them for their event streams.

    Args:
        publish: Called with the trained tokenizer and its label; returns its catalog key.
    """

    def __init__(self, publish: Callable[[Any, str], str]) -> None:
        self._publish = publish
        self._jobs: dict[str, TrainJob] = {}
        self._lock = threading.Lock()

    def get(self, job_id: str) -> TrainJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def start(self, *, text: str, algorithm: str, vocab_size: int, name: str) -> TrainJob:
        """Checks the options and starts training in a thread.

        Raises:
            InvalidTrainerOptionError: an unknown algorithm or a vocabulary size out of range.
        """
        if algorithm not in ALGORITHMS:
            raise InvalidTrainerOptionError(
                f"algorithm={algorithm!r} is not offered; use one of {', '.join(ALGORITHMS)}"
            )
        if not isinstance(vocab_size, int) or not 0 < vocab_size <= _MAX_VOCAB:
            raise InvalidTrainerOptionError(f"vocab_size must be an int in 1..{_MAX_VOCAB}")
        with self._lock:
            job = TrainJob(str(len(self._jobs) + 1), vocab_size)
            self._jobs[job.id] = job
        label = f"{name or algorithm} ({algorithm}, {vocab_size})"

        def run() -> None:
            job.emit("started", algorithm=algorithm, total=vocab_size)
            try:
                tokenizer = _train(algorithm, text, vocab_size, name or algorithm, job)
                key = self._publish(tokenizer, label)
                job.emit("done", key=key, label=label)
            except (TokensmithError, ValueError, TypeError) as e:
                job.emit("error", message=str(e))
            finally:
                job.finished.set()

        threading.Thread(target=run, name=f"train-{job.id}", daemon=True).start()
        return job
