"""How numbers are split: digits per token.

Seed 000 (§8) explains why this matters: a model that sees ``12345`` one digit per token can
learn place-value arithmetic more easily than one that sees arbitrary chunks such as
``123`` + ``45``; GPT-4-era tokenizers deliberately cut digits into groups of up to three.

>>> from tokensmith.eval.corpus import tokenize
>>> digits_per_token(tokenize("cl100k_base", ["12345 and 678"]))  # 123|45, 678
2.6666666666666665
"""

from __future__ import annotations

import numpy as np

from tokensmith.eval.corpus import Tokenized
from tokensmith.eval.segments import digit_counts


def digits_per_token(data: Tokenized) -> float:
    """Mean digits carried by a token that carries digits: ``#digits / #{t : digits(t) > 0}``.

    Digits are decimal digits in any script (``str.isdecimal``); a digit belongs to the token
    holding its first byte. 1.0 means digit-by-digit splitting (Llama-2 style); cl100k and
    o200k give up to 3. ``nan`` when the corpus has no digits.
    """
    starts, ends = data.token_spans()
    per_token = digit_counts(data.geometry, starts, ends)
    carrying = int(np.count_nonzero(per_token))
    return float(per_token.sum() / carrying) if carrying else float("nan")
