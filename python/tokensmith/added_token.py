"""``AddedToken``: a token to add on top of a tokenizer's vocabulary, with HF's flags.

Its constructor takes HF ``tokenizers.AddedToken``'s arguments and defaults. ``normalized``
left unset means "not special": a special token is matched in the original text, any other
in the normalized text.

>>> from tokensmith import AddedToken
>>> AddedToken("<x>")
AddedToken("<x>", rstrip=False, lstrip=False, single_word=False, normalized=True, special=False)
>>> AddedToken("<x>", special=True).normalized
False
"""

from __future__ import annotations

from typing import Any

__all__ = ["AddedToken"]


class AddedToken:
    """A token for :meth:`tokensmith.Tokenizer.add_tokens` (HF's ``AddedToken``).

    ``single_word``: match only where no word character touches it; ``lstrip``/``rstrip``:
    take the whitespace before/after it into the match; ``normalized``: match it in the
    normalized text (default: not ``special``); ``special``: decoding with
    ``skip_special_tokens`` drops it. :meth:`Tokenizer.add_special_tokens` makes a token
    special, as HF's does (it sets ``special`` on the object given).

    Raises:
        AddedTokenError: ``content`` is not a str, or a flag not a bool (HF raises TypeError;
            this is one), naming the argument.

    >>> AddedToken("<x>", lstrip=1)
    Traceback (most recent call last):
    ...
    tokensmith.errors.AddedTokenError: AddedToken lstrip must be a bool, got int
    """

    __slots__ = ("content", "single_word", "lstrip", "rstrip", "_normalized", "special")

    def __init__(
        self,
        content: str = "",
        single_word: bool = False,
        lstrip: bool = False,
        rstrip: bool = False,
        normalized: bool | None = None,
        special: bool = False,
    ) -> None:
        from tokensmith.errors import AddedTokenError

        if not isinstance(content, str):
            raise AddedTokenError(f"AddedToken content must be a str, got {type(content).__name__}")
        flags = {"single_word": single_word, "lstrip": lstrip, "rstrip": rstrip, "special": special}
        if normalized is not None:
            flags["normalized"] = normalized
        for name, value in flags.items():
            if not isinstance(value, bool):
                raise AddedTokenError(
                    f"AddedToken {name} must be a bool, got {type(value).__name__}"
                )
        self.content = content
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        self._normalized = normalized
        self.special = special

    @property
    def normalized(self) -> bool:
        """Whether it is matched in the normalized text (unset: not ``special``)."""
        return not self.special if self._normalized is None else self._normalized

    def __repr__(self) -> str:
        return (
            f'AddedToken("{self.content}", rstrip={self.rstrip}, lstrip={self.lstrip}, '
            f"single_word={self.single_word}, normalized={self.normalized}, "
            f"special={self.special})"
        )

    def __str__(self) -> str:
        return self.content

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AddedToken):
            return NotImplemented
        return _flags(self) == _flags(other)

    def __hash__(self) -> int:
        return hash(self.content)


def _flags(token: Any) -> tuple[str, bool, bool, bool, bool, bool]:
    """``(content, single_word, lstrip, rstrip, normalized, special)`` of a token."""
    return (
        token.content,
        bool(token.single_word),
        bool(token.lstrip),
        bool(token.rstrip),
        bool(token.normalized),
        bool(token.special),
    )
