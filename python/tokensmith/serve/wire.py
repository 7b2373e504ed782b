"""The tokenize answer in binary: a JSON header, then five flat arrays per tokenizer.

Layout (little-endian): ``u32`` header length, the header's UTF-8 JSON padded with spaces to
a multiple of 4 bytes, then for each tokenizer ``n`` ``int32`` ids and ``n`` ``uint32`` each
of byte starts, byte ends, UTF-16 starts and UTF-16 ends. The page reads them as typed-array
views without copying; 1 MB of text is about 5 MB per tokenizer, where JSON would be three
times that and slow to parse.

Tokens that draw no character of their own (a byte-level token holding the tail of a
character, SentencePiece's dummy ``▁``) are drawn as their readable bytes; the header's
``labels`` give those per id.

>>> import numpy as np
>>> cut = Cut(*(np.array([1, 2]),) * 5)
>>> blob = pack(n_bytes=2, n_chars=2, items=[("k", "label", cut, {})])
>>> int.from_bytes(blob[:4], "little") % 4
0
>>> len(blob) - 4 - int.from_bytes(blob[:4], "little")
40
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from tokensmith.serve.pieces import readable
from tokensmith.serve.segmenter import Cut, IntArray, Segmenter

__all__ = ["ghost_ids", "labels_for", "pack"]


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


def pack(
    *, n_bytes: int, n_chars: int, items: Sequence[tuple[str, str, Cut, dict[str, str]]]
) -> bytes:
    """The binary answer for ``items`` (key, label, cut, ghost labels)."""
    header = {
        "n_bytes": n_bytes,
        "n_chars": n_chars,
        "results": [
            {"key": key, "label": label, "n_tokens": cut.n_tokens, "labels": labels}
            for key, label, cut, labels in items
        ],
    }
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    head += b" " * (-len(head) % 4)
    parts = [len(head).to_bytes(4, "little"), head]
    for _, _, cut, _ in items:
        parts.append(cut.ids.astype("<i4").tobytes())
        for column in (cut.byte_starts, cut.byte_ends, cut.u16_starts, cut.u16_ends):
            parts.append(column.astype("<u4").tobytes())
    return b"".join(parts)
