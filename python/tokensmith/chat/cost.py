"""What a chat template costs: the tokens it adds around the messages, paid on every request.

>>> import tokensmith
>>> messages = [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}]
>>> cost = template_cost(tokensmith.get_encoding("cl100k_base"), "chatml", messages)
>>> cost.content_tokens, cost.total_tokens, cost.per_message, cost.generation_prompt
(4, 14, 5.0, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tokensmith.chat.apply import apply_chat_template, resolve_template, with_special_tokens
from tokensmith.chat.templates import ChatTemplate

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding

__all__ = ["ChatCost", "template_cost"]


@dataclass(frozen=True)
class ChatCost:
    """Token counts of one conversation under one template.

    Attributes:
        template: The template's name.
        messages: How many messages the conversation has.
        content_tokens: The tokens of the messages' contents, each encoded alone.
        total_tokens: The tokens of the rendered conversation.
        generation_prompt: The tokens ``add_generation_prompt=True`` appends.
        added_tokens: Control tokens the vocabulary lacked, added as special tokens to count.
    """

    template: str
    messages: int
    content_tokens: int
    total_tokens: int
    generation_prompt: int
    added_tokens: tuple[str, ...]

    @property
    def template_tokens(self) -> int:
        """The tokens the template adds: ``total_tokens - content_tokens``."""
        return self.total_tokens - self.content_tokens

    @property
    def per_message(self) -> float:
        """The template's tokens per message."""
        return self.template_tokens / self.messages if self.messages else 0.0

    @property
    def overhead_share(self) -> float:
        """The template's share of the rendered conversation's tokens."""
        return self.template_tokens / self.total_tokens if self.total_tokens else 0.0


def template_cost(
    encoding: Encoding,
    template: str | ChatTemplate,
    messages: Sequence[Mapping[str, Any]],
) -> ChatCost:
    """Counts what ``template`` adds to ``messages`` under ``encoding``.

    The template's control tokens that ``encoding`` lacks are added as special tokens first
    (each then costs one token, as in the model the template belongs to).
    """
    chosen = resolve_template(template)
    added = tuple(t for t in chosen.control_tokens if t not in encoding.special_tokens_set)
    enc = with_special_tokens(encoding, added) if added else encoding
    content = sum(len(enc.encode_ordinary(str(m.get("content", "")))) for m in messages)
    total = len(apply_chat_template(enc, messages, chat_template=chosen))
    prompted = len(
        apply_chat_template(enc, messages, chat_template=chosen, add_generation_prompt=True)
    )
    return ChatCost(chosen.name, len(messages), content, total, prompted - total, added)
