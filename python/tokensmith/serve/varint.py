"""Whole numbers as LEB128 varints, built with numpy: seven bits a byte, low bits first, the
high bit set on every byte but a number's last. A token's byte length is nearly always under
128, so it takes one byte where a ``uint32`` takes four.

>>> import numpy as np
>>> leb128(np.array([0, 5, 127, 128, 300])).hex(" ")
'00 05 7f 80 01 ac 02'
>>> zigzag(np.array([0, -1, 1, -2, 2])).tolist()
[0, 1, 2, 3, 4]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tokensmith.errors import InvalidArgumentError

__all__ = ["leb128", "zigzag"]

_MAX = (1 << 35) - 1  # five bytes: every u32, and the zigzag of every i32


def leb128(values: npt.NDArray[np.integer]) -> bytes:
    """The varints of ``values`` (each in ``0..2**35``) one after another.

    Raises:
        InvalidArgumentError: a value is negative or too large.
    """
    v = np.asarray(values, dtype=np.int64)
    if v.size and (int(v.min()) < 0 or int(v.max()) > _MAX):
        raise InvalidArgumentError(f"varints hold 0..{_MAX}, not {int(v.min())}..{int(v.max())}")
    if not v.size or int(v.max()) < 0x80:  # the common case: one byte each
        return v.astype(np.uint8).tobytes()
    widths = np.ones(v.size, dtype=np.int64)
    for bits in (7, 14, 21, 28):
        widths += v >= (1 << bits)
    ends = np.cumsum(widths)
    starts = ends - widths
    out = np.zeros(int(ends[-1]) if v.size else 0, dtype=np.uint8)
    for k in range(5):
        more = widths > k
        if not more.any():
            break
        low = (v[more] >> (7 * k)) & 0x7F
        out[starts[more] + k] = low | np.where(widths[more] > k + 1, 0x80, 0)
    return out.tobytes()


def zigzag(values: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """Signed numbers as unsigned ones, small magnitudes staying small: 0, -1, 1, -2 … as
    0, 1, 2, 3 …"""
    v = np.asarray(values, dtype=np.int64)
    return np.where(v < 0, -2 * v - 1, 2 * v)
