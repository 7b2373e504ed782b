"""Chat templates: render a conversation the way a chat model was trained to read it.

Templates are Jinja2, rendered in a sandbox configured as transformers configures its own (see
:mod:`tokensmith.chat.sandbox`), so a template from a ``tokenizer_config.json`` gives the same
text in tokensmith as in transformers. Five formats are built in (:data:`BUILTIN_TEMPLATES`).
"""

from tokensmith.chat.apply import apply_chat_template, resolve_template, with_special_tokens
from tokensmith.chat.render import Message, plain_data, render_chat
from tokensmith.chat.templates import BUILTIN_TEMPLATES, ChatTemplate

__all__ = [
    "BUILTIN_TEMPLATES",
    "ChatTemplate",
    "Message",
    "apply_chat_template",
    "plain_data",
    "render_chat",
    "resolve_template",
    "with_special_tokens",
]
