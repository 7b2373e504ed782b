"""Tokens written readably: what the hover card and the page's byte-only tokens show.

A vocabulary spells tokens its own way (``Ġ`` for a space in byte-level BPE, ``▁`` in
SentencePiece, ``<0xE3>`` for a byte-fallback token). The page shows the bytes a token stands
for: as text when they are whole UTF-8, as hex bytes when the token holds part of a character.

>>> readable(b" hello")
' hello'
>>> readable(b"\\xf0\\x9f")
'⟨F0 9F⟩'
>>> describe(PieceInfo("<0xE3>", b"\\xe3"))["kind"]
'byte fallback'
"""

from __future__ import annotations

import re
from typing import Any

from tokensmith.serve.segmenter import PieceInfo

__all__ = ["describe", "readable"]

_BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")


def readable(data: bytes) -> str:
    """``data`` as text if it is whole UTF-8, else its bytes in hex between ``⟨ ⟩``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "⟨" + " ".join(f"{b:02X}" for b in data) + "⟩"


def describe(piece: PieceInfo) -> dict[str, Any]:
    """What the hover card shows about one token."""
    try:
        piece.data.decode("utf-8")
        whole = True
    except UnicodeDecodeError:
        whole = False
    if _BYTE_PIECE.fullmatch(piece.raw):
        kind = "byte fallback"
    elif not whole:
        kind = "part of a character"
    elif "Ġ" in piece.raw or "▁" in piece.raw:
        kind = "space marked"
    else:
        kind = "text"
    return {
        "raw": piece.raw,
        "hex": piece.data.hex(" ").upper(),
        "text": readable(piece.data),
        "kind": kind,
    }
