"""GPT-2's "data-gym" vocabulary (``vocab.bpe`` merges + ``encoder.json``) as tiktoken ranks.

In ``vocab.bpe`` (first line a version comment) each line is one merge, ``left right``, in
GPT-2's printable byte alphabet; the merge on line ``n`` (1-based) makes the token of
rank ``254 + n``.
The 256 single bytes take ranks 0-255 in the order of that alphabet: the printable bytes
first, in byte order, then the others. ``encoder.json`` maps every token to its id and must
agree with the ranks the merges imply (``<|endoftext|>`` and ``<|startoftext|>`` aside).

>>> encoder = {c: rank for rank, c in enumerate(sorted(BYTE_TO_CHAR))} | {"Ġa": 256}
>>> ranks = ranks_from_data_gym("#v\\nĠ a\\n", encoder, clobber_one_byte_tokens=False, where="")
>>> ranks[b" a"], ranks[b"!"], ranks[b" "]
(256, 0, 220)

It does not read files itself; :func:`tokensmith.load.data_gym_to_mergeable_bpe_ranks` does.
"""

from __future__ import annotations

from collections.abc import Mapping

from tokensmith.errors import InvalidVocabError, VocabFormatError
from tokensmith.io._byte_level import BYTE_TO_CHAR, str_to_token

# Ranks 0-255: bytes in the order of their printable characters.
RANK_TO_BYTE: list[int] = sorted(range(256), key=lambda b: ord(BYTE_TO_CHAR[b]))
_NOT_MERGEABLE = ("<|endoftext|>", "<|startoftext|>")


def ranks_from_data_gym(
    vocab_bpe: str,
    encoder: Mapping[str, int],
    *,
    clobber_one_byte_tokens: bool,
    where: str,
) -> dict[bytes, int]:
    """``{token bytes: rank}`` from the text of ``vocab.bpe`` and the parsed ``encoder.json``.

    ``clobber_one_byte_tokens`` takes the single bytes' ranks from ``encoder`` instead, as
    tiktoken's option of that name does. ``where`` prefixes error messages (the file names).

    Raises:
        VocabFormatError: a merge line is not two tokens of the byte alphabet (1-based line).
        InvalidVocabError: ``encoder`` disagrees with the ranks the merges give.
    """
    ranks = {bytes([b]): rank for rank, b in enumerate(RANK_TO_BYTE)}
    lines = vocab_bpe.split("\n")
    # The first line is a version comment and the last is the empty string after the final
    # newline, as in GPT-2's file (tiktoken reads it the same way).
    for rank, line in enumerate(lines[1:-1], start=256):
        lineno = rank - 254
        parts = line.split()
        if len(parts) != 2:
            raise VocabFormatError(f"{where}line {lineno}: expected 'left right', got {line!r}")
        at = f"{where}line {lineno}: "
        ranks[str_to_token(parts[0], where=at) + str_to_token(parts[1], where=at)] = rank
    loaded = {
        str_to_token(token, where=f"{where}encoder.json: "): rank
        for token, rank in encoder.items()
        if token not in _NOT_MERGEABLE
    }
    if clobber_one_byte_tokens:
        ranks.update({token: rank for token, rank in loaded.items() if len(token) == 1})
    if ranks != loaded:
        differ = sorted(
            set(ranks.items()).symmetric_difference(loaded.items()), key=lambda kv: kv[1]
        )[:3]
        raise InvalidVocabError(
            f"{where}encoder.json does not match the ranks the merges give "
            f"({len(loaded)} tokens against {len(ranks)}; first differences: {differ})"
        )
    return ranks
