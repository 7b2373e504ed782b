"""What the alignment methods of an encoding answer, gathered so that tokensmith's
``EncodingResult`` and HF's ``Encoding`` can be compared in one assertion.

:func:`answers` asks every method of HF's ``Encoding`` that maps tokens, words and characters
(``token_to_*``, ``char_to_*``, ``word_to_*``) about every token, every character and every
word of each sequence, one past the ends too, and for a sequence index that the encoding does
not have; :func:`tree` adds every output field, recursively through the overflowing
encodings.
"""

from __future__ import annotations

from typing import Any

from hf_parity import fields


def answers(enc: Any, overlapping: bool = False) -> tuple[Any, ...]:
    """Every alignment query on ``enc``: per token, per character and per word, for sequence
    indexes 0, 1 and 2 (no encoding has a third sequence).

    With ``overlapping`` (after ``set_sequence_id`` gave a sequence tokens that another one
    has), only whether a token has a sequence is kept: HF keeps the sequences in a hash map
    and answers ``token_to_sequence`` with the first in its (random) order that holds it.
    """
    n = len(enc.ids)
    per_token = [
        (
            enc.token_to_sequence(i) is not None if overlapping else enc.token_to_sequence(i),
            enc.token_to_chars(i),
            enc.token_to_word(i),
        )
        for i in range(n + 2)
    ]
    last_char = max((end for _, end in enc.offsets), default=0)
    last_word = max((w for w in enc.word_ids if w is not None), default=0)
    per_sequence = []
    for s in range(3):
        chars = [(enc.char_to_token(c, s), enc.char_to_word(c, s)) for c in range(last_char + 2)]
        words = [(enc.word_to_tokens(w, s), enc.word_to_chars(w, s)) for w in range(last_word + 2)]
        per_sequence.append((chars, words))
    return (enc.n_sequences, enc.sequence_ids, per_token, per_sequence)


def tree(enc: Any, overlapping: bool = False) -> tuple[Any, ...]:
    """Every field and every alignment answer of ``enc`` and, recursively, of its overflowing
    encodings (``overlapping`` as for :func:`answers`)."""
    return (
        fields(enc),
        answers(enc, overlapping),
        [tree(o, overlapping) for o in enc.overflowing],
    )
