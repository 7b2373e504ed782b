"""How a tokenizer cuts a text: pieces with their ids, as data and as colored HTML.

>>> [p.text for p in segment("cl100k_base", "strawberry")]
['str', 'aw', 'berry']
>>> visible(" a\\tb\\n")
'·a→b↵'
"""

from __future__ import annotations

import html

from tokensmith.eval.adapters import TokenizerSpec, load_tokenizer
from tokensmith.report.schema import Piece

#: Background colors that alternate between neighbouring pieces (light, readable with black).
PALETTE = ("#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6")


def segment(tokenizer: TokenizerSpec, text: str) -> list[Piece]:
    """The pieces of ``text``: one per token, except that tokens splitting a UTF-8 character
    are grouped until their bytes decode (a byte-level BPE may cut "é" in two)."""
    adapter = load_tokenizer(tokenizer)
    pieces: list[Piece] = []
    ids: list[int] = []
    buf = b""
    for token in adapter.encode(text):
        ids.append(token)
        buf += adapter.token_bytes(token)
        try:
            decoded = buf.decode("utf-8")
        except UnicodeDecodeError:
            continue
        pieces.append(Piece(tuple(ids), decoded))
        ids, buf = [], b""
    if ids:
        pieces.append(Piece(tuple(ids), buf.decode("utf-8", "replace")))
    return pieces


def visible(text: str) -> str:
    """Makes whitespace visible: space ``·``, tab ``→``, newline ``↵``."""
    return text.replace(" ", "·").replace("\t", "→").replace("\n", "↵")


def segmentation_html(pieces: list[Piece]) -> str:
    """The pieces as ``<span>`` elements with alternating colors; hovering shows the ids."""
    spans = []
    for i, piece in enumerate(pieces):
        color = PALETTE[i % len(PALETTE)]
        ids = " ".join(str(t) for t in piece.ids)
        spans.append(
            f'<span class="tok" style="background:{color}" title="{ids}">'
            f"{html.escape(visible(piece.text))}</span>"
        )
    return "".join(spans)
