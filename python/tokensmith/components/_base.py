"""What every pipeline component shares: its state is the JSON fragment HF writes for it.

A component holds the fields of its ``tokenizer.json`` fragment, in HF's order, and nothing
else, so the pipeline is described once (by that JSON, which the Rust core loads). Its
constructor arguments are HF's; each field reads and writes as an attribute under HF's
Python name (``Strip.left`` is the fragment's ``strip_left``). A component read from a
:class:`~tokensmith.Tokenizer` is live: setting one of its attributes (or one of its
children's, in a ``Sequence``) rebuilds the tokenizer, as in HF.

>>> from tokensmith.normalizers import Strip
>>> s = Strip(left=False)
>>> s.__getstate__()
b'{"type":"Strip","strip_left":false,"strip_right":true}'
>>> s.left = True
>>> s.left
True
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

__all__ = ["Component", "Regex", "dumps", "pattern_json"]


def dumps(value: Any) -> str:
    """JSON as HF's serde writes it: compact, UTF-8 kept as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Regex:
    """A regular expression pattern for ``Split``, ``Replace`` (HF's ``tokenizers.Regex``);
    a plain ``str`` pattern there is matched literally.

    Raises:
        PatternError: ``pattern`` is not a str.
    """

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        from tokensmith.errors import PatternError

        if not isinstance(pattern, str):
            raise PatternError(f"Regex pattern must be a str, got {type(pattern).__name__}")
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def pattern_json(pattern: str | Regex | Any) -> dict[str, str]:
    """A ``Split``/``Replace`` pattern as HF writes it: ``{"String": ...}`` or
    ``{"Regex": ...}``. HF's own ``tokenizers.Regex`` is not readable from Python, so only
    tokensmith's is accepted besides ``str``.

    Raises:
        PatternError: anything else.
    """
    from tokensmith.errors import PatternError

    if isinstance(pattern, str):
        return {"String": pattern}
    if isinstance(pattern, Regex):
        return {"Regex": pattern.pattern}
    raise PatternError(f"pattern must be a str or tokensmith.Regex, got {type(pattern).__name__}")


class Component:
    """A pipeline component: a typed view of its ``tokenizer.json`` fragment.

    Subclasses set ``_type`` (the fragment's ``"type"``; None for the fragment-less
    trainers), ``_names`` (Python attribute -> fragment key, where they differ),
    ``_children`` (the key holding a list of sub-components), ``_setters`` (how a value set
    as an attribute is written into the fragment, where HF spells it differently) and
    ``_getters`` (how a field reads back as HF's attribute does).
    """

    __slots__ = ("_state", "_on_change")

    _type: ClassVar[str | None] = None
    _names: ClassVar[dict[str, str]] = {}
    _children: ClassVar[str | None] = None
    _setters: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    _getters: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def _init(self, **fields: Any) -> None:
        """Sets the fragment's fields (in HF's order, after ``type``)."""
        state: dict[str, Any] = {} if self._type is None else {"type": self._type}
        state.update(fields)
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_on_change", None)
        for child in self._child_list():
            child._adopt(self._changed)

    def _child_list(self) -> list[Component]:
        if self._children is None:
            return []
        return [c for c in self._state[self._children] if isinstance(c, Component)]

    def _adopt(self, on_change: Callable[[], None] | None) -> None:
        """Makes every later change call ``on_change`` (the owner's rebuild)."""
        object.__setattr__(self, "_on_change", on_change)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def to_json(self) -> dict[str, Any]:
        """The fragment as a JSON-ready dict (sub-components included)."""
        out: dict[str, Any] = {}
        for key, value in self._state.items():
            if isinstance(value, list) and key == self._children:
                value = [c.to_json() for c in value]
            out[key] = value
        return out

    def __getstate__(self) -> bytes:
        """The fragment as HF's ``__getstate__`` gives it: compact JSON bytes."""
        return dumps(self.to_json()).encode()

    def __setstate__(self, state: bytes) -> None:
        from tokensmith.components.registry import component_from_json

        other = component_from_json(type(self), json.loads(state))
        object.__setattr__(self, "_state", other._state)
        object.__setattr__(self, "_on_change", None)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not slots or methods: the fragment's fields.
        if name.startswith("_"):
            raise AttributeError(name)
        state = object.__getattribute__(self, "_state")
        key = self._names.get(name, name)
        if key == "type" or key not in state:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        getter = self._getters.get(name)
        return state[key] if getter is None else getter(state[key])

    def __setattr__(self, name: str, value: Any) -> None:
        key = self._names.get(name, name)
        if name.startswith("_") or key == "type" or key not in self._state:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        setter = self._setters.get(name)
        self._state[key] = value if setter is None else setter(value)
        if key == self._children:
            for child in self._child_list():
                child._adopt(self._changed)
        self._changed()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dumps(self.to_json())})"
