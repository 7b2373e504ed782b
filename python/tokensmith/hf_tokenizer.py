"""The Hugging Face-compatible face: run a ``tokenizer.json`` with ``tokenizers``' API.

>>> import tokensmith
>>> tok = tokensmith.Tokenizer.from_str('''{"model": {"type": "WordPiece",
...     "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hi": 1, "##s": 2}}}''')
>>> enc = tok.encode("his")
>>> enc.tokens, enc.offsets
(['hi', '##s'], [(0, 2), (2, 3)])

Added tokens are found in the input first, as HF does (``special``, ``normalized``,
``lstrip``, ``rstrip`` and ``single_word`` included). The components that run are
BertNormalizer, NFD, NFKD, Lowercase, StripAccents, Strip, Prepend, Replace (string
patterns), Sequence; BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits,
CharDelimiterSplit, Metaspace, Split, ByteLevel,
Sequence; WordPiece and BPE (no dropout); TemplateProcessing, BertProcessing,
RobertaProcessing, ByteLevel; the WordPiece, Metaspace, BPEDecoder, ByteFallback, Fuse,
Strip, Replace (string patterns), ByteLevel and Sequence decoders. Any other component type
raises :class:`~tokensmith.errors.UnsupportedComponentError` naming it. Truncation
(LongestFirst, stride 0) and padding are applied as the file configures them; the
``overflowing`` part of a truncated input is not returned.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from tokensmith._core import CoreHfTokenizer


@dataclass(frozen=True)
class EncodingResult:
    """One encoded sequence (or pair): every list has one entry per token.

    ``offsets`` are ``(start, end)`` in characters of the sequence the token came from, and
    ``(0, 0)`` for special tokens; ``word_ids`` is ``None`` for special tokens.
    """

    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]
    type_ids: list[int]
    attention_mask: list[int]
    special_tokens_mask: list[int]
    word_ids: list[int | None]

    def __len__(self) -> int:
        return len(self.ids)


class Tokenizer:
    """A loaded ``tokenizer.json``. Immutable; ``encode`` and ``decode`` release the GIL."""

    __slots__ = ("_core", "_json")

    def __init__(self, core: CoreHfTokenizer, json: str | None = None) -> None:
        self._core = core
        self._json = json

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """Loads a ``tokenizer.json`` file; a malformed or unsupported one raises
        :class:`~tokensmith.errors.TokenizerJsonError` naming the JSON path at fault."""
        core = CoreHfTokenizer.from_file(os.fspath(path))
        with open(path, encoding="utf-8") as f:
            return cls(core, f.read())

    @classmethod
    def from_str(cls, json: str) -> Tokenizer:
        """Loads the text of a ``tokenizer.json``."""
        return cls(CoreHfTokenizer.from_str(json), json)

    def to_str(self) -> str:
        """The ``tokenizer.json`` text this tokenizer was loaded from (or trained into)."""
        if self._json is None:
            raise TypeError("this tokenizer was not made from a tokenizer.json")
        return self._json

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the ``tokenizer.json`` atomically (HF ``tokenizers`` and ``transformers``
        load it)."""
        from tokensmith._atomic import write_text_atomic

        write_text_atomic(path, self.to_str())

    def encode(
        self, text: str, pair: str | None = None, add_special_tokens: bool = True
    ) -> EncodingResult:
        """Encodes ``text`` (and ``pair`` after it) as HF ``tokenizers`` does."""
        return EncodingResult(*self._core.encode(text, pair, add_special_tokens))

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids``; ids with no token are skipped, as in HF."""
        return self._core.decode(list(ids), skip_special_tokens)

    def token_to_id(self, token: str) -> int | None:
        return self._core.token_to_id(token)

    def id_to_token(self, id: int) -> str | None:
        return self._core.id_to_token(id)

    def get_vocab(self) -> dict[str, int]:
        """Every token and its id, added tokens included."""
        return self._core.get_vocab()

    def get_vocab_size(self) -> int:
        return len(self._core.get_vocab())
