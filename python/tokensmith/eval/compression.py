"""Compression: how much text one token carries.

Both are corpus-level ratios (total over total), not means of per-text ratios, so long texts
weigh as much as their length; that is what fixes how much text fits in a context window and
what a request costs.

>>> from tokensmith.eval.corpus import tokenize
>>> data = tokenize("o200k_base", ["hello world"])
>>> bytes_per_token(data), chars_per_token(data)
(5.5, 5.5)
"""

from __future__ import annotations

from tokensmith.eval.corpus import Tokenized


def bytes_per_token(data: Tokenized) -> float:
    """UTF-8 bytes per token: ``sum_i |utf8(x_i)| / sum_i |tokens(x_i)|``.

    Source: the compression measure of seed 000, §7 ("bytes per token": the UTF-8 bytes a
    token carries on average, measured there with tiktoken).
    Higher is better compression. ``inf`` if the texts produced no tokens.
    """
    return data.n_bytes / data.n_tokens if data.n_tokens else float("inf")


def chars_per_token(data: Tokenized) -> float:
    """Characters (Unicode code points) per token: ``sum_i |x_i| / sum_i |tokens(x_i)|``.

    The per-character analogue of seed 000's bytes per token. Unlike bytes per token it does
    not favor scripts whose characters take 3 UTF-8 bytes.
    """
    return data.n_chars / data.n_tokens if data.n_tokens else float("inf")
