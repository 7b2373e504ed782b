"""Helpers shared by the byte-level BPE formats: GPT-2's byte alphabet and merges from ranks.

HF ``tokenizers`` and GPT-2's ``vocab.json``/``merges.txt`` spell each byte as a printable
character (``' '`` is ``'Ġ'``, ``'\\n'`` is ``'Ċ'``):

>>> token_to_str(b" hello\\n")
'ĠhelloĊ'
>>> str_to_token("ĠhelloĊ")
b' hello\\n'

tiktoken files store only ranks; merge lists are rebuilt from them:

>>> merges_from_ranks({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3})
[(b'a', b'b'), (b'ab', b'b')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tokensmith.errors import InvalidVocabError, VocabFormatError


def _byte_to_char() -> list[str]:
    """GPT-2's printable character for each byte (``bytes_to_unicode`` in GPT-2's encoder)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars: dict[int, str] = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


BYTE_TO_CHAR: list[str] = _byte_to_char()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
# str.translate table: each alphabet character to the Latin-1 character of its byte, and each
# Latin-1 character outside the alphabet to one that Latin-1 cannot encode, so one C-level
# translate + encode turns a token into bytes and any foreign character fails the encode.
_TO_LATIN1: dict[int, int] = {
    **{c: 0xFFFF for c in range(256)},
    **{ord(c): b for c, b in CHAR_TO_BYTE.items()},
}


def token_to_str(token: bytes) -> str:
    """A token's bytes in GPT-2's printable alphabet."""
    return "".join(BYTE_TO_CHAR[b] for b in token)


def str_to_token(text: str, *, where: str = "") -> bytes:
    """The inverse of :func:`token_to_str`; a character outside the alphabet is an error."""
    try:
        return text.translate(_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        bad = next(c for c in text if c not in CHAR_TO_BYTE)
        raise VocabFormatError(
            f"{where}token {text!r} has the character {bad!r}, which is not in the "
            "byte-level alphabet (is this a byte-level BPE vocabulary?)"
        ) from None


def _split_at_rank(token: bytes, rank: int, ranks: Mapping[bytes, int]) -> list[bytes]:
    """The parts BPE leaves in ``token`` using only the tokens ranked below ``rank``."""
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 1:
        best, best_at = rank, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best:
                best, best_at = r, i
        if best_at < 0:
            break
        parts[best_at : best_at + 2] = [parts[best_at] + parts[best_at + 1]]
    return parts


def merges_from_ranks(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """One merge per multi-byte token, in rank order: the pair that BPE joins to make it.

    Each token is encoded with the tokens ranked below it; it must end as exactly two parts,
    which is true of every vocabulary trained by BPE (tiktoken's included).

    Raises:
        InvalidVocabError: a token cannot be reached by merging lower-ranked tokens.
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = _split_at_rank(token, rank, ranks)
        if len(parts) != 2:
            raise InvalidVocabError(
                f"token {token!r} (rank {rank}) is not the merge of two lower-ranked tokens "
                f"(BPE leaves {len(parts)} parts); it cannot be written as a merge list"
            )
        merges.append((parts[0], parts[1]))
    return merges


def ranks_from_merges(
    merges: Iterable[tuple[bytes, bytes]], ids: Mapping[bytes, int], *, where: str
) -> dict[bytes, int]:
    """Checks that a merge list and its vocabulary are a rank-ordered byte-level BPE.

    tokensmith merges by rank (tiktoken's rule), which is the merge list's rule when every
    merge makes a token whose id is larger than its parts' and than the previous merge's.
    Returns ``{token bytes: id}`` for the 256 bytes and the merged tokens.

    Raises:
        VocabFormatError: a byte is missing, a merge names an unknown token, or ids are not
            in merge order.
    """
    out: dict[bytes, int] = {}
    for b in range(256):
        byte = bytes([b])
        if byte not in ids:
            raise VocabFormatError(f"{where}the vocabulary has no token for byte {b}")
        out[byte] = ids[byte]
    last = -1
    for n, (left, right) in enumerate(merges, start=1):
        merged = left + right
        for part in (left, right, merged):
            if part not in ids:
                raise VocabFormatError(f"{where}merge {n} uses {part!r}, not in the vocabulary")
        rank = ids[merged]
        if rank <= max(ids[left], ids[right], last) and merged not in out:
            raise VocabFormatError(
                f"{where}merge {n} ({left!r} + {right!r}) makes id {rank}, which is not above "
                "its parts and the previous merge: tokensmith needs ids in merge order"
            )
        if merged not in out:
            out[merged] = rank
            last = rank
    return out
