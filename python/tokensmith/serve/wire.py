"""The tokenize answer in binary: a JSON header, then a few compact columns per tokenizer.

Layout: a little-endian ``u32`` header length, the header's UTF-8 JSON, then for each
tokenizer three columns of bytes, their sizes in the header's ``sizes``:

- ``ids``: each id in ``id_bytes`` little-endian bytes (2, 3 or 4: the fewest that hold the
  largest id in the answer);
- ``lengths``: each token's length in bytes, a LEB128 varint (:mod:`~tokensmith.serve.varint`);
- ``gaps``: each token's start minus the end of the token before (the first's minus 0),
  zigzag-coded varints; empty when every token starts where the one before ends (every
  byte-level BPE: the header's ``contiguous``).

A byte-level BPE token so costs 3 or 4 bytes (o200k_base: 1 MB of text in about 1 MB), where
an ``int32`` id and two ``uint32`` offsets took 12. The page rebuilds the byte offsets as
running sums and maps them to the UTF-16 positions of the text it holds.

Tokens that draw no character of their own (a byte-level token holding the tail of a
character, SentencePiece's dummy ``▁``) are drawn as their readable bytes; the header's
``labels`` give those per id.

>>> import numpy as np
>>> cut = Cut(np.array([7, 300]), np.array([0, 1]), np.array([1, 3]))
>>> blob = pack(n_bytes=3, n_chars=2, items=[("k", "label", cut, {})])
>>> size = int.from_bytes(blob[:4], "little")
>>> json.loads(blob[4 : 4 + size])["results"][0]["sizes"]
[4, 2, 0]
>>> blob[4 + size :].hex(" ")  # ids 7 and 300 in two bytes each, lengths 1 and 2
'07 00 2c 01 01 02'
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from tokensmith.serve.pieces import readable
from tokensmith.serve.segmenter import Cut, IntArray, Segmenter, TextLayout
from tokensmith.serve.varint import leb128, zigzag

__all__ = ["contiguous", "ghost_ids", "labels_for", "pack"]


def ghost_ids(cut: Cut, layout: TextLayout) -> IntArray:
    """Ids of tokens that draw no character: no character starts between the end of what
    the tokens before them drew and their own end."""
    if cut.n_tokens == 0:
        return np.zeros(0, dtype=np.int64)
    drawn = np.maximum.accumulate(cut.byte_ends)
    before = np.concatenate([[0], drawn[:-1]])
    first = np.maximum(cut.byte_starts, before)
    ghost = layout.chars_before(cut.byte_ends) <= layout.chars_before(first)
    return np.unique(cut.ids[ghost])


def labels_for(segmenter: Segmenter, cut: Cut, layout: TextLayout) -> dict[str, str]:
    """The readable bytes of every token in ``cut`` that draws no character (its spelling in
    the vocabulary, ``▁`` or ``Ġ``, when those bytes are only whitespace)."""
    labels = {}
    for i in ghost_ids(cut, layout).tolist():
        piece = segmenter.piece(int(i))
        text = readable(piece.data)
        labels[str(i)] = text if text.strip() else piece.raw
    return labels


def contiguous(cut: Cut) -> bool:
    """Whether every token starts where the one before it ends (the first at 0)."""
    if cut.n_tokens == 0:
        return True
    starts, ends = cut.byte_starts, cut.byte_ends
    return bool(starts[0] == 0 and np.array_equal(starts[1:], ends[:-1]))


def id_width(items: Sequence[tuple[str, str, Cut, dict[str, str]]]) -> int:
    """The bytes an id takes: the fewest of 2, 3 and 4 that hold every id in ``items``."""
    largest = max((int(cut.ids.max()) for _, _, cut, _ in items if cut.n_tokens), default=0)
    return next((width for width in (2, 3) if largest < 1 << (8 * width)), 4)


def _columns(cut: Cut, width: int) -> list[bytes]:
    ids = cut.ids.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :width].tobytes()
    lengths = leb128(cut.byte_ends - cut.byte_starts)
    if contiguous(cut):
        return [ids, lengths, b""]
    previous = np.concatenate([[0], cut.byte_ends[:-1]])
    return [ids, lengths, leb128(zigzag(cut.byte_starts - previous))]


def pack(
    *, n_bytes: int, n_chars: int, items: Sequence[tuple[str, str, Cut, dict[str, str]]]
) -> bytes:
    """The binary answer for ``items`` (key, label, cut, ghost labels)."""
    width = id_width(items)
    columns = [_columns(cut, width) for _, _, cut, _ in items]
    header = {
        "n_bytes": n_bytes,
        "n_chars": n_chars,
        "id_bytes": width,
        "results": [
            {
                "key": key,
                "label": label,
                "n_tokens": cut.n_tokens,
                "contiguous": not parts[2],
                "sizes": [len(part) for part in parts],
                "labels": labels,
            }
            for (key, label, cut, labels), parts in zip(items, columns, strict=True)
        ],
    }
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return b"".join([len(head).to_bytes(4, "little"), head, *(p for ps in columns for p in ps)])
