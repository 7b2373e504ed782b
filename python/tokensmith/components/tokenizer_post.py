"""HF ``Tokenizer``'s ``post_process`` and ``encode_batch_fast`` (mixed into
:class:`~tokensmith.Tokenizer`).

``post_process`` runs the last steps of an encode (truncation, the post-processor, padding) on
results made earlier, as HF's does: every list of the input is kept as it is, so a result that
was already padded or post-processed is processed again, pad and special tokens included.

``encode_batch_fast`` gives the ids of :meth:`~tokensmith.Tokenizer.encode_batch`, and, as HF's
does, nothing about the input's tokens: each is an empty string with offsets ``(0, 0)``, no
word and type id 0; the tokens that the post-processor and padding add are spelled out.

>>> from tokensmith import Tokenizer
>>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
...     ' "vocab": {"?": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}},'
...     ' "pre_tokenizer": {"type": "Whitespace"}, "post_processor": {"type":'
...     ' "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}}')
>>> bare = tok.encode("a a", add_special_tokens=False)
>>> tok.post_process(bare, tok.encode("a", add_special_tokens=False)).type_ids
[0, 0, 0, 0, 1, 1]
>>> enc = tok.encode_batch_fast(["a ?"])[0]
>>> enc.ids, enc.tokens, enc.offsets
([1, 3, 0, 2], ['[CLS]', '', '', '[SEP]'], [(0, 0), (0, 0), (0, 0), (0, 0)])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from tokensmith._core import EncodingResult

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["TokenizerPost"]

_DEFAULT_THREADS = os.cpu_count() or 1


class TokenizerPost:
    """``post_process`` and ``encode_batch_fast``."""

    __slots__ = ()

    def post_process(
        self,
        encoding: EncodingResult,
        pair: EncodingResult | None = None,
        add_special_tokens: bool = True,
    ) -> EncodingResult:
        """Truncates ``encoding`` (and ``pair``) as configured, runs the post-processor on them
        and pads the result, as HF's ``Tokenizer.post_process`` does.

        Raises:
            ArgumentTypeError: ``encoding`` or ``pair`` is not an :class:`EncodingResult`.
            TruncationError: the truncation strategy cannot be satisfied for these results.
        """
        from tokensmith.errors import ArgumentTypeError

        for name, value in (("encoding", encoding), ("pair", pair)):
            if value is not None and not isinstance(value, EncodingResult):
                raise ArgumentTypeError(
                    f"{name} must be an EncodingResult, not {type(value).__name__}"
                )
        tok = cast("Tokenizer", self)
        return tok._core.post_process(encoding, pair, add_special_tokens)

    def encode_batch_fast(
        self,
        input: Sequence[Any],
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
        *,
        num_threads: int = _DEFAULT_THREADS,
    ) -> list[EncodingResult]:
        """Encodes each input as :meth:`~tokensmith.Tokenizer.encode_batch` does (the same
        ids, truncation and padding), leaving out the input tokens' text, offsets, words and
        type ids as HF's ``encode_batch_fast`` does.

        Raises:
            EncodeInputError: an input of another shape.
        """
        tok = cast("Tokenizer", self)
        return tok._encode_batch(input, is_pretokenized, add_special_tokens, num_threads, True)
