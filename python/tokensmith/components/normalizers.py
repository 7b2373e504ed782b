"""HF ``tokenizers.normalizers``: every normalizer, with HF's constructor and JSON.

>>> from tokensmith import normalizers
>>> normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()]).normalize_str("Héllò")
'Hello'
"""

from __future__ import annotations

import base64
from collections.abc import Sequence as _Seq

from tokensmith.components import _run
from tokensmith.components._base import Component, Regex, pattern_json

__all__ = [
    "NORMALIZERS",
    "BertNormalizer",
    "ByteLevel",
    "Lowercase",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Nmt",
    "Normalizer",
    "Precompiled",
    "Prepend",
    "Replace",
    "Sequence",
    "Strip",
    "StripAccents",
    "unicode_normalizer_from_str",
]


class Normalizer(Component):
    """Base class of the normalizers."""

    __slots__ = ()

    def normalize_str(self, sequence: str) -> str:
        """``sequence`` as this normalizer rewrites it (run by the Rust core).

        Raises:
            TokenizerJsonError: the core cannot run this normalizer's settings.
        """
        return _run.normalize_str(self.to_json(), sequence)


class BertNormalizer(Normalizer):
    """BERT's cleaning, CJK spacing, accent stripping (``None``: as ``lowercase``) and
    lowercasing."""

    __slots__ = ()
    _type = "BertNormalizer"

    def __init__(
        self,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        lowercase: bool = True,
    ) -> None:
        self._init(
            clean_text=clean_text,
            handle_chinese_chars=handle_chinese_chars,
            strip_accents=strip_accents,
            lowercase=lowercase,
        )


class _Plain(Normalizer):
    """A normalizer without options."""

    __slots__ = ()

    def __init__(self) -> None:
        self._init()


class ByteLevel(_Plain):
    """Every character becomes its UTF-8 bytes in GPT-2's printable alphabet."""

    __slots__ = ()
    _type = "ByteLevel"


class Lowercase(_Plain):
    """Lowercases every character."""

    __slots__ = ()
    _type = "Lowercase"


class NFC(_Plain):
    """Unicode NFC."""

    __slots__ = ()
    _type = "NFC"


class NFD(_Plain):
    """Unicode NFD."""

    __slots__ = ()
    _type = "NFD"


class NFKC(_Plain):
    """Unicode NFKC."""

    __slots__ = ()
    _type = "NFKC"


class NFKD(_Plain):
    """Unicode NFKD."""

    __slots__ = ()
    _type = "NFKD"


class Nmt(_Plain):
    """Drops most C0 controls and turns tab, newlines and invisible spaces into ``' '``
    (the file HF's ``SentencePieceUnigramTokenizer`` writes uses it)."""

    __slots__ = ()
    _type = "Nmt"


class StripAccents(_Plain):
    """Drops combining marks (after an NFD, accents)."""

    __slots__ = ()
    _type = "StripAccents"


class Precompiled(Normalizer):
    """A SentencePiece charsmap (the bytes of a ``.model`` file's ``precompiled_charsmap``).

    Raises:
        TokenizerJsonError: the charsmap cannot be parsed.
    """

    __slots__ = ()
    _type = "Precompiled"

    def __init__(self, precompiled_charsmap: bytes | _Seq[int]) -> None:
        from tokensmith.errors import TokenizerJsonError

        data = base64.b64encode(bytes(precompiled_charsmap)).decode("ascii")
        self._init(precompiled_charsmap=data)
        try:
            _run.normalize_str(self.to_json(), "")
        except TokenizerJsonError as e:
            raise TokenizerJsonError(f"Precompiled: cannot parse precompiled_charsmap ({e})") from e


class Prepend(Normalizer):
    """Puts ``prepend`` before a non-empty text."""

    __slots__ = ()
    _type = "Prepend"

    def __init__(self, prepend: str = "\u2581") -> None:
        self._init(prepend=prepend)


class Replace(Normalizer):
    """Replaces every match of ``pattern`` (a literal ``str`` or a :class:`Regex`) with
    ``content``."""

    __slots__ = ()
    _type = "Replace"
    _setters = {"pattern": pattern_json}

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self._init(pattern=pattern_json(pattern), content=content)


class Strip(Normalizer):
    """Strips whitespace on the ``left`` and/or ``right``."""

    __slots__ = ()
    _type = "Strip"
    _names = {"left": "strip_left", "right": "strip_right"}

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self._init(strip_left=left, strip_right=right)


class Sequence(Normalizer):
    """Runs ``normalizers`` in order."""

    __slots__ = ()
    _type = "Sequence"
    _children = "normalizers"

    def __init__(self, normalizers: list[Normalizer]) -> None:
        from tokensmith.components.registry import children

        self._init(normalizers=children(normalizers, Normalizer, "normalizers"))

    def __getitem__(self, index: int) -> Normalizer:
        item: Normalizer = self._state["normalizers"][index]
        return item

    def __len__(self) -> int:
        return len(self._state["normalizers"])


NORMALIZERS: dict[str, type[Normalizer]] = {"nfc": NFC, "nfd": NFD, "nfkc": NFKC, "nfkd": NFKD}


def unicode_normalizer_from_str(normalizer: str) -> Normalizer:
    """The Unicode normalizer named ``nfc``, ``nfd``, ``nfkc`` or ``nfkd``.

    Raises:
        UnknownFormatError: another name (a ValueError, as HF raises).
    """
    from tokensmith.errors import UnknownFormatError

    if normalizer not in NORMALIZERS:
        raise UnknownFormatError(
            f"{normalizer!r} is not a known unicode normalizer; "
            f"available are {', '.join(NORMALIZERS)}"
        )
    return NORMALIZERS[normalizer]()
