"""``apply_chat_template``: a conversation to the text, or the ids, a chat model is fed.

>>> import tokensmith
>>> enc = with_special_tokens(tokensmith.get_encoding("o200k_base"), ["<|im_start|>", "<|im_end|>"])
>>> messages = [{"role": "user", "content": "Hi!"}]
>>> apply_chat_template(enc, messages, chat_template="chatml", tokenize=False)
'<|im_start|>user\\nHi!<|im_end|>\\n'
>>> ids = apply_chat_template(enc, messages, chat_template="chatml", add_generation_prompt=True)
>>> enc.decode(ids[:1]), len(ids)
('<|im_start|>', 10)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from tokensmith.chat.render import Message, render_chat
from tokensmith.chat.templates import BUILTIN_TEMPLATES, ChatTemplate
from tokensmith.errors import ChatTemplateError

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding

__all__ = ["apply_chat_template", "resolve_template", "with_special_tokens"]


def resolve_template(chat_template: str | ChatTemplate) -> ChatTemplate:
    """A built-in template by name, a :class:`ChatTemplate`, or Jinja2 text as is.

    >>> resolve_template("gemma").variables["bos_token"]
    '<bos>'
    >>> resolve_template("{{ messages | length }}").name
    'custom'
    """
    if isinstance(chat_template, ChatTemplate):
        return chat_template
    if chat_template in BUILTIN_TEMPLATES:
        return BUILTIN_TEMPLATES[chat_template]
    if "{{" in chat_template or "{%" in chat_template:
        return ChatTemplate("custom", chat_template)
    raise ChatTemplateError(
        f"unknown chat template {chat_template!r}: use one of "
        f"{', '.join(sorted(BUILTIN_TEMPLATES))} or pass the Jinja2 text of a template"
    )


def with_special_tokens(encoding: Encoding, tokens: Iterable[str]) -> Encoding:
    """A copy of ``encoding`` that also holds ``tokens`` as special tokens, numbered after its
    largest id (tokens it already has keep their ids)."""
    from tokensmith.encoding import Encoding

    specials = {t: encoding.encode_single_token(t) for t in encoding.special_tokens_set}
    next_id = encoding.n_vocab
    for token in tokens:
        if token not in specials:
            specials[token] = next_id
            next_id += 1
    return Encoding(
        encoding.name,
        pat_str=encoding._pat_str,
        mergeable_ranks=encoding._mergeable_ranks,
        special_tokens=specials,
    )


@overload
def apply_chat_template(
    encoding: Encoding,
    messages: Sequence[Message],
    *,
    chat_template: str | ChatTemplate = ...,
    add_generation_prompt: bool = ...,
    tokenize: Literal[True] = ...,
    tools: Sequence[Mapping[str, Any]] | None = ...,
    documents: Sequence[Mapping[str, Any]] | None = ...,
    **variables: Any,
) -> list[int]: ...
@overload
def apply_chat_template(
    encoding: Encoding,
    messages: Sequence[Message],
    *,
    chat_template: str | ChatTemplate = ...,
    add_generation_prompt: bool = ...,
    tokenize: Literal[False],
    tools: Sequence[Mapping[str, Any]] | None = ...,
    documents: Sequence[Mapping[str, Any]] | None = ...,
    **variables: Any,
) -> str: ...
@overload
def apply_chat_template(
    encoding: Encoding,
    messages: Sequence[Message],
    *,
    chat_template: str | ChatTemplate = ...,
    add_generation_prompt: bool = ...,
    tokenize: bool = ...,
    tools: Sequence[Mapping[str, Any]] | None = ...,
    documents: Sequence[Mapping[str, Any]] | None = ...,
    **variables: Any,
) -> list[int] | str: ...


def apply_chat_template(
    encoding: Encoding,
    messages: Sequence[Message],
    *,
    chat_template: str | ChatTemplate = "chatml",
    add_generation_prompt: bool = False,
    tokenize: bool = True,
    tools: Sequence[Mapping[str, Any]] | None = None,
    documents: Sequence[Mapping[str, Any]] | None = None,
    **variables: Any,
) -> list[int] | str:
    """Renders ``messages`` with a chat template and (by default) encodes the result.

    Special tokens in the rendered text are encoded as special tokens, as transformers does,
    so the template's control tokens must be special tokens of ``encoding``
    (:func:`with_special_tokens` adds them).

    Args:
        encoding: The tokenizer.
        messages: Dicts with ``role`` and ``content``.
        chat_template: A built-in name (``chatml``, ``llama3``, ``llama2``, ``mistral``,
            ``gemma``), a :class:`ChatTemplate`, or Jinja2 text.
        add_generation_prompt: End with the header of an assistant turn.
        tokenize: Return ids (``True``) or the text (``False``).
        tools: JSON schemas of tools, for templates that use them.
        documents: Documents, for templates that use them.
        variables: More template variables; they override the template's own ``bos_token``
            and ``eos_token``.

    Raises:
        ChatTemplateError: an unknown template, bad messages, a template error, or a control
            token that ``encoding`` lacks.
        ChatTemplateSecurityError: the template reached for something the sandbox forbids.
    """
    template = resolve_template(chat_template)
    text = render_chat(
        template.source,
        messages,
        add_generation_prompt=add_generation_prompt,
        tools=tools,
        documents=documents,
        **{**template.variables, **variables},
    )
    if not tokenize:
        return text
    missing = [t for t in template.control_tokens if t not in encoding.special_tokens_set]
    if missing:
        raise ChatTemplateError(
            f"{encoding.name} has no special token {', '.join(missing)} that the {template.name!r} "
            "template writes; add them with tokensmith.chat.with_special_tokens(encoding, "
            f"{list(template.control_tokens)!r}) or pass tokenize=False"
        )
    return encoding.encode(text, allowed_special="all")
