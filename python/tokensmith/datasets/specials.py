"""Adding BOS/EOS ids around every document of a flat ``(tokens, lengths)`` batch, vectorised.

>>> t, n = add_specials(np.array([5, 6, 7], np.uint32), np.array([2, 1]), bos=1, eos=2)
>>> t.tolist(), n.tolist()
([1, 5, 6, 2, 1, 7, 2], [4, 3])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def add_specials(
    tokens: npt.NDArray[np.uint32],
    lengths: npt.NDArray[np.int64],
    *,
    bos: int | None,
    eos: int | None,
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]:
    """Returns the batch with ``bos`` before and ``eos`` after each document (``None``: none)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    lead, tail = int(bos is not None), int(eos is not None)
    if lead + tail == 0:
        return tokens, lengths
    n = len(lengths)
    new_lengths = lengths + lead + tail
    out = np.empty(int(new_lengths.sum()), dtype=np.uint32)
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(new_lengths[:-1], out=starts[1:])
    if bos is not None:
        out[starts] = bos
    if eos is not None:
        out[starts + new_lengths - 1] = eos
    # Each token of document d moves right by d * (lead + tail) + lead.
    shift = np.repeat(np.arange(n, dtype=np.int64) * (lead + tail) + lead, lengths)
    out[np.arange(len(tokens), dtype=np.int64) + shift] = tokens
    return out, new_lengths
