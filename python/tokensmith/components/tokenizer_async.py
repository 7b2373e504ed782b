"""HF ``Tokenizer``'s ``async_encode``, ``async_encode_batch``, ``async_encode_batch_fast``
and ``async_decode_batch``
(mixed into :class:`~tokensmith.Tokenizer`): each runs its synchronous twin on the event
loop's default executor and returns the future to await. The batch calls release the GIL
in the core, so other coroutines and threads go on meanwhile. As in HF, calling one outside
a running event loop raises ``RuntimeError``.

>>> import asyncio
>>> from tokensmith import Tokenizer
>>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
...     ' "vocab": {"?": 0, "a": 1}}, "pre_tokenizer": {"type": "Whitespace"}}')
>>> async def ids() -> list[int]:
...     return (await tok.async_encode("a b")).ids
>>> asyncio.run(ids())
[1, 0]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    import asyncio

    from tokensmith._core import EncodingResult
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["TokenizerAsync"]

T = TypeVar("T")


def _in_executor(run: Callable[[], T]) -> asyncio.Future[T]:
    """``run`` on the running loop's default executor. asyncio is imported here, on first
    use: imported with the module, it was about a third of ``import tokensmith``'s time."""
    import asyncio

    return asyncio.get_running_loop().run_in_executor(None, run)


class TokenizerAsync:
    """The ``async_*`` methods HF's ``Tokenizer`` has."""

    __slots__ = ()

    def async_encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> asyncio.Future[EncodingResult]:
        """A future of :meth:`~tokensmith.Tokenizer.encode`'s result."""
        tok = cast("Tokenizer", self)
        run = functools.partial(tok.encode, sequence, pair, is_pretokenized, add_special_tokens)
        return _in_executor(run)

    def async_encode_batch(
        self, input: Sequence[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> asyncio.Future[list[EncodingResult]]:
        """A future of :meth:`~tokensmith.Tokenizer.encode_batch`'s result."""
        tok = cast("Tokenizer", self)
        run = functools.partial(tok.encode_batch, input, is_pretokenized, add_special_tokens)
        return _in_executor(run)

    def async_encode_batch_fast(
        self, input: Sequence[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> asyncio.Future[list[EncodingResult]]:
        """A future of :meth:`~tokensmith.Tokenizer.encode_batch_fast`'s result."""
        tok = cast("Tokenizer", self)
        run = functools.partial(tok.encode_batch_fast, input, is_pretokenized, add_special_tokens)
        return _in_executor(run)

    def async_decode_batch(
        self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True
    ) -> asyncio.Future[list[str]]:
        """A future of :meth:`~tokensmith.Tokenizer.decode_batch`'s result."""
        tok = cast("Tokenizer", self)
        run = functools.partial(tok.decode_batch, sequences, skip_special_tokens)
        return _in_executor(run)
