"""Rendering a conversation with a chat template, as transformers renders it.

The messages are checked (a list of dicts), keys whose value is ``None`` are dropped (so a
template sees a missing key rather than the text ``None``), and everything the template sees is
rebuilt from plain JSON types: any other object becomes an inert ``<TypeName>`` string, so a
template cannot reach its methods. The template then renders with ``messages``, ``tools``,
``documents``, ``add_generation_prompt`` and the extra variables (``bos_token``, ...).

>>> render_chat("{% for m in messages %}[{{ m.role }}] {{ m.content }}\\n{% endfor %}",
...             [{"role": "user", "content": "hi", "name": None}])
'[user] hi\\n'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jinja2

from tokensmith.chat.budget import BudgetExceeded, render_budget
from tokensmith.chat.sandbox import compile_template
from tokensmith.errors import ChatTemplateError, ChatTemplateLimitError, ChatTemplateSecurityError
from tokensmith.limits import get_limit

__all__ = ["Message", "plain_data", "render_chat"]

Message = Mapping[str, Any]


def plain_data(value: Any) -> Any:
    """``value`` rebuilt from str/int/float/bool/None, lists, tuples and dicts.

    >>> plain_data({"a": (1, 2.5, None), "b": object()})
    {'a': (1, 2.5, None), 'b': '<object>'}
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {plain_data(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain_data(v) for v in value)
    return f"<{type(value).__name__}>"


def _checked_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise ChatTemplateError(
            f"messages must be a list of dicts such as {{'role': 'user', 'content': '...'}}, "
            f"not {type(messages).__name__}"
        )
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ChatTemplateError(
                f"messages[{i}] is a {type(message).__name__}, not a dict with 'role' and 'content'"
            )
        out.append({k: plain_data(v) for k, v in message.items() if v is not None})
    return out


def render_chat(
    source: str,
    messages: Sequence[Message],
    *,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
    documents: Sequence[Mapping[str, Any]] | None = None,
    **variables: Any,
) -> str:
    """Renders ``messages`` with the Jinja2 template ``source`` in the sandbox.

    Args:
        source: The template text.
        messages: Dicts with at least ``role`` and ``content``.
        add_generation_prompt: Whether to end with the header of an assistant turn.
        tools: JSON schemas of tools, for templates that describe them.
        documents: Dicts for retrieval templates.
        variables: More template variables (``bos_token``, ...).

    Raises:
        ChatTemplateError: bad messages, a template syntax error or a ``raise_exception``.
        ChatTemplateSecurityError: the template reached for something the sandbox forbids.
        ChatTemplateLimitError: the render passed its output, loop or time budget (see
            :mod:`tokensmith.limits`).
    """
    template = compile_template(source)
    context = {
        "messages": _checked_messages(messages),
        "tools": plain_data(list(tools)) if tools is not None else None,
        "documents": plain_data(list(documents)) if documents is not None else None,
        "add_generation_prompt": add_generation_prompt,
        **{k: plain_data(v) for k, v in variables.items()},
    }
    try:
        with render_budget() as budget:
            chunks = []
            for chunk in template.generate(**context):
                budget.charge_output(chunk)
                chunks.append(chunk)
            return "".join(chunks)
    except jinja2.exceptions.SecurityError as e:
        raise ChatTemplateSecurityError(
            f"the chat template was refused by the sandbox{_at_line(e)}: {e}"
        ) from None
    except BudgetExceeded as e:
        err = ChatTemplateLimitError(
            f"the chat template stopped{_at_line(e)}: {e.what}, above the limit {e.limit} = "
            f"{get_limit(e.limit)}; if the template is trusted, raise it with "
            f"tokensmith.limits.set_limits({e.limit}=...)"
        )
        err.limit = e.limit
        raise err from None
    except jinja2.exceptions.TemplateError as e:
        raise ChatTemplateError(f"the chat template failed{_at_line(e)}: {e}") from None
    except RecursionError:
        raise ChatTemplateError(
            "the chat template failed: it recursed too deeply (a macro or recursive loop that "
            "does not end)"
        ) from None
    except (ArithmeticError, LookupError, MemoryError, TypeError, ValueError) as e:
        # Errors of the template's own expressions (1/0, a missing index, a bad format, a
        # value too big to build); their Python type is an implementation detail.
        raise ChatTemplateError(
            f"the chat template failed{_at_line(e)}: {type(e).__name__}: {e}"
        ) from None


def _at_line(error: BaseException) -> str:
    """`` at line N`` for the template line the error was raised on, as far as the traceback
    shows it (Jinja maps its frames back to template lines)."""
    line = getattr(error, "lineno", None)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" at line {line}" if line else ""
