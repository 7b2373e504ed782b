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

Resources are budgeted too (:mod:`tokensmith.chat.budget`): every ``for`` loop iterates through
the budget, ``*``, ``**`` and ``+`` refuse results past ``template_output_chars`` before
building them, and ``lipsum``, ``center`` and ``indent`` are bounded the same way.

One difference, on purpose: reading an unsafe attribute (``x.__class__``) raises
:class:`~tokensmith.errors.ChatTemplateSecurityError` at once, where Jinja's sandbox would
render an empty value, so a template that probes for internals is refused loudly.

>>> template = compile_template("{{ messages[0]['content'] | tojson }}")
>>> template.render(messages=[{"content": "héllo <b>"}])
'"héllo <b>"'
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tokensmith.chat.budget import budgeted, current
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


_SIZED = (str, list, tuple)
# Bits of an integer power past which ``**`` is refused (a 16 MiB number is already absurd).
_MAX_POWER_BITS = 1 << 27


_LONG_NUMBER = re.compile(r"\d{6,}")


def _widest_field(fmt: Any) -> int:
    """The largest width or precision a format string (``%`` or ``str.format``) asks for: a
    field of ``'{:>10000000000}'`` is built in full before anything can check the output."""
    if not isinstance(fmt, str):
        return 0
    return max((int(n) for n in _LONG_NUMBER.findall(fmt)), default=0)


def _size_of_binop(operator: str, left: Any, right: Any) -> int:
    """The size of ``left <operator> right`` when it builds a string, list or big integer, from
    the operands alone (0 when the result is small by nature)."""
    if operator == "*":
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, _SIZED) and isinstance(n, int):
                return len(seq) * max(n, 0)
    elif operator == "+":
        if isinstance(left, _SIZED) and isinstance(right, _SIZED):
            return len(left) + len(right)
    elif operator == "%":
        return _widest_field(left)
    elif operator == "**" and isinstance(left, int) and isinstance(right, int):
        if abs(left) > 1 and right > 0:
            # Characters of the result; a bit count past the cap is refused as huge.
            bits = abs(left).bit_length() * right
            return bits // 3 if bits < _MAX_POWER_BITS else bits
    return 0


class _Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with unsafe attribute access an error rather than an
    undefined value that would render as nothing, and with the render's budget charged by
    calls, loops and the operators that build big values."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        raise jinja2.exceptions.SecurityError(
            f"access to attribute {attribute!r} of a {type(obj).__name__} is unsafe"
        )

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        current().charge_size(_size_of_binop(operator, left, right), f"the result of {operator!r}")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        current().check_time()
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        # `fmt.format` / `fmt.format_map` looked up on a string: its widths are known now.
        current().charge_size(_widest_field(getattr(value, "__self__", None)), "a format field")
        return super().wrap_str_format(value)

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        tree = super()._parse(source, name, filename)
        # Every loop iterates through the budget: `for x in budgeted(<iterable>)`.
        for loop in tree.find_all(jinja2.nodes.For):
            wrap = jinja2.nodes.EnvironmentAttribute("budgeted")
            loop.iter = jinja2.nodes.Call(wrap, [loop.iter], [], None, None).set_lineno(
                loop.lineno
            )
        return tree

    budgeted = staticmethod(budgeted)


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    # About eight characters a word, at most `max` words a paragraph.
    current().charge_size(int(n) * int(max) * 8, "lipsum's text")
    return str(jinja2.utils.generate_lorem_ipsum(n=n, html=html, min=min, max=max))


def _center(value: str, width: int = 80) -> str:
    current().charge_size(int(width), "center's width")
    return str(value).center(width)


def _indent(value: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    lines = str(value).count("\n") + 1
    pad = len(width) if isinstance(width, str) else int(width)
    current().charge_size(len(str(value)) + lines * pad, "indent's text")
    return str(jinja2.filters.do_indent(value, width, first, blank))


def _environment() -> ImmutableSandboxedEnvironment:
    env = _Sandbox(
        trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.filters["center"] = _center
    env.filters["indent"] = _indent
    env.globals["lipsum"] = _lipsum
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
