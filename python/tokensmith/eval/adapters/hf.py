"""Adapter for a ``tokenizer.json`` pipeline: HF ``tokenizers.Tokenizer`` or tokensmith's own
:class:`tokensmith.Tokenizer` (the two share the method names the adapter uses).

HF token strings are not bytes: byte-level models spell bytes with GPT-2's printable alphabet
(``Ġ`` is a space), SentencePiece-style models write the space as ``▁``, WordPiece marks
continuations with ``##``, and byte-fallback tokens look like ``<0xE3>``. The adapter reads the
tokenizer's own JSON once to learn which spelling applies. Token spans come from HF's offsets,
which count characters of the original text, so normalizers (lowercasing, NFKC) do not
misalign the word-level metrics.

A ``tokenizer.json`` that pads or truncates runs with both switched off (a copy; ``note``
says so), so that metrics count the tokenizer's own tokens.

Not handled: token bytes for tokenizers whose decoder rewrites text in other ways (for example
a custom ``Replace``); such tokens fall back to their UTF-8 spelling.

>>> from tokenizers import Tokenizer, models
>>> tok = Tokenizer(models.WordLevel({"[UNK]": 0, "hi": 1}, unk_token="[UNK]"))
>>> HFTokenizerAdapter(tok).unknown_ids().tolist()
[0]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tokensmith.errors import ArgumentTypeError
from tokensmith.eval.adapters.base import IntArray, TokenBatch
from tokensmith.io._byte_level import CHAR_TO_BYTE

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def gpt2_byte_alphabet() -> dict[str, int]:
    """GPT-2's printable spelling of the 256 bytes, as char -> byte (from :mod:`tokensmith.io`).

    >>> gpt2_byte_alphabet()["Ġ"], gpt2_byte_alphabet()["a"]
    (32, 97)
    """
    return dict(CHAR_TO_BYTE)


def _types(component: Any) -> Iterator[str]:
    """Every ``type`` name inside a pipeline component's JSON, nested sequences included."""
    if isinstance(component, dict):
        kind = component.get("type")
        if isinstance(kind, str):
            yield kind
        for value in component.values():
            yield from _types(value)
    elif isinstance(component, list):
        for item in component:
            yield from _types(item)


def without_padding(tokenizer: Any) -> tuple[Any, list[str]]:
    """A copy of a ``tokenizer.json`` pipeline (HF's or tokensmith's) with padding and
    truncation off, and which of the two were on (``tokenizer`` itself if neither)."""
    spec = json.loads(tokenizer.to_str())
    switched = [k for k in ("padding", "truncation") if spec.get(k) is not None]
    if not switched:
        return tokenizer, []
    spec.update(dict.fromkeys(switched))
    return type(tokenizer).from_str(json.dumps(spec)), switched


class HFTokenizerAdapter:
    """Wraps a ``tokenizers.Tokenizer`` or a :class:`tokensmith.Tokenizer`.

    Args:
        tokenizer: The tokenizer.
        name: A label for reports.
    """

    def __init__(self, tokenizer: Any, *, name: str = "tokenizers") -> None:
        if not hasattr(tokenizer, "encode_batch") or not hasattr(tokenizer, "to_str"):
            raise ArgumentTypeError(f"{type(tokenizer).__name__} is not a tokenizer.json pipeline")
        self._name = name
        # Padding and truncation change how many tokens a text counts as; measure without.
        tokenizer, switched = without_padding(tokenizer)
        self.note: str | None = None
        if switched:
            self.note = (
                f"{name}: its {' and '.join(switched)} switched off for measuring, so the "
                "metrics count the tokenizer's own tokens."
            )
        self._tok = tokenizer
        spec = json.loads(tokenizer.to_str())
        self._model: dict[str, Any] = spec.get("model") or {}
        pipeline = [spec.get("normalizer"), spec.get("pre_tokenizer"), spec.get("decoder")]
        kinds = set(_types(pipeline))
        self._byte_level = "ByteLevel" in kinds
        self._metaspace = "Metaspace" in kinds or "▁" in json.dumps(
            spec.get("decoder"), ensure_ascii=False
        )
        self._wordpiece_prefix = str(self._model.get("continuing_subword_prefix") or "##")
        self._added = {
            int(t["id"]): str(t["content"]).encode("utf-8") for t in spec.get("added_tokens", [])
        }
        self._alphabet = gpt2_byte_alphabet() if self._byte_level else {}

    def __repr__(self) -> str:
        return f"<HFTokenizerAdapter {self.name!r}>"

    @property
    def tokenizer(self) -> Any:
        """The wrapped tokenizer."""
        return self._tok

    @property
    def name(self) -> str:
        return self._name

    @property
    def vocab_size(self) -> int:
        try:
            return int(self._tok.get_vocab_size(with_added_tokens=True))
        except TypeError:  # tokensmith.Tokenizer counts added tokens always
            return int(self._tok.get_vocab_size())

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def encode_batch(self, texts: Sequence[str]) -> TokenBatch:
        encodings = self._tok.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64)
        offsets = np.zeros(len(encodings) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if offsets[-1] == 0:
            empty = np.zeros(0, dtype=np.int64)
            return TokenBatch(empty, offsets, empty, empty, "char")
        ids = np.concatenate([np.asarray(e.ids, dtype=np.int64) for e in encodings if e.ids])
        spans = np.concatenate(
            [np.asarray(e.offsets, dtype=np.int64).reshape(-1, 2) for e in encodings if e.ids]
        )
        return TokenBatch(ids, offsets, spans[:, 0].copy(), spans[:, 1].copy(), "char")

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tok.decode(list(ids), skip_special_tokens=False))

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self._added:
            return self._added[token_id]
        token: str | None = self._tok.id_to_token(token_id)
        if token is None:
            return b""
        if self._model.get("byte_fallback"):
            match = _BYTE_TOKEN.fullmatch(token)
            if match:
                return bytes([int(match.group(1), 16)])
        if self._byte_level and all(ch in self._alphabet for ch in token):
            return bytes(self._alphabet[ch] for ch in token)
        if self._model.get("type") == "WordPiece" and token.startswith(self._wordpiece_prefix):
            token = token[len(self._wordpiece_prefix) :]
        if self._metaspace:
            token = token.replace("▁", " ")
        return token.encode("utf-8")

    def unknown_ids(self) -> IntArray:
        found: list[int] = []
        unk_token = self._model.get("unk_token")
        if isinstance(unk_token, str):
            token_id = self._tok.token_to_id(unk_token)
            if token_id is not None:
                found.append(int(token_id))
        unk_id = self._model.get("unk_id")
        if isinstance(unk_id, int):
            found.append(unk_id)
        return np.unique(np.asarray(found, dtype=np.int64))

    def byte_fallback_ids(self) -> IntArray:
        if not self._model.get("byte_fallback"):
            return np.zeros(0, dtype=np.int64)
        found = (self._tok.token_to_id(f"<0x{b:02X}>") for b in range(256))
        return np.unique(np.asarray([t for t in found if t is not None], dtype=np.int64))
