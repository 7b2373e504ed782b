"""Exact round trip: does ``decode(encode(x))`` give ``x`` back?

Byte-level BPE always does. Tokenizers that normalize (lowercase, NFKC), drop whitespace or
map text to ``[UNK]`` do not, and this rate shows how often that bites.

>>> from tokensmith.eval.corpus import tokenize
>>> round_trip_rate(tokenize("o200k_base", ["hello", "  spaces\\tand\\ttabs  "]))
1.0
"""

from __future__ import annotations

from tokensmith.eval.corpus import Tokenized


def round_trip_rate(data: Tokenized) -> float:
    """The share of texts with ``decode(encode(x)) == x`` exactly.

    A loop per text (not per token): decoding is one call per text.
    """
    offsets = data.offsets.tolist()
    ids = data.ids
    exact = sum(
        data.adapter.decode(ids[offsets[i] : offsets[i + 1]].tolist()) == text
        for i, text in enumerate(data.texts)
    )
    return exact / len(data.texts)
