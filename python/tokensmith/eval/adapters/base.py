"""The one interface every metric talks to: :class:`TokenizerAdapter`.

tokensmith, tiktoken, HF ``tokenizers`` and sentencepiece spell the same operations
differently. An adapter hides that, and hands back a whole corpus as flat numpy arrays so the
metrics never loop over tokens in Python.

What an adapter does not do: normalize text, add special tokens, or truncate. Every adapter
encodes *ordinary* text: special-token text is just text, and no BOS/EOS is added.

>>> import numpy as np
>>> from tokensmith.eval.adapters import TokenBatch
>>> b = TokenBatch(ids=np.array([5, 6, 7]), offsets=np.array([0, 2, 3]))
>>> b.lengths().tolist()
[2, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
SpanUnit = Literal["byte", "char"]


@dataclass(frozen=True)
class TokenBatch:
    """Many texts' token ids, as one flat array.

    Attributes:
        ids: Every token id, text after text.
        offsets: ``len(texts) + 1`` positions; text ``i`` owns ``ids[offsets[i]:offsets[i+1]]``.
        starts: Where each token starts inside its own text, or ``None`` when the tokens'
            bytes concatenate to the text (byte-level BPE); then spans come from token lengths.
        ends: Where each token ends (exclusive), with ``starts``.
        span_unit: Whether ``starts``/``ends`` count UTF-8 bytes or characters (code points).
    """

    ids: IntArray
    offsets: IntArray
    starts: IntArray | None = None
    ends: IntArray | None = None
    span_unit: SpanUnit = "byte"

    def lengths(self) -> IntArray:
        """The number of tokens of each text."""
        return np.diff(self.offsets)


@runtime_checkable
class TokenizerAdapter(Protocol):
    """What the metrics need from a tokenizer.

    Implement this to evaluate a tokenizer tokensmith does not know. Ids are ``0 <= id <
    vocab_size``. The ``*_ids`` methods return sorted arrays (empty when not applicable:
    byte-level BPE has neither an unknown token nor byte-fallback tokens).
    """

    @property
    def name(self) -> str:
        """A short label for reports."""
        ...

    @property
    def vocab_size(self) -> int:
        """The number of ids, special tokens included (the embedding matrix's row count)."""
        ...

    def encode(self, text: str) -> list[int]:
        """The ids of one text, as ordinary text."""
        ...

    def encode_batch(self, texts: Sequence[str]) -> TokenBatch:
        """The ids of many texts, flat."""
        ...

    def decode(self, ids: Sequence[int]) -> str:
        """The text of a token sequence."""
        ...

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for in running text (``b""`` for ids that are unused)."""
        ...

    def unknown_ids(self) -> IntArray:
        """Ids that mean "unknown text" (``<unk>``, ``[UNK]``)."""
        ...

    def byte_fallback_ids(self) -> IntArray:
        """Ids of byte-fallback tokens (``<0x00>`` ... ``<0xFF>``)."""
        ...


def flatten(lists: Sequence[Sequence[int] | IntArray]) -> TokenBatch:
    """Packs per-text id lists into a :class:`TokenBatch` without a Python loop per token.

    >>> flatten([[1, 2], [], [3]]).offsets.tolist()
    [0, 2, 2, 3]
    """
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] == 0:
        return TokenBatch(ids=np.zeros(0, dtype=np.int64), offsets=offsets)
    ids = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists if len(x)])
    return TokenBatch(ids=ids, offsets=offsets)


def token_byte_lengths(adapter: TokenizerAdapter) -> IntArray:
    """Every id's byte length, ``0`` for unused ids: one pass over the vocabulary.

    Adapters that can do better (from a rank table) expose ``token_byte_lengths()``
    themselves; this is the generic fallback.
    """
    own = getattr(adapter, "token_byte_lengths", None)
    if callable(own):
        return np.asarray(own(), dtype=np.int64)
    return np.fromiter(
        (len(adapter.token_bytes(i)) for i in range(adapter.vocab_size)),
        dtype=np.int64,
        count=adapter.vocab_size,
    )
