"""The Jinja2 environment chat templates render in: sandboxed, because a template is untrusted.

A ``chat_template`` arrives inside a downloaded ``tokenizer_config.json``, so it is code from a
stranger. It renders in Jinja2's ``ImmutableSandboxedEnvironment``: no attribute that starts with
an underscore, no mutation of lists and dicts passed in, no calls to unsafe callables. The
environment is configured as transformers configures its own, so the same template renders the
same bytes:

- ``trim_blocks`` and ``lstrip_blocks`` on, and the ``loopcontrols`` extension (``break``,
  ``continue``);
- a ``tojson`` filter that does not HTML-escape (``json.dumps`` with ``ensure_ascii=False``,
  and the ``indent``, ``separators`` and ``sort_keys`` options);
- globals ``raise_exception(message)``, ``strftime_now(format)``, ``dict(...)`` and a
  ``namespace(...)`` that refuses underscore-prefixed names;
- a ``{% generation %}...{% endgeneration %}`` block, rendered as its body (transformers uses it
  to mark assistant text; tokensmith has no assistant mask yet).

One difference, on purpose: reading an unsafe attribute (``x.__class__``) raises
:class:`~tokensmith.errors.ChatTemplateSecurityError` at once, where Jinja's sandbox would
render an empty value, so a template that probes for internals is refused loudly.

>>> template = compile_template("{{ messages[0]['content'] | tojson }}")
>>> template.render(messages=[{"content": "héllo <b>"}])
'"héllo <b>"'
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tokensmith.errors import ChatTemplateError

__all__ = ["compile_template"]


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _Dict:
    """``dict(...)`` for templates, without exposing the ``dict`` type itself."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


def _check_name(name: object) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(
            f"a chat template may not store {name!r} on a namespace (no names starting with '_')"
        )


class _Namespace(jinja2.utils.Namespace):
    """Jinja's ``namespace``, refusing names that start with an underscore."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 (Jinja's own signature trick)
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name in attrs:
            _check_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)


class _Generation(jinja2.ext.Extension):
    """``{% generation %}body{% endgeneration %}`` renders ``body``."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_body")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return str(caller())


class _Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with unsafe attribute access an error rather than an
    undefined value that would render as nothing."""

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        raise jinja2.exceptions.SecurityError(
            f"access to attribute {attribute!r} of a {type(obj).__name__} is unsafe"
        )


def _environment() -> ImmutableSandboxedEnvironment:
    env = _Sandbox(
        trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _Dict()
    env.globals["namespace"] = _Namespace
    return env


@lru_cache(maxsize=64)
def compile_template(source: str) -> jinja2.Template:
    """Compiles ``source`` in the sandbox (cached by its text).

    Raises:
        ChatTemplateError: the template has a syntax error (the message gives its line).
    """
    try:
        return _environment().from_string(source)
    except jinja2.exceptions.TemplateSyntaxError as e:
        raise ChatTemplateError(f"chat template line {e.lineno}: {e.message}") from None
