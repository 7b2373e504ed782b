"""sentencepiece's module-level settings, for ``tokensmith.sentencepiece``: the random seed of
sampling, the minimum log level, the n-best search timeout, the data directory, and
``ThreadPool``. Each CamelCase function has its snake_case twin, as in sentencepiece 0.2.

They are process-wide, as in sentencepiece. What differs:

- ``SetRandomGeneratorSeed`` seeds tokensmith's own generator, so seeded samples repeat from
  run to run but are not sentencepiece's draws (they follow the same distribution);
- ``SetMinLogLevel`` is kept, but tokensmith's sentencepiece face writes no log, so there is
  nothing for it to silence;
- ``SetDataDir`` is kept, but sentencepiece 0.2.3 reads its normalization rule tables
  (``nfkc.bin`` ...) from that directory, while tokensmith builds the same tables itself and
  reads no data files.

>>> pool = ThreadPool(4)
>>> pool.num_threads()
4
>>> SetNBestTimeout(30_000)
"""

from __future__ import annotations

import operator
import os
import random
from os import PathLike

from tokensmith._core import spm_set_nbest_timeout
from tokensmith.errors import ArgumentTypeError

#: The generator behind every sampling call of the sentencepiece face.
RANDOM = random.Random()

# The most threads a ThreadPool resolves to, as in sentencepiece.
_MAX_THREADS = 1024
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1

_min_log_level = 0
_data_dir = ""


def _integer(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low..=high``; sentencepiece's bindings take any integer (a
    bool or a numpy integer too) in the C type's range and raise ``TypeError`` otherwise."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ArgumentTypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not low <= number <= high:
        raise ArgumentTypeError(f"{name} must be an int from {low} to {high}, not {number}")
    return number


def SetRandomGeneratorSeed(seed: int) -> None:
    """Seeds the generator behind every sampling call, so that runs repeat; ``seed`` is an
    unsigned 32-bit int, as in sentencepiece."""
    RANDOM.seed(_integer("seed", seed, 0, 2**32 - 1))


def SetMinLogLevel(v: int) -> None:
    """Sets the least severity a log message needs to be written (0 info ... 3 fatal)."""
    global _min_log_level
    _min_log_level = _integer("v", v, _INT_MIN, _INT_MAX)


def SetNBestTimeout(timeout_ms: int) -> None:
    """Sets how long one n-best search may run, in milliseconds, before it gives up and
    returns only the best segmentation (0 or less: no limit; the default is 30,000)."""
    spm_set_nbest_timeout(_integer("timeout_ms", timeout_ms, _INT_MIN, _INT_MAX))


def SetDataDir(data_dir: str | bytes | PathLike[str]) -> None:
    """Sets the directory sentencepiece reads its normalization rule tables from (tokensmith
    builds them itself: see the module documentation)."""
    global _data_dir
    if not isinstance(data_dir, str | bytes | PathLike):
        raise ArgumentTypeError(f"data_dir must be a str, not {type(data_dir).__name__}")
    _data_dir = os.fsdecode(data_dir)


class ThreadPool:
    """A number of threads for the batch calls' ``thread_pool=`` argument.

    ``num_threads`` below 0 means one per CPU; the number is kept between 1 and 1024, as in
    sentencepiece. Unlike sentencepiece's, which holds its threads, it can be pickled.

    >>> ThreadPool(0).num_threads(), ThreadPool(5000).num_threads()
    (1, 1024)
    """

    __slots__ = ("_num_threads",)

    def __init__(self, num_threads: int) -> None:
        n = _integer("num_threads", num_threads, _INT_MIN, _INT_MAX)
        if n < 0:
            n = os.cpu_count() or 1
        self._num_threads = max(1, min(n, _MAX_THREADS))

    def num_threads(self) -> int:
        """The number of threads the batch calls given this pool run on."""
        return self._num_threads


set_random_generator_seed = SetRandomGeneratorSeed
set_min_log_level = SetMinLogLevel
set_nbest_timeout = SetNBestTimeout
set_data_dir = SetDataDir
