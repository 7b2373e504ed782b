"""Chat templates: the same text and ids as transformers, and a sandbox that holds.

The reference is transformers' own ``apply_chat_template`` on a ``PreTrainedTokenizerFast``
loaded from a tokenizer.json that tokensmith wrote for a BPE it trained on the committed text,
with every built-in template's control tokens as special tokens.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from tokensmith.chat import (
    BUILTIN_TEMPLATES,
    apply_chat_template,
    render_chat,
    with_special_tokens,
)
from tokensmith.errors import ChatTemplateError, ChatTemplateSecurityError

DATA = Path(__file__).resolve().parents[1] / "data"
CONTROL = sorted({t for tpl in BUILTIN_TEMPLATES.values() for t in tpl.control_tokens})


@pytest.fixture(scope="module")
def lines() -> list[str]:
    text = (DATA / "multilingual.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def encoding(lines: list[str]) -> tokensmith.Encoding:
    return tokensmith.train_bpe(lines[:3000], vocab_size=2000, special_tokens=CONTROL)


@pytest.fixture(scope="module")
def tokenizer_file(encoding: tokensmith.Encoding, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chat") / "tokenizer.json"
    encoding.save(path)
    return path


def conversations(lines: list[str]) -> list[list[dict[str, str]]]:
    """Real text in every shape the templates handle: with and without a system message, one
    and several turns, content with surrounding spaces and newlines."""
    u1, a1, u2, a2, system = lines[3100], lines[3101], lines[3102], lines[3103], lines[3104]
    return [
        [{"role": "user", "content": u1}],
        [{"role": "system", "content": system}, {"role": "user", "content": u1}],
        [
            {"role": "system", "content": system},
            {"role": "user", "content": u1},
            {"role": "assistant", "content": "  " + a1 + "\n"},
            {"role": "user", "content": u2 + "\n\n"},
        ],
        [
            {"role": "user", "content": u1},
            {"role": "assistant", "content": a1},
            {"role": "user", "content": u2},
            {"role": "assistant", "content": a2},
        ],
    ]


@pytest.mark.parametrize("name", sorted(BUILTIN_TEMPLATES))
@pytest.mark.parametrize("generation_prompt", [False, True])
def test_text_and_ids_equal_transformers(
    name: str,
    generation_prompt: bool,
    encoding: tokensmith.Encoding,
    tokenizer_file: Path,
    lines: list[str],
) -> None:
    from transformers import PreTrainedTokenizerFast

    template = BUILTIN_TEMPLATES[name]
    reference = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), **template.variables)
    reference.chat_template = template.source
    for messages in conversations(lines):
        ours = apply_chat_template(
            encoding,
            messages,
            chat_template=name,
            add_generation_prompt=generation_prompt,
            tokenize=False,
        )
        theirs = reference.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, tokenize=False
        )
        assert ours == theirs
        assert messages[-1]["content"].strip() in ours
        ids = apply_chat_template(
            encoding, messages, chat_template=name, add_generation_prompt=generation_prompt
        )
        reference_ids = reference.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, return_dict=False
        )
        assert ids == reference_ids
        assert encoding.decode(ids) == ours
        assert sum(encoding.is_special_token(i) for i in ids) == sum(ours.count(t) for t in CONTROL)


def test_a_template_from_a_config_renders_the_same(
    encoding: tokensmith.Encoding, tokenizer_file: Path, lines: list[str]
) -> None:
    # A template in the style of a downloaded config: tojson, namespace, loop controls.
    source = (
        "{% set ns = namespace(n=0) %}{% for m in messages %}{% if m.role == 'system' %}"
        "{% continue %}{% endif %}{% set ns.n = ns.n + 1 %}"
        "{{ ns.n }}:{{ m | tojson }}\n{% endfor %}{{ tools | tojson(indent=1) }}"
    )
    from transformers import PreTrainedTokenizerFast

    reference = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file))
    tools = [{"name": "get_weather", "parameters": {"city": {"type": "string", "é": "ü"}}}]
    for messages in conversations(lines):
        ours = apply_chat_template(
            encoding, messages, chat_template=source, tools=tools, tokenize=False
        )
        assert ours == reference.apply_chat_template(
            messages, chat_template=source, tools=tools, tokenize=False
        )


@pytest.mark.parametrize(
    "source",
    [
        "{{ messages.__class__.__mro__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ raise_exception.__globals__ }}",
        "{% set _ = messages.append({'role': 'x'}) %}",
        "{% set ns = namespace() %}{% set ns.__dict__ = 1 %}",
    ],
)
def test_the_sandbox_refuses_python_internals(source: str) -> None:
    with pytest.raises(ChatTemplateSecurityError, match="sandbox"):
        render_chat(source, [{"role": "user", "content": "hi"}])


def test_errors_name_the_problem(encoding: tokensmith.Encoding) -> None:
    user = [{"role": "user", "content": "hi"}]
    with pytest.raises(ChatTemplateError, match="chatml, gemma, llama2, llama3, mistral"):
        apply_chat_template(encoding, user, chat_template="vicuna")
    with pytest.raises(ChatTemplateError, match="line 2"):
        render_chat("ok\n{% for %}", user)
    with pytest.raises(ChatTemplateError, match="alternate"):
        apply_chat_template(encoding, user + user, chat_template="llama2", tokenize=False)
    with pytest.raises(ChatTemplateError, match="messages\\[1\\]"):
        render_chat("{{ messages }}", [user[0], "hi"])  # type: ignore[list-item]
    o200k = tokensmith.get_encoding("o200k_base")
    with pytest.raises(ChatTemplateError, match="<\\|im_start\\|>.*with_special_tokens"):
        apply_chat_template(o200k, user, chat_template="chatml")
    extended = with_special_tokens(o200k, ["<|im_start|>", "<|im_end|>", "<|endoftext|>"])
    assert extended.encode_single_token("<|endoftext|>") == o200k.eot_token
    assert extended.encode_single_token("<|im_start|>") == o200k.n_vocab
    assert apply_chat_template(extended, user)[0] == o200k.n_vocab


def test_none_values_are_dropped_and_objects_are_inert() -> None:
    source = "{{ messages[0].name is defined }} {{ messages[0].content }}"
    assert render_chat(source, [{"role": "user", "content": object(), "name": None}]) == (
        "False <object>"
    )
