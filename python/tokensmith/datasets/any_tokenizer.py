"""Any tokenizer :func:`tokensmith.load` gives, behind the calls ``encode_dataset`` makes on an
:class:`~tokensmith.Encoding`.

A :class:`~tokensmith.Tokenizer` (a ``tokenizer.json``, a ``.model``, a ``vocab.txt``)
encodes each document as ``tokenizer.encode(doc, add_special_tokens=False).ids``: without the
post-processor's template, and with padding and truncation switched off, so that a shard holds
the document's own tokens and the BOS/EOS the job adds.

>>> import tokensmith
>>> sp = tokensmith.SentencePieceProcessor.from_pieces(
...     [("<unk>", 0.0, "unknown"), ("</s>", 0.0, "control"), ("▁ab", -1.0, "normal"),
...      ("▁", -2.0, "normal"), ("a", -2.0, "normal"), ("b", -2.0, "normal")])
>>> enc = TokenizerEncoder(tokensmith.SentencePieceTokenizer(sp), name="tiny")
>>> toks, offsets = enc.encode_ordinary_batch_to_numpy(["ab", "a b"], num_threads=1)
>>> toks.tolist(), offsets.tolist(), enc.eot_token
([2, 3, 4, 3, 5], [0, 1, 5], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tokensmith.encoding import Encoding
from tokensmith.errors import UnsupportedFeatureError
from tokensmith.eval.adapters.hf import without_padding
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

__all__ = ["DatasetEncoder", "TokenizerEncoder"]

# End-of-text tokens of the common families, tried when the tokenizer names none.
_EOS_TEXTS = ("</s>", "<|endoftext|>", "<|end_of_text|>", "<eos>", "[SEP]")


class TokenizerEncoder:
    """A :class:`~tokensmith.Tokenizer` with an :class:`~tokensmith.Encoding`'s dataset calls.

    Args:
        tokenizer: The tokenizer.
        name: Its name in the job's manifest.
    """

    def __init__(self, tokenizer: Tokenizer, *, name: str) -> None:
        self.tokenizer = tokenizer
        unpadded = isinstance(tokenizer, SentencePieceTokenizer)
        self._tok: Tokenizer = tokenizer if unpadded else without_padding(tokenizer)[0]
        self.name = name

    @property
    def n_vocab(self) -> int:
        """One more than the largest id."""
        return max(self._tok.get_vocab().values(), default=-1) + 1

    @property
    def eot_token(self) -> int:
        """The end-of-text id: the folder's ``eos_token``, sentencepiece's ``eos_id``, or
        the first of ``</s>``, ``<|endoftext|>``, ``<|end_of_text|>``, ``<eos>``, ``[SEP]``.

        Raises:
            UnsupportedFeatureError: the tokenizer has none (pass ``eos_id``/``bos_id``).
        """
        if isinstance(self._tok, SentencePieceTokenizer) and self._tok.processor.eos_id() >= 0:
            return int(self._tok.processor.eos_id())
        named = self.tokenizer.config.special_tokens.get("eos_token")
        for text in (named, *_EOS_TEXTS) if named else _EOS_TEXTS:
            found = self._tok.token_to_id(text) if text else None
            if found is not None:
                return int(found)
        raise UnsupportedFeatureError(
            f"{self.name} has no end-of-text token ({', '.join(_EOS_TEXTS)}); "
            "pass eos_id=... (--eos-id) or bos_id=..."
        )

    def encode_ids(self, text: str) -> list[int]:
        """One document's tokens, as the shards hold them (without BOS/EOS)."""
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def encode_ordinary_batch_to_numpy(
        self, texts: Sequence[str], *, num_threads: int
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The tokens of ``texts``, concatenated, and the offset where each text starts (one
        more offset at the end)."""
        results = self._tok.encode_batch(list(texts), False, num_threads=num_threads)
        lengths = np.fromiter((len(r.ids) for r in results), dtype=np.int64, count=len(results))
        offsets = np.zeros(len(results) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        tokens = np.fromiter(
            (i for r in results for i in r.ids), dtype=np.int64, count=int(offsets[-1])
        )
        return tokens, offsets


#: What ``encode_dataset`` encodes with.
DatasetEncoder = Encoding | TokenizerEncoder
