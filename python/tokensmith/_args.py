"""Typed errors for arguments the compiled core cannot convert.

The core's conversions fail with pyo3's own words ("Can't extract `str` to `Vec`", "can't
convert negative int to unsigned"). The faces call the core directly, on the fast path, and
only when that raises a bare ``TypeError``/``OverflowError`` do they call these functions,
which look at the argument again and give a :class:`~tokensmith.errors.TokensmithError` that
says what was wrong in the user's terms.

>>> ids_error("abc", TypeError("Can't extract `str` to `Vec`"))
ArgumentTypeError('tokens must be a list of int token ids, not a str')
>>> ids_error([1, -1], OverflowError())
TokenIdRangeError('token id -1 (tokens[1]) is out of range: ids are 0 to 4294967295')
"""

from __future__ import annotations

import operator
from typing import Any

from tokensmith.errors import (
    ArgumentTypeError,
    InvalidArgumentError,
    TokenIdRangeError,
    TokensmithError,
)

__all__ = [
    "NOT_GIVEN",
    "NotGiven",
    "check_count",
    "check_threads",
    "ids_error",
    "texts_error",
    "text",
    "text_if_given",
    "text_or_none",
]

_MAX_ID = 2**32 - 1


def ids_error(tokens: Any, error: BaseException, what: str = "tokens") -> BaseException:
    """The error to raise for ids ``tokens`` that the core refused with ``error``."""
    if isinstance(error, TokensmithError):
        return error
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        return ArgumentTypeError(f"{what} must be a list of int token ids, not {_name(tokens)}")
    for i, token in enumerate(tokens):
        try:
            value = operator.index(token)
        except TypeError:
            return ArgumentTypeError(f"{what}[{i}] is {_name(token)}, not an int token id")
        if not 0 <= value <= _MAX_ID:
            return TokenIdRangeError(
                f"token id {value} ({what}[{i}]) is out of range: ids are 0 to {_MAX_ID}"
            )
    return error


def texts_error(texts: Any, error: BaseException, what: str = "text") -> BaseException:
    """The error to raise for ``texts`` (a str, or a list of them) that the core refused."""
    if isinstance(error, TokensmithError):
        return error
    if isinstance(texts, str):
        return error
    if not isinstance(texts, (list, tuple)):
        return ArgumentTypeError(f"{what} must be a str, not {_name(texts)}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            return ArgumentTypeError(f"{what}[{i}] is {_name(text)}, not a str")
    return error


def check_threads(num_threads: Any) -> None:
    """Raises unless ``num_threads`` is an int >= 0 (0: one per core)."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise ArgumentTypeError(f"num_threads must be an int >= 0, not {_name(num_threads)}")
    if num_threads < 0:
        raise InvalidArgumentError(f"num_threads must be an int >= 0, not {num_threads}")


def check_count(name: str, value: Any, error: type[ValueError]) -> None:
    """Raises unless ``value`` is an int from 0 to 2**63 - 1: ``ArgumentTypeError`` for another
    type, ``error`` (the option's own error class) for a value out of range.

    >>> check_count("max_length", -1, ValueError)
    Traceback (most recent call last):
    ...
    ValueError: max_length must be an int from 0 to 9223372036854775807, not -1
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{name} must be an int, not {_name(value)}")
    if not 0 <= value < 2**63:
        raise error(f"{name} must be an int from 0 to {2**63 - 1}, not {value}")


def text(name: str, value: Any) -> str:
    """``value`` when it is a str; else the ``TypeError`` HF raises (``None`` included).

    >>> text("continuing_subword_prefix", "##")
    '##'
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def text_or_none(name: str, value: Any) -> str | None:
    """``value`` when it is a str or None; else HF's ``TypeError``."""
    return None if value is None else text(name, value)


class NotGiven:
    """The type of :data:`NOT_GIVEN`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()
"""The default of an argument HF documents as ``None`` but takes only as a str when given
(``models.BPE``'s and ``trainers.BpeTrainer``'s ``continuing_subword_prefix`` and
``end_of_word_suffix``): left out it means None; an explicit None is HF's ``TypeError``."""


def text_if_given(name: str, value: Any) -> str | None:
    """None when ``value`` is :data:`NOT_GIVEN`; else ``value`` when it is a str; else HF's
    ``TypeError`` (``None`` included).

    >>> text_if_given("end_of_word_suffix", NOT_GIVEN) is None
    True
    >>> text_if_given("end_of_word_suffix", None)
    Traceback (most recent call last):
      ...
    tokensmith.errors.ArgumentTypeError: end_of_word_suffix must be a str, not NoneType
    """
    return None if value is NOT_GIVEN else text(name, value)


def _name(value: Any) -> str:
    """``a str``, ``an int``: the type of ``value`` with its article."""
    name = type(value).__name__
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"
