"""Built-in chat templates: ChatML (Qwen), Llama-3, Llama-2, Mistral and Gemma.

Each is a Jinja2 template written for tokensmith that lays a conversation out in the format its
model family was trained on, plus the tokens it needs: ``bos_token``/``eos_token`` for the
template's variables, and the control tokens that must encode as single special tokens. A
system message is supported by every template: ChatML, Llama-3 give it a turn of its own;
Llama-2 wraps it in ``<<SYS>>`` inside the first user turn; Mistral and Gemma, whose formats
have no system role, put it in front of the first user message. Roles must alternate
user/assistant (after the optional system message) in Llama-2, Mistral and Gemma, which raise
a :class:`~tokensmith.errors.ChatTemplateError` otherwise.

>>> sorted(BUILTIN_TEMPLATES)
['chatml', 'gemma', 'llama2', 'llama3', 'mistral']
>>> BUILTIN_TEMPLATES["llama3"].control_tokens[:2]
('<|begin_of_text|>', '<|start_header_id|>')
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BUILTIN_TEMPLATES", "ChatTemplate"]


@dataclass(frozen=True)
class ChatTemplate:
    """A named chat template.

    Attributes:
        name: The name it is selected by.
        source: The Jinja2 text.
        variables: Values the template reads besides the messages (``bos_token``, ...).
        control_tokens: Tokens the template writes that the vocabulary must hold as special
            tokens.
    """

    name: str
    source: str
    variables: dict[str, str] = field(default_factory=dict)
    control_tokens: tuple[str, ...] = ()


_ALTERNATE = (
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}\n"
    "{{- raise_exception('roles must alternate user/assistant after the system message') }}\n"
    "{%- endif %}\n"
)

# The system message, if first, is taken out of the turns.
_SPLIT_SYSTEM = """\
{%- if messages and messages[0]['role'] == 'system' %}
{%- set system = messages[0]['content'] %}
{%- set turns = messages[1:] %}
{%- else %}
{%- set system = none %}
{%- set turns = messages %}
{%- endif %}
"""

CHATML = """\
{%- for message in messages %}
{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""

LLAMA3 = """\
{{- bos_token }}
{%- for message in messages %}
{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}
{{- message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}
"""

LLAMA2 = (
    _SPLIT_SYSTEM
    + "{%- for message in turns %}\n"
    + _ALTERNATE
    + """\
{%- if message['role'] == 'user' %}
{%- if loop.first and system is not none %}
{%- set content = '<<SYS>>\\n' + system + '\\n<</SYS>>\\n\\n' + message['content'] %}
{%- else %}
{%- set content = message['content'] %}
{%- endif %}
{{- bos_token + '[INST] ' + content | trim + ' [/INST]' }}
{%- else %}
{{- ' ' + message['content'] | trim + ' ' + eos_token }}
{%- endif %}
{%- endfor %}
"""
)

MISTRAL = (
    _SPLIT_SYSTEM
    + "{{- bos_token }}\n"
    + "{%- for message in turns %}\n"
    + _ALTERNATE
    + """\
{%- if message['role'] == 'user' %}
{%- if loop.first and system is not none %}
{{- '[INST] ' + system + '\\n\\n' + message['content'] + '[/INST]' }}
{%- else %}
{{- '[INST] ' + message['content'] + '[/INST]' }}
{%- endif %}
{%- else %}
{{- ' ' + message['content'] + eos_token }}
{%- endif %}
{%- endfor %}
"""
)

GEMMA = (
    _SPLIT_SYSTEM
    + "{{- bos_token }}\n"
    + "{%- for message in turns %}\n"
    + _ALTERNATE
    + """\
{%- set role = 'model' if message['role'] == 'assistant' else message['role'] %}
{%- set prefix = system + '\\n\\n' if loop.first and system is not none else '' %}
{{- '<start_of_turn>' + role + '\\n' + prefix + message['content'] | trim + '<end_of_turn>\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<start_of_turn>model\\n' }}
{%- endif %}
"""
)

_S_TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}

BUILTIN_TEMPLATES: dict[str, ChatTemplate] = {
    t.name: t
    for t in (
        ChatTemplate(
            "chatml", CHATML, {"eos_token": "<|im_end|>"}, ("<|im_start|>", "<|im_end|>")
        ),
        ChatTemplate(
            "llama3",
            LLAMA3,
            {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
            ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
        ),
        ChatTemplate("llama2", LLAMA2, _S_TOKENS, ("<s>", "</s>")),
        ChatTemplate("mistral", MISTRAL, _S_TOKENS, ("<s>", "</s>")),
        ChatTemplate(
            "gemma",
            GEMMA,
            {"bos_token": "<bos>", "eos_token": "<eos>"},
            ("<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>"),
        ),
    )
}
