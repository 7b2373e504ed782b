"""The chat view's numbers: a conversation rendered through a chat template (in the sandbox of
:mod:`tokensmith.chat`), its tokens per message and per role, and how many such
conversations fit a context window.

A message's tokens are what the rendered prompt grows by when that message is added, so the
template's framing around it counts too; its content alone is counted beside it.

>>> import tokensmith
>>> seg = Segmenter.of(tokensmith.get_encoding("cl100k_base"), label="cl100k_base")
>>> messages = [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}]
>>> view = chat_view(seg, messages, template="chatml", context_window=100)
>>> [m["tokens"] for m in view["messages"]], view["total_tokens"], view["fits"]
([7, 7], 14, 5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tokensmith.chat import render_chat, resolve_template
from tokensmith.errors import ChatTemplateError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.serve.pieces import readable
from tokensmith.serve.segmenter import Segmenter

__all__ = ["OWN_TEMPLATE", "chat_view", "template_names"]

#: The template a tokenizer folder brings (``tokenizer_config.json``).
OWN_TEMPLATE = "own"
_MAX_MESSAGES = 200
#: The rendered prompt's tokens sent to the page (the counts cover them all).
_MAX_SHOWN = 20_000


def template_names(segmenter: Segmenter) -> list[str]:
    """The templates this tokenizer can render with: its own first, then the built-ins."""
    from tokensmith.chat import BUILTIN_TEMPLATES

    own = isinstance(segmenter.tokenizer, Tokenizer) and segmenter.tokenizer.config.chat_template
    return ([OWN_TEMPLATE] if own else []) + sorted(BUILTIN_TEMPLATES)


def _checked(messages: Any) -> list[dict[str, str]]:
    if not isinstance(messages, list) or len(messages) > _MAX_MESSAGES:
        raise ChatTemplateError(f"messages must be a list of at most {_MAX_MESSAGES} messages")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping) or not all(
            isinstance(m.get(k), str) for k in ("role", "content")
        ):
            raise ChatTemplateError(f"messages[{i}] needs a text 'role' and 'content'")
        out.append({"role": m["role"], "content": m["content"]})
    return out


class _Counter:
    """Renders and counts with one tokenizer and one template."""

    def __init__(self, segmenter: Segmenter, template: str) -> None:
        from tokensmith.chat import BUILTIN_TEMPLATES

        tok = segmenter.tokenizer
        self.variables: dict[str, Any] = {}
        if template != OWN_TEMPLATE and template not in BUILTIN_TEMPLATES:
            # Template text from the page would be code from the page: only names are taken.
            raise ChatTemplateError(
                f"unknown chat template {template!r}: use {OWN_TEMPLATE!r} (the tokenizer's "
                f"own) or one of {', '.join(sorted(BUILTIN_TEMPLATES))}"
            )
        if template == OWN_TEMPLATE and isinstance(tok, Tokenizer) and tok.config.chat_template:
            chosen = resolve_template(tok.config.chat_template)
            self.variables = dict(tok.config.special_tokens)
        elif template == OWN_TEMPLATE:
            raise ChatTemplateError(f"{segmenter.label} has no chat template of its own")
        else:
            chosen = resolve_template(template)
        self.source = chosen.source
        self.variables = {**chosen.variables, **self.variables}
        self.encoding = segmenter.encoding()
        self.tokenizer = tok
        self.segmenter = segmenter
        self.missing: tuple[str, ...] = ()
        self.as_text: tuple[str, ...] = ()
        if isinstance(tok, Tokenizer):
            # A pipeline reads a control token as one id only if it matches it as an added
            # token (a SentencePiece model never does); otherwise the text is spelt out.
            self.as_text = tuple(
                t
                for t in chosen.control_tokens
                if tok.encode(t, add_special_tokens=False).ids != [tok.token_to_id(t)]
            )
        if self.encoding is not None:
            # As chat-cost does: control tokens the vocabulary lacks cost one special token.
            self.missing = tuple(
                t for t in chosen.control_tokens if t not in self.encoding.special_tokens_set
            )
            self.encoding = segmenter.encoding_with(self.missing)

    def render(self, messages: Sequence[Mapping[str, Any]], *, prompt: bool = False) -> str:
        return render_chat(self.source, messages, add_generation_prompt=prompt, **self.variables)

    def ids(self, text: str) -> list[int]:
        if self.encoding is not None:
            return list(self.encoding.encode(text, allowed_special="all"))
        assert isinstance(self.tokenizer, Tokenizer)
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def token_text(self, token_id: int) -> str:
        if self.encoding is not None:
            return readable(bytes(self.encoding.decode_single_token_bytes(token_id)))
        return readable(self.segmenter.piece(token_id).data)

    def content_ids(self, text: str) -> list[int]:
        if self.encoding is not None:
            return list(self.encoding.encode_ordinary(text))
        return self.ids(text)


def chat_view(
    segmenter: Segmenter,
    messages: Any,
    *,
    template: str,
    context_window: int,
) -> dict[str, Any]:
    """The rendered prompt and its counts.

    Raises:
        ChatTemplateError: bad messages, an unknown template or one that fails to render.
        ChatTemplateSecurityError: the template reached for something the sandbox forbids.
    """
    checked = _checked(messages)
    counter = _Counter(segmenter, template)
    rows: list[dict[str, Any]] = []
    before = 0
    for k, message in enumerate(checked):
        # A template that needs alternating roles may refuse a prefix; count the whole then.
        try:
            upto = len(counter.ids(counter.render(checked[: k + 1])))
        except ChatTemplateError:
            upto = before
        rows.append(
            {
                "role": message["role"],
                "tokens": upto - before,
                "content_tokens": len(counter.content_ids(message["content"])),
            }
        )
        before = upto
    prompt = counter.render(checked)
    ids = counter.ids(prompt)
    with_prompt = len(counter.ids(counter.render(checked, prompt=True)))
    if rows:
        rows[-1]["tokens"] += len(ids) - before
    per_role: dict[str, int] = {}
    for row in rows:
        role = str(row["role"])
        per_role[role] = per_role.get(role, 0) + int(row["tokens"])
    return {
        "tokenizer": segmenter.label,
        "template": template,
        "prompt": prompt,
        "tokens": [[i, counter.token_text(i)] for i in ids[:_MAX_SHOWN]],
        "messages": rows,
        "per_role": per_role,
        "total_tokens": len(ids),
        "generation_prompt_tokens": with_prompt - len(ids),
        "context_window": context_window,
        "fits": context_window // with_prompt if with_prompt else 0,
        "added_control_tokens": list(counter.missing),
        "control_tokens_as_text": list(counter.as_text),
    }
