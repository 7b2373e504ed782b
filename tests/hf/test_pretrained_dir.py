"""A tokenizer folder saved by transformers: config, chat template and ids as transformers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from tokensmith.errors import ChatTemplateError, InputNotFoundError, TokenizerJsonError

DATA = Path(__file__).resolve().parents[1] / "data"
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# In the style of Qwen's template: a default system turn when the chat has none.
TEMPLATE = (
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are helpful.<|im_end|>\n"
    "{% endif %}{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def lines() -> list[str]:
    text = (DATA / "multilingual.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def folder(lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import PreTrainedTokenizerFast

    root = tmp_path_factory.mktemp("pretrained")
    enc = tokensmith.train_bpe(lines[:3000], vocab_size=1500, special_tokens=SPECIALS)
    enc.save(root / "source.json")
    fast = PreTrainedTokenizerFast(
        tokenizer_file=str(root / "source.json"), eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    fast.chat_template = TEMPLATE
    fast.model_max_length = 4096
    out = root / "model"
    fast.save_pretrained(str(out))
    return out


def chats(lines: list[str]) -> list[list[dict[str, str]]]:
    return [
        [{"role": "user", "content": lines[3300]}],
        [
            {"role": "system", "content": lines[3301]},
            {"role": "user", "content": lines[3302]},
            {"role": "assistant", "content": lines[3303]},
            {"role": "user", "content": lines[3304]},
        ],
    ]


def test_config_is_read(folder: Path) -> None:
    tok = tokensmith.Tokenizer.from_pretrained_dir(folder)
    assert tok.config.special_tokens["eos_token"] == "<|im_end|>"
    assert tok.config.special_tokens["pad_token"] == "<|endoftext|>"
    assert tok.config.chat_template == TEMPLATE
    assert tok.config.model_max_length == 4096


@pytest.mark.parametrize("generation_prompt", [False, True])
def test_chat_template_text_and_ids_equal_transformers(
    folder: Path, lines: list[str], generation_prompt: bool
) -> None:
    from transformers import PreTrainedTokenizerFast

    reference = PreTrainedTokenizerFast.from_pretrained(str(folder))
    tok = tokensmith.Tokenizer.from_pretrained_dir(folder)
    for messages in chats(lines):
        text = tok.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, tokenize=False
        )
        assert text == reference.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, tokenize=False
        )
        ids = tok.apply_chat_template(messages, add_generation_prompt=generation_prompt)
        assert ids == reference.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, return_dict=False
        )
        assert isinstance(ids, list) and ids.count(tok.token_to_id("<|im_start|>")) == text.count(
            "<|im_start|>"
        )


def test_to_transformers_gives_the_same_ids(folder: Path, lines: list[str]) -> None:
    tok = tokensmith.Tokenizer.from_pretrained_dir(folder)
    fast = tok.to_transformers()
    assert fast.chat_template == TEMPLATE and fast.eos_token == "<|im_end|>"
    for line in lines[3400:3600]:
        assert fast(line)["input_ids"] == tok.encode(line).ids


def test_a_built_in_template_by_name(folder: Path, lines: list[str]) -> None:
    tok = tokensmith.Tokenizer.from_pretrained_dir(folder)
    messages = chats(lines)[0]
    text = tok.apply_chat_template(messages, chat_template="chatml", tokenize=False)
    assert text == f"<|im_start|>user\n{lines[3300]}<|im_end|>\n"


def test_bad_folders_name_the_problem(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="no such directory"):
        tokensmith.Tokenizer.from_pretrained_dir(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputNotFoundError, match="tokenizer.json"):
        tokensmith.Tokenizer.from_pretrained_dir(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "tokenizer.json").write_text((folder / "tokenizer.json").read_text("utf-8"), "utf-8")
    (broken / "tokenizer_config.json").write_text('{"eos_token": 3}', encoding="utf-8")
    with pytest.raises(TokenizerJsonError, match="eos_token") as e:
        tokensmith.Tokenizer.from_pretrained_dir(broken)
    assert e.value.json_path == "eos_token"
    (broken / "tokenizer_config.json").write_text(json.dumps({}), encoding="utf-8")
    plain = tokensmith.Tokenizer.from_pretrained_dir(broken)
    with pytest.raises(ChatTemplateError, match="no chat template"):
        plain.apply_chat_template([{"role": "user", "content": "hi"}])
