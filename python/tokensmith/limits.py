"""Resource limits: the largest sizes a file, an option, an input or a chat template may ask for.

Each limit is checked before the memory or time it governs is spent; a breach raises
:class:`~tokensmith.errors.LimitError`, whose ``limit`` attribute names it. The defaults are
far above what real tokenizers need, so only corrupt or hostile input meets them. Raise one
for trusted input with :func:`set_limits` or the environment variable ``TOKENSMITH_<NAME>``
(read when tokensmith is imported):

>>> import tokensmith.limits as limits
>>> limits.get_limits()["max_token_id"]
16777215
>>> limits.set_limits(max_token_id=2**25)
>>> limits.get_limits()["max_token_id"]
33554432
>>> limits.set_limits(max_token_id=limits.DEFAULTS["max_token_id"])

The limits enforced in the Rust core (``max_token_id``, ``max_token_bytes``,
``max_padded_length``, ``max_normalized_growth``, ``max_inflated_bytes``,
``regex_backtrack_limit``) are process-wide and apply to objects built after the change; the
chat-template ones apply to the next render. docs/limits.md describes each.
"""

from __future__ import annotations

import os

from tokensmith import _core
from tokensmith.errors import LimitError

# Limits the Rust core enforces, with its defaults (tests check the two agree).
_CORE = {
    "max_token_id": (1 << 24) - 1,
    "max_token_bytes": 1 << 20,
    "max_padded_length": 1 << 22,
    "max_normalized_growth": 64,
    "max_inflated_bytes": 1 << 28,
    "regex_backtrack_limit": 10_000_000,
}
# Limits of the chat-template sandbox, enforced in Python.
_PYTHON: dict[str, int | float] = {
    "template_output_chars": 1 << 24,
    "template_loop_iterations": 1_000_000,
    "template_render_seconds": 10.0,
}
DEFAULTS: dict[str, int | float] = {**_CORE, **_PYTHON}
_values: dict[str, int | float] = dict(_PYTHON)


def get_limits() -> dict[str, int | float]:
    """Every limit in force, by name."""
    return {**{name: _core.get_limit(name) for name in _CORE}, **_values}


def get_limit(name: str) -> int | float:
    """The value in force of the limit ``name``."""
    if name in _CORE:
        return int(_core.get_limit(name))
    if name in _values:
        return _values[name]
    raise _unknown(name)


def set_limits(**limits: int | float) -> None:
    """Sets limits by name, for the whole process. Each value must be a positive number.

    >>> set_limits(template_render_seconds=30.0)
    >>> get_limit("template_render_seconds")
    30.0
    >>> set_limits(template_render_seconds=DEFAULTS["template_render_seconds"])
    """
    for name, value in limits.items():
        if name not in DEFAULTS:
            raise _unknown(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            err = LimitError(f"limit {name} must be a positive number, got {value!r}")
            err.limit = name
            raise err
        if name in _CORE:
            if not isinstance(value, int) or value >= 1 << 64:
                err = LimitError(f"limit {name} must be an integer below 2**64, got {value!r}")
                err.limit = name
                raise err
            _core.set_limit(name, value)
        else:
            _values[name] = value


def exceeded(name: str, what: str, value: int | float) -> LimitError:
    """The error for ``what`` being ``value``, above the limit ``name``."""
    err = LimitError(
        f"{what} is {value}, above the limit {name} = {get_limit(name)}; if the input is "
        f"trusted, raise it with tokensmith.limits.set_limits({name}=...) or the environment "
        f"variable TOKENSMITH_{name.upper()}"
    )
    err.limit = name
    return err


def _unknown(name: str) -> LimitError:
    err = LimitError(f"unknown limit {name!r} (known: {', '.join(sorted(DEFAULTS))})")
    err.limit = name
    return err


def _from_environment() -> None:
    for name, default in DEFAULTS.items():
        raw = os.environ.get(f"TOKENSMITH_{name.upper()}")
        if raw is None:
            continue
        try:
            value: int | float = float(raw) if isinstance(default, float) else int(raw)
        except ValueError:
            err = LimitError(f"TOKENSMITH_{name.upper()}={raw!r} is not a number")
            err.limit = name
            raise err from None
        set_limits(**{name: value})


_from_environment()

__all__ = ["DEFAULTS", "exceeded", "get_limit", "get_limits", "set_limits"]
