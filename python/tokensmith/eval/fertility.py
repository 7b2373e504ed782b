"""Fertility and the proportion of continued words: how finely words are cut.

Both count "words" as :func:`~tokensmith.eval.segments.unit_spans` defines them: whitespace
words, with each character of a spaceless script (Chinese, Japanese, Thai, ...) a unit of its
own. A token overlapping a word counts for it, so byte-level BPE's leading-space tokens
(``" world"``) belong to the word they introduce.

>>> from tokensmith.eval.corpus import tokenize
>>> data = tokenize("cl100k_base", ["hello world", "tokenization"])
>>> fertility(data), continued_words(data)  # token|ization is the one continued word
(1.3333333333333333, 0.3333333333333333)
"""

from __future__ import annotations

import numpy as np

from tokensmith.eval.corpus import Tokenized
from tokensmith.eval.segments import Units, tokens_overlapping, unit_spans


def n_units(data: Tokenized, units: Units = "mixed") -> int:
    """How many word-like units the corpus holds."""
    return int(unit_spans(data.geometry, units)[0].size)


def fertility(data: Tokenized, *, units: Units = "mixed") -> float:
    """Tokens per word: ``sum_i |tokens(x_i)| / sum_i |words(x_i)|``.

    Words are whitespace-separated; for scripts without spaces each character counts as one
    (``units="mixed"``; ``"words"`` and ``"chars"`` force one rule). Source: Rust et al. 2021,
    "How Good is your Tokenizer? On the Monolingual Performance of Multilingual Language
    Models" (ACL): fertility is the average number of subwords per
    word; 1.0 means every word is one token. ``nan`` if the corpus has no words.
    """
    count = n_units(data, units)
    return data.n_tokens / count if count else float("nan")


def continued_words(data: Tokenized, *, units: Units = "mixed") -> float:
    """The share of words split into more than one token: ``#{w : |tokens(w)| > 1} / #words``.

    ``|tokens(w)|`` is the number of tokens whose byte span overlaps the word's. Source: Rust
    et al. 2021 ("proportion of continued words", after Ács 2019). ``nan`` if there are
    no words.
    """
    starts, ends = unit_spans(data.geometry, units)
    if starts.size == 0:
        return float("nan")
    tok_starts, tok_ends = data.token_spans()
    per_word = tokens_overlapping(tok_starts, tok_ends, starts, ends)
    return float(np.mean(per_word > 1))
