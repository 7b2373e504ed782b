"""A tokenizer folder as transformers saves it: ``tokenizer.json`` plus its configuration.

``tokenizer_config.json`` (and, when present, ``special_tokens_map.json`` and
``chat_template.jinja``, where transformers 5 keeps the template) give the special tokens'
text (``bos_token``, ``eos_token``, ...), the model's maximum length and the chat template.
Nothing is ever downloaded: the folder must hold the files.

>>> import json, tempfile, os
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
...     json.dump({"bos_token": {"content": "<s>"}, "eos_token": "</s>",
...                "chat_template": "{{ bos_token }}{{ messages[0]['content'] }}"}, f)
>>> config = read_config(folder)
>>> config.special_tokens, config.chat_template
({'bos_token': '<s>', 'eos_token': '</s>'}, "{{ bos_token }}{{ messages[0]['content'] }}")
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from tokensmith.errors import InputNotFoundError, TokenizerJsonError

__all__ = ["SPECIAL_TOKEN_KEYS", "TokenizerConfig", "read_config"]

SPECIAL_TOKEN_KEYS = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)


@dataclass(frozen=True)
class TokenizerConfig:
    """What a tokenizer folder says besides ``tokenizer.json``.

    Attributes:
        special_tokens: ``bos_token``, ``eos_token``, ... to their text (only those set).
        chat_template: The default chat template's Jinja2 text, if any.
        chat_templates: Named templates (``tool_use``, ...) when the file has several.
        model_max_length: The model's maximum sequence length, if given.
    """

    special_tokens: dict[str, str] = field(default_factory=dict)
    chat_template: str | None = None
    chat_templates: dict[str, str] = field(default_factory=dict)
    model_max_length: int | None = None


def _error(message: str, json_path: str) -> TokenizerJsonError:
    error = TokenizerJsonError(message)
    error.json_path = json_path
    return error


def _read_json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as e:
        raise _error(f"{path}: not JSON ({e})", "$") from None
    if not isinstance(data, dict):
        raise _error(f"{path}: expected a JSON object", "$")
    return data


def _token_text(value: Any, path: str, key: str) -> str | None:
    """A special token given as text or as an added-token dict (``{"content": ...}``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    raise _error(f"{path}: {key} is neither text nor {{'content': ...}}", key)


def _templates(value: Any, path: str) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, list) and all(
        isinstance(t, dict)
        and isinstance(t.get("name"), str)
        and isinstance(t.get("template"), str)
        for t in value
    ):
        return {t["name"]: t["template"] for t in value}
    raise _error(
        f"{path}: chat_template must be text or a list of {{'name', 'template'}}",
        "chat_template",
    )


def read_config(folder: str | os.PathLike[str]) -> TokenizerConfig:
    """Reads the configuration files of a tokenizer folder (each one optional).

    Raises:
        InputNotFoundError: ``folder`` is not a directory.
        TokenizerJsonError: a file is not JSON or a field has the wrong shape (the message
            names the file and the field).
    """
    root = os.fspath(folder)
    if not os.path.isdir(root):
        raise InputNotFoundError(f"{root}: no such directory")
    config_path = os.path.join(root, "tokenizer_config.json")
    config = _read_json(config_path) if os.path.exists(config_path) else {}
    map_path = os.path.join(root, "special_tokens_map.json")
    special_map = _read_json(map_path) if os.path.exists(map_path) else {}
    specials: dict[str, str] = {}
    for key in SPECIAL_TOKEN_KEYS:
        text = _token_text(config.get(key, special_map.get(key)), config_path, key)
        if text is not None:
            specials[key] = text
    templates = _templates(config.get("chat_template"), config_path)
    jinja_path = os.path.join(root, "chat_template.jinja")
    if os.path.exists(jinja_path):
        with open(jinja_path, encoding="utf-8") as f:
            templates["default"] = f.read()
    max_length = config.get("model_max_length")
    return TokenizerConfig(
        special_tokens=specials,
        chat_template=templates.get("default"),
        chat_templates=templates,
        model_max_length=int(max_length) if isinstance(max_length, (int, float)) else None,
    )
