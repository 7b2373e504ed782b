"""Encodings that other packages register through tiktoken's ``tiktoken_ext`` plugin namespace.

A plugin is a module ``tiktoken_ext.<anything>`` (``tiktoken_ext`` is a namespace package, so
any installed distribution can add one) with a dict ``ENCODING_CONSTRUCTORS`` from encoding
name to a function returning ``Encoding``'s keyword arguments (``name``, ``pat_str``,
``mergeable_ranks``, ``special_tokens``, optionally ``explicit_n_vocab``). tiktoken finds them
this way; :func:`tokensmith.get_encoding` finds the same ones.

tiktoken's own plugin, ``tiktoken_ext.openai_public``, is not imported: tokensmith bundles every
encoding it defines, and its constructors download their files.

>>> from tokensmith.encoding_plugins import plugin_constructors
>>> "openai_public" in plugin_constructors()
False
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from typing import Any

from tokensmith.errors import EncodingPluginError

NAMESPACE = "tiktoken_ext"
SKIPPED = frozenset({"tiktoken_ext.openai_public"})

_lock = threading.Lock()
_found: dict[str, Callable[[], dict[str, Any]]] | None = None


def plugin_modules() -> list[str]:
    """The plugin modules installed under ``tiktoken_ext`` (not imported), sorted."""
    try:
        namespace = importlib.import_module(NAMESPACE)
    except ImportError:
        return []
    found = pkgutil.iter_modules(namespace.__path__, NAMESPACE + ".")
    return sorted(name for _, name, _ in found if name not in SKIPPED)


def plugin_constructors() -> dict[str, Callable[[], dict[str, Any]]]:
    """Encoding name to constructor, from every plugin module, found once per process.

    Raises :class:`~tokensmith.errors.EncodingPluginError` (a ``ValueError``) naming the module
    when a plugin has no ``ENCODING_CONSTRUCTORS`` or two plugins define one name, as tiktoken
    does; a later call looks again.
    """
    global _found
    with _lock:
        if _found is None:
            _found = _collect()
        return dict(_found)


def _collect() -> dict[str, Callable[[], dict[str, Any]]]:
    found: dict[str, Callable[[], dict[str, Any]]] = {}
    for module_name in plugin_modules():
        module = importlib.import_module(module_name)
        constructors = getattr(module, "ENCODING_CONSTRUCTORS", None)
        if not isinstance(constructors, dict):
            raise EncodingPluginError(
                f"tiktoken plugin {module_name} does not define an ENCODING_CONSTRUCTORS dict"
            )
        for name, constructor in constructors.items():
            if name in found:
                raise EncodingPluginError(
                    f"encoding {name!r} is defined twice; the second time by tiktoken plugin "
                    f"{module_name}"
                )
            found[name] = constructor
    return found


def forget() -> None:
    """Makes the next call look for plugins again (after installing one at run time)."""
    global _found
    with _lock:
        _found = None
