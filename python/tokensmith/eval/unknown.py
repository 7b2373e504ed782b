"""How often a tokenizer gives up on text: unknown tokens and byte fallback.

Byte-level BPE (tiktoken, GPT-2 style) has every byte in its vocabulary, so both rates are 0
by construction. WordPiece/WordLevel models emit ``[UNK]`` for text they cannot spell, losing
it; SentencePiece models with ``byte_fallback`` spell such text as raw ``<0xNN>`` bytes.

>>> from tokensmith.eval.corpus import tokenize
>>> data = tokenize("o200k_base", ["any text at all ✓"])
>>> unk_rate(data), byte_fallback_rate(data)
(0.0, 0.0)
"""

from __future__ import annotations

import numpy as np

from tokensmith.eval.corpus import Tokenized


def unk_rate(data: Tokenized) -> float:
    """The share of tokens that are the unknown token: ``#{t : t in UNK} / #tokens``.

    A descriptive rate (no single paper owns it): the text that became ``[UNK]`` is lost to
    the model. 0 if no tokens.
    """
    if data.n_tokens == 0:
        return 0.0
    return float(np.isin(data.ids, data.adapter.unknown_ids()).mean())


def byte_fallback_rate(data: Tokenized) -> float:
    """The share of tokens that are byte-fallback tokens ``<0x00>``..``<0xFF>``.

    Source: the ``byte_fallback`` option documented in the sentencepiece README (Kudo &
    Richardson 2018 is the library's paper): characters outside the vocabulary are spelled
    byte by byte. 0 if no tokens.
    """
    if data.n_tokens == 0:
        return 0.0
    return float(np.isin(data.ids, data.adapter.byte_fallback_ids()).mean())
