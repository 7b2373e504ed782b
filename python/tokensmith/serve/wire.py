"""The tokenize answer in binary: a JSON header, then flat arrays per tokenizer.

Layout (little-endian): ``u32`` header length, the header's UTF-8 JSON padded with spaces to
a multiple of 4 bytes, then for each tokenizer ``n`` ``int32`` ids and ``n`` ``uint32`` each
of byte ends and UTF-16 ends, then, unless the header marks the tokenizer ``contiguous``
(each token starts where the one before ends, the first at 0: every byte-level BPE), byte
starts and UTF-16 starts. The page reads them as typed-array views without copying; 1 MB of
text is about 3 MB per byte-level tokenizer, where JSON would be five times that and slow to
parse.

Tokens that draw no character of their own (a byte-level token holding the tail of a
character, SentencePiece's dummy ``▁``) are drawn as their readable bytes; the header's
``labels`` give those per id.

>>> import numpy as np
>>> cut = Cut(*(np.array([1, 2]),) * 5)
>>> blob = pack(n_bytes=2, n_chars=2, items=[("k", "label", cut, {})])
>>> int.from_bytes(blob[:4], "little") % 4
0
>>> len(blob) - 4 - int.from_bytes(blob[:4], "little")  # not contiguous: 5 arrays of 2
40
>>> tiled = Cut(np.array([7, 8]), *(np.array(a) for a in ([0, 1], [1, 3], [0, 1], [1, 2])))
>>> blob = pack(n_bytes=3, n_chars=2, items=[("k", "label", tiled, {})])
>>> len(blob) - 4 - int.from_bytes(blob[:4], "little")  # contiguous: 3 arrays of 2
24
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from tokensmith.serve.pieces import readable
from tokensmith.serve.segmenter import Cut, IntArray, Segmenter

__all__ = ["contiguous", "ghost_ids", "labels_for", "pack"]


def ghost_ids(cut: Cut) -> IntArray:
    """Ids of tokens that draw no character: their UTF-16 span is empty once the spans of
    the tokens before them are drawn."""
    if cut.n_tokens == 0:
        return np.zeros(0, dtype=np.int64)
    drawn = np.maximum.accumulate(cut.u16_ends)
    before = np.concatenate([[0], drawn[:-1]])
    ghost = np.maximum(cut.u16_starts, before) >= cut.u16_ends
    return np.unique(cut.ids[ghost])


def labels_for(segmenter: Segmenter, cut: Cut) -> dict[str, str]:
    """The readable bytes of every token in ``cut`` that draws no character (its spelling in
    the vocabulary, ``▁`` or ``Ġ``, when those bytes are only whitespace)."""
    labels = {}
    for i in ghost_ids(cut).tolist():
        piece = segmenter.piece(int(i))
        text = readable(piece.data)
        labels[str(i)] = text if text.strip() else piece.raw
    return labels


def contiguous(cut: Cut) -> bool:
    """Whether every token starts where the one before it ends (the first at 0), in bytes and
    in UTF-16 units, so the starts need not be sent."""
    if cut.n_tokens == 0:
        return True
    return all(
        starts[0] == 0 and np.array_equal(starts[1:], ends[:-1])
        for starts, ends in ((cut.byte_starts, cut.byte_ends), (cut.u16_starts, cut.u16_ends))
    )


def pack(
    *, n_bytes: int, n_chars: int, items: Sequence[tuple[str, str, Cut, dict[str, str]]]
) -> bytes:
    """The binary answer for ``items`` (key, label, cut, ghost labels)."""
    header = {
        "n_bytes": n_bytes,
        "n_chars": n_chars,
        "results": [
            {
                "key": key,
                "label": label,
                "n_tokens": cut.n_tokens,
                "contiguous": contiguous(cut),
                "labels": labels,
            }
            for key, label, cut, labels in items
        ],
    }
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    head += b" " * (-len(head) % 4)
    parts = [len(head).to_bytes(4, "little"), head]
    for _, _, cut, _ in items:
        parts.append(cut.ids.astype("<i4").tobytes())
        columns = [cut.byte_ends, cut.u16_ends]
        if not contiguous(cut):
            columns += [cut.byte_starts, cut.u16_starts]
        for column in columns:
            parts.append(column.astype("<u4").tobytes())
    return b"".join(parts)
