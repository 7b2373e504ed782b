"""HF ``tokenizers.decoders``: every decoder, with HF's constructor and JSON.

>>> from tokensmith import decoders
>>> decoders.WordPiece().decode(["hel", "##lo", "!"])
'hello!'
"""

from __future__ import annotations

from collections.abc import Sequence as _Seq

from tokensmith.components import _run
from tokensmith.components._base import Component, Regex, pattern_json
from tokensmith.components.decode_stream import DecodeStream
from tokensmith.components.pre_tokenizers import _prepend_scheme

__all__ = [
    "BPEDecoder",
    "ByteFallback",
    "ByteLevel",
    "CTC",
    "DecodeStream",
    "Decoder",
    "Fuse",
    "Metaspace",
    "Replace",
    "Sequence",
    "Strip",
    "WordPiece",
]


class Decoder(Component):
    """Base class of the decoders."""

    __slots__ = ()

    def decode(self, tokens: _Seq[str]) -> str:
        """The text ``tokens`` decode to (run by the Rust core).

        Raises:
            TokenizerJsonError: the core cannot run this decoder's settings.
        """
        return _run.decode(self.to_json(), list(tokens))


class _Plain(Decoder):
    __slots__ = ()

    def __init__(self) -> None:
        self._init()


class ByteFallback(_Plain):
    """Turns runs of ``<0xNN>`` tokens back into the characters their bytes spell."""

    __slots__ = ()
    _type = "ByteFallback"


class Fuse(_Plain):
    """Joins every token into one."""

    __slots__ = ()
    _type = "Fuse"


class ByteLevel(Decoder):
    """Turns GPT-2's byte alphabet back into text."""

    __slots__ = ()
    _type = "ByteLevel"

    def __init__(self) -> None:
        # HF writes the pre-tokenizer's fields, which decoding does not use.
        self._init(add_prefix_space=True, trim_offsets=True, use_regex=True)


class BPEDecoder(Decoder):
    """Turns ``suffix`` at the end of a token into a space."""

    __slots__ = ()
    _type = "BPEDecoder"

    def __init__(self, suffix: str = "</w>") -> None:
        self._init(suffix=suffix)


class CTC(Decoder):
    """Collapses repeats, drops ``pad_token`` and (``cleanup``) turns
    ``word_delimiter_token`` into a space."""

    __slots__ = ()
    _type = "CTC"

    def __init__(
        self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True
    ) -> None:
        self._init(pad_token=pad_token, word_delimiter_token=word_delimiter_token, cleanup=cleanup)


class Metaspace(Decoder):
    """Turns ``replacement`` back into spaces (dropping the one ``prepend_scheme`` put
    first)."""

    __slots__ = ()
    _type = "Metaspace"
    _setters = {"prepend_scheme": _prepend_scheme}

    def __init__(
        self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True
    ) -> None:
        self._init(
            replacement=replacement, prepend_scheme=_prepend_scheme(prepend_scheme), split=split
        )


class Replace(Decoder):
    """Replaces every match of ``pattern`` (``str`` or :class:`Regex`) with ``content``."""

    __slots__ = ()
    _type = "Replace"
    _setters = {"pattern": pattern_json}

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self._init(pattern=pattern_json(pattern), content=content)


class Strip(Decoder):
    """Strips up to ``left`` and ``right`` ``content`` characters off each token."""

    __slots__ = ()
    _type = "Strip"
    _names = {"start": "start", "stop": "stop"}

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        self._init(content=content, start=left, stop=right)


class WordPiece(Decoder):
    """Joins WordPiece tokens: ``prefix`` marks a continuation; ``cleanup`` fixes the
    spaces around English punctuation and contractions."""

    __slots__ = ()
    _type = "WordPiece"

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self._init(prefix=prefix, cleanup=cleanup)


class Sequence(Decoder):
    """Runs ``decoders`` in order."""

    __slots__ = ()
    _type = "Sequence"
    _children = "decoders"

    def __init__(self, decoders_py: list[Decoder]) -> None:
        from tokensmith.components.registry import children

        self._init(decoders=children(decoders_py, Decoder, "decoders"))

    def __getitem__(self, index: int) -> Decoder:
        item: Decoder = self._state["decoders"][index]
        return item

    def __len__(self) -> int:
        return len(self._state["decoders"])
