"""HF ``Tokenizer`` methods that load or read the pipeline: ``from_buffer``,
``from_pretrained`` (local folder or hub cache only), ``num_special_tokens_to_add`` and
``get_added_tokens_decoder`` (mixed into :class:`~tokensmith.Tokenizer`).

>>> from tokensmith import Tokenizer
>>> tok = Tokenizer.from_buffer(b'{"model": {"type": "WordLevel", "unk_token": "?",'
...     b' "vocab": {"?": 0}}, "post_processor": {"type": "BertProcessing",'
...     b' "sep": ["?", 0], "cls": ["?", 0]}}')
>>> tok.num_special_tokens_to_add(is_pair=True)
3
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from tokensmith.added_token import AddedToken

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["TokenizerQueries"]


class TokenizerQueries:
    """``from_buffer``, ``num_special_tokens_to_add``, ``get_added_tokens_decoder``."""

    __slots__ = ()

    @classmethod
    def from_buffer(cls, buffer: bytes) -> Tokenizer:
        """Loads the UTF-8 bytes of a ``tokenizer.json``, as HF's ``from_buffer`` does.

        Raises:
            TokenizerJsonError: the bytes are not UTF-8, or not a valid tokenizer.json.
        """
        from tokensmith.errors import TokenizerJsonError
        from tokensmith.hf_tokenizer import Tokenizer

        try:
            text = bytes(buffer).decode("utf-8")
        except UnicodeDecodeError as e:
            raise TokenizerJsonError(f"tokenizer.json buffer is not UTF-8: {e}") from e
        return Tokenizer.from_str(text)

    @classmethod
    def from_pretrained(
        cls, identifier: str, revision: str = "main", token: str | None = None
    ) -> Tokenizer:
        """Loads the ``tokenizer.json`` of a local folder, or of model ``identifier``
        (``org/name``) at ``revision`` in the HF hub cache, never the network (``token``,
        HF's credential for downloads, is not used).

        Raises:
            InputNotFoundError: neither holds the file (the message names where it looked).
        """
        from tokensmith.hf_tokenizer import Tokenizer
        from tokensmith.hub_cache import find_tokenizer_json

        del token
        return Tokenizer.from_file(find_tokenizer_json(identifier, revision))

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many tokens the post-processor adds to one sequence (or a pair); 0 without
        one."""
        processor = cast("Tokenizer", self).post_processor
        return 0 if processor is None else processor.num_special_tokens_to_add(is_pair)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        """Every added token by id, with its flags, as HF's ``get_added_tokens_decoder``."""
        out: dict[int, AddedToken] = {}
        saved = cast("Tokenizer", self)._core.added_tokens()
        for id_, content, single_word, lstrip, rstrip, normalized, special in saved:
            out[id_] = AddedToken(
                content,
                single_word=single_word,
                lstrip=lstrip,
                rstrip=rstrip,
                normalized=normalized,
                special=special,
            )
        return out
