"""From a ``tokenizer.json`` fragment back to the component object of its ``type``.

>>> from tokensmith.components.normalizers import Normalizer
>>> component_from_json(Normalizer, {"type": "Strip", "strip_left": False, "strip_right": True})
Strip({"type":"Strip","strip_left":false,"strip_right":true})
"""

from __future__ import annotations

from typing import Any, TypeVar

from tokensmith.components._base import Component

__all__ = ["children", "component_from_json"]

C = TypeVar("C", bound=Component)


def _subclasses(base: type[Component]) -> dict[str, type[Component]]:
    """Every concrete subclass of ``base`` by its fragment type (or, for trainers, name)."""
    found: dict[str, type[Component]] = {}
    todo = [base]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls is not base and not cls.__name__.startswith("_"):
            found.setdefault(cls._type or cls.__name__, cls)
    return found


def _family(cls: type[Component]) -> type[Component]:
    """The base class of ``cls``'s module (Normalizer, PreTokenizer, ...)."""
    for parent in cls.__mro__:
        if Component in parent.__bases__:
            return parent
    return cls


def component_from_json(kind: type[C], data: Any, path: str = "") -> C:
    """The component of family ``kind`` (e.g. ``Normalizer``) that ``data`` describes.

    Raises:
        TokenizerJsonError: ``data`` is not a fragment of a known type of that family
            (the message names ``path``).
    """
    from tokensmith.errors import TokenizerJsonError

    family = _family(kind)
    where = path or family.__name__
    if not isinstance(data, dict):
        raise TokenizerJsonError(f"{where}: expected an object, got {type(data).__name__}")
    if family._type is None and "type" not in data and len(data) == 1:
        # Trainers are written as {"BpeTrainer": {...fields}}.
        ((name, fields),) = data.items()
        data = {"type": name, **fields} if isinstance(fields, dict) else data
    known = _subclasses(family)
    name = data.get("type")
    if name not in known:
        raise TokenizerJsonError(
            f"{where}.type: {name!r} is not a {family.__name__} type "
            f"(known: {', '.join(sorted(known))})"
        )
    cls = known[name]
    obj = cls.__new__(cls)
    state = dict(data) if cls._type is not None else {k: v for k, v in data.items() if k != "type"}
    key = cls._children
    if key is not None:
        state[key] = [
            component_from_json(family, c, f"{where}.{key}[{i}]")
            for i, c in enumerate(state.get(key) or [])
        ]
    if cls._type is not None:
        state.pop("type", None)
    obj._init(**state)
    if not isinstance(obj, kind):
        raise TokenizerJsonError(f"{where}: a {name} is not a {kind.__name__}")
    return obj


def children(items: Any, kind: type[C], argument: str) -> list[C]:
    """``items`` checked to be a list of ``kind`` components (a ``Sequence``'s argument).

    Raises:
        ComponentTypeError: ``items`` is not a list, or one item is not a ``kind`` (naming
            ``argument`` and the index).
    """
    from tokensmith.errors import ComponentTypeError

    if not isinstance(items, list | tuple):
        raise ComponentTypeError(
            f"{argument} must be a list of {kind.__name__}, got {type(items).__name__}"
        )
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise ComponentTypeError(
                f"{argument}[{i}] must be a {kind.__name__}, got {type(item).__name__}"
            )
    return list(items)
