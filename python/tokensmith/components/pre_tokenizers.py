"""HF ``tokenizers.pre_tokenizers``: every pre-tokenizer, with HF's constructor and JSON.

>>> from tokensmith import pre_tokenizers
>>> pre_tokenizers.Whitespace().pre_tokenize_str("Hi, you")
[('Hi', (0, 2)), (',', (2, 3)), ('you', (4, 7))]
"""

from __future__ import annotations

from tokensmith.components import _run
from tokensmith.components._base import Component, Regex, pattern_json
from tokensmith.components._behavior import behavior_json

__all__ = [
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "Metaspace",
    "PreTokenizer",
    "Punctuation",
    "Sequence",
    "Split",
    "UnicodeScripts",
    "Whitespace",
    "WhitespaceSplit",
]


class PreTokenizer(Component):
    """Base class of the pre-tokenizers."""

    __slots__ = ()

    def pre_tokenize_str(self, sequence: str) -> list[tuple[str, tuple[int, int]]]:
        """The pieces of ``sequence`` with their character offsets (run by the Rust core).

        Raises:
            TokenizerJsonError: the core cannot run this pre-tokenizer's settings.
        """
        return _run.pre_tokenize_str(self.to_json(), sequence)


class _Plain(PreTokenizer):
    """A pre-tokenizer without options."""

    __slots__ = ()

    def __init__(self) -> None:
        self._init()


class BertPreTokenizer(_Plain):
    """Splits on whitespace and isolates each punctuation character."""

    __slots__ = ()
    _type = "BertPreTokenizer"


class UnicodeScripts(_Plain):
    """Splits where the Unicode script changes."""

    __slots__ = ()
    _type = "UnicodeScripts"


class Whitespace(_Plain):
    """Splits into runs of word characters and runs of other non-space characters."""

    __slots__ = ()
    _type = "Whitespace"


class WhitespaceSplit(_Plain):
    """Splits on whitespace."""

    __slots__ = ()
    _type = "WhitespaceSplit"


class ByteLevel(PreTokenizer):
    """GPT-2's pre-tokenizer: the regex split (``use_regex``), then every byte spelled in
    its printable alphabet, with a space put first (``add_prefix_space``)."""

    __slots__ = ()
    _type = "ByteLevel"

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
    ) -> None:
        self._init(
            add_prefix_space=add_prefix_space, trim_offsets=trim_offsets, use_regex=use_regex
        )

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 characters that spell the bytes."""
        from tokensmith.io._byte_level import BYTE_TO_CHAR

        return list(BYTE_TO_CHAR)


class CharDelimiterSplit(PreTokenizer):
    """Splits on ``delimiter`` (one character), dropping it."""

    __slots__ = ()
    _type = "CharDelimiterSplit"

    def __init__(self, delimiter: str) -> None:
        from tokensmith.errors import PatternError

        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise PatternError(
                f"CharDelimiterSplit delimiter must be one character, got {delimiter!r}"
            )
        self._init(delimiter=delimiter)


class Digits(PreTokenizer):
    """Isolates runs of digits (each digit alone with ``individual_digits``)."""

    __slots__ = ()
    _type = "Digits"

    def __init__(self, individual_digits: bool = False) -> None:
        self._init(individual_digits=individual_digits)


class FixedLength(PreTokenizer):
    """Cuts every ``length`` characters."""

    __slots__ = ()
    _type = "FixedLength"

    def __init__(self, length: int = 5) -> None:
        self._init(length=length)


def _prepend_scheme(scheme: str) -> str:
    from tokensmith.errors import PatternError

    if scheme not in ("always", "never", "first"):
        raise PatternError(f"prepend_scheme must be 'always', 'never' or 'first', got {scheme!r}")
    return scheme


class Metaspace(PreTokenizer):
    """Spaces become ``replacement`` (one character), put first as ``prepend_scheme`` says
    (``always``, ``never``, ``first``), and the text is split before each (``split``)."""

    __slots__ = ()
    _type = "Metaspace"
    _setters = {"prepend_scheme": _prepend_scheme}

    def __init__(
        self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True
    ) -> None:
        self._init(
            replacement=replacement, prepend_scheme=_prepend_scheme(prepend_scheme), split=split
        )


class Punctuation(PreTokenizer):
    """Splits off punctuation with ``behavior`` (see :class:`Split`)."""

    __slots__ = ()
    _type = "Punctuation"
    _setters = {"behavior": behavior_json}
    _getters = {"behavior": str.lower}

    def __init__(self, behavior: str = "isolated") -> None:
        self._init(behavior=behavior_json(behavior))


class Split(PreTokenizer):
    """Splits on ``pattern`` (a literal ``str`` or a :class:`Regex`) with ``behavior``
    (``removed``, ``isolated``, ``merged_with_previous``, ``merged_with_next``,
    ``contiguous``); ``invert`` splits on what does not match."""

    __slots__ = ()
    _type = "Split"
    _setters = {"pattern": pattern_json, "behavior": behavior_json}
    _getters = {"behavior": str.lower}

    def __init__(self, pattern: str | Regex, behavior: str, invert: bool = False) -> None:
        self._init(pattern=pattern_json(pattern), behavior=behavior_json(behavior), invert=invert)


class Sequence(PreTokenizer):
    """Runs ``pre_tokenizers`` in order, each on the pieces of the one before."""

    __slots__ = ()
    _type = "Sequence"
    _children = "pretokenizers"

    def __init__(self, pre_tokenizers: list[PreTokenizer]) -> None:
        from tokensmith.components.registry import children

        self._init(pretokenizers=children(pre_tokenizers, PreTokenizer, "pre_tokenizers"))

    def __getitem__(self, index: int) -> PreTokenizer:
        item: PreTokenizer = self._state["pretokenizers"][index]
        return item

    def __len__(self) -> int:
        return len(self._state["pretokenizers"])
