"""``Encoding.encode_with_unstable``: the stable tokens of a prefix, and how its tail may end.

When text is a prefix of what will follow (a prompt being completed), its last tokens may
change once more text arrives: ``" wor"`` is one token now, but ``" world"`` is another. The
answer is ``(stable, completions)``: the tokens that no continuation can change, and every
token sequence the unstable tail could start with once completed. This follows tiktoken's
semantics (the same stable tokens and the same set of completions):

1. The tail is the last piece of the split pattern (nothing if the text ends in an allowed
   special token), widened backwards over tokens made only of spaces, tabs and newlines, since
   a whitespace split can vanish when text is appended.
2. Completions: every single token that starts with the tail's bytes; then, for every cut of
   the tail into ``head + rest``, every token ``t`` that starts with ``rest``, with
   ``head + t`` re-encoded and cut off as soon as it covers the tail; and, when the tail ends in
   a whitespace character, the tail encoded as two parts split before that character.

It is a brute-force search over the vocabulary, meant for short prompts; it does not handle
tails longer than one split piece beyond what step 1 widens.

>>> import tokensmith
>>> enc = tokensmith.get_encoding("cl100k_base")
>>> stable, completions = enc.encode_with_unstable("hello fanta")
>>> enc.decode(stable), [enc.decode(c) for c in completions][:3]
('hello', [' fantas', ' fantasies', ' fantast'])
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING

from tokensmith.errors import MissingByteError

if TYPE_CHECKING:
    from tokensmith.encoding import AllowedSpecial, DisallowedSpecial, Encoding

# Rust's char::is_whitespace (Unicode White_Space), which tiktoken's rule uses; Python's
# str.isspace also accepts U+001C-U+001F, so it is not used.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
_SPACE_BYTES = frozenset(b" \n\t")


class _Vocab:
    """The lookups the search needs, built once per encoding on first use."""

    def __init__(self, enc: Encoding) -> None:
        self.ranks: dict[bytes, int] = enc._mergeable_ranks
        self.decoder: dict[int, bytes] = {rank: token for token, rank in self.ranks.items()}
        self.sorted_tokens: list[bytes] = enc.token_byte_values()

    def starting_with(self, prefix: bytes) -> list[bytes]:
        """Every token whose bytes start with ``prefix``, in byte order."""
        tokens = self.sorted_tokens
        i = bisect.bisect_left(tokens, prefix)
        out = []
        while i < len(tokens) and tokens[i].startswith(prefix):
            out.append(tokens[i])
            i += 1
        return out

    def byte_pair_encode(self, piece: bytes) -> list[int]:
        """BPE of raw bytes, no split pattern: merge the lowest-ranked pair, leftmost first.

        >>> v = _Vocab.__new__(_Vocab)
        >>> v.ranks = {b"a": 0, b"b": 1, b"ab": 2, b"bb": 3}
        >>> v.byte_pair_encode(b"abb")
        [2, 1]
        """
        missing = [b for b in set(piece) if bytes([b]) not in self.ranks]
        if missing:
            raise MissingByteError(f"the vocabulary has no token for byte {min(missing)}")
        parts = [piece[i : i + 1] for i in range(len(piece))]
        while len(parts) > 1:
            best, best_rank = -1, math.inf
            for i in range(len(parts) - 1):
                rank = self.ranks.get(parts[i] + parts[i + 1])
                if rank is not None and rank < best_rank:
                    best, best_rank = i, rank
            if best < 0:
                break
            parts[best : best + 2] = [parts[best] + parts[best + 1]]
        return [self.ranks[p] for p in parts]

    def is_all_space(self, token: int) -> bool:
        raw = self.decoder.get(token)
        return raw is not None and all(b in _SPACE_BYTES for b in raw)


def _vocab(enc: Encoding) -> _Vocab:
    vocab: _Vocab | None = enc.__dict__.get("_unstable_vocab")
    if vocab is None:
        vocab = _Vocab(enc)
        enc.__dict__["_unstable_vocab"] = vocab
    return vocab


def _last_char(data: bytes) -> tuple[str | None, int]:
    """The last UTF-8 character of ``data`` and its length in bytes (``None`` if invalid)."""
    start = len(data) - 1
    while start > max(len(data) - 4, 0) and 0x80 <= data[start] < 0xC0:
        start -= 1
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError:
        return None, 1
    return (text, len(data) - start) if len(text) == 1 else (None, 1)


def encode_with_unstable(
    enc: Encoding,
    text: str,
    *,
    allowed_special: AllowedSpecial,
    disallowed_special: DisallowedSpecial,
) -> tuple[list[int], list[list[int]]]:
    """See :meth:`tokensmith.Encoding.encode_with_unstable`."""
    tokens = enc.encode(
        text, allowed_special=allowed_special, disallowed_special=disallowed_special
    )
    tail_start = len(tokens)
    while tail_start > 0 and tokens[tail_start - 1] not in enc._special_ids:
        tail_start -= 1
    if tail_start == len(tokens):
        return tokens, []
    vocab = _vocab(enc)
    tail = enc.decode_bytes(tokens[tail_start:]).decode("utf-8")
    last_piece = enc.pre_tokenize(tail)[-1].encode("utf-8")
    n_unstable = 1 if last_piece in vocab.ranks else len(vocab.byte_pair_encode(last_piece))

    # A whitespace split present now may vanish once text is appended, merging the spaces
    # before it with the tail: widen the tail over them.
    if vocab.is_all_space(tokens[-n_unstable]):
        while n_unstable < len(tokens) and vocab.is_all_space(tokens[-n_unstable - 1]):
            n_unstable += 1
    unstable = enc.decode_bytes(tokens[-n_unstable:])
    stable = tokens[:-n_unstable]

    # A dict keeps the first-found order, so results are the same on every run.
    completions: dict[tuple[int, ...], None] = {}
    for token in vocab.starting_with(unstable):
        completions[(vocab.ranks[token],)] = None
    # Every head + token, encoded in one parallel batch (those that are not whole UTF-8 get
    # plain BPE with no split pattern, as in tiktoken).
    possibilities = [
        unstable[:cut] + token
        for cut in range(1, len(unstable))
        for token in vocab.starting_with(unstable[cut:])
    ]
    texts, raw = [], []
    for possibility in possibilities:
        try:
            texts.append(possibility.decode("utf-8"))
        except UnicodeDecodeError:
            raw.append(possibility)
    encoded_all = enc.encode_ordinary_batch(texts) + [vocab.byte_pair_encode(p) for p in raw]
    for encoded in encoded_all:
        seq, covered = [], 0
        for t in encoded:
            seq.append(t)
            covered += len(vocab.decoder[t])
            if covered >= len(unstable):
                break
        completions[tuple(seq)] = None

    if len(unstable) > 1:
        char, size = _last_char(unstable)
        if len(unstable) > size and char is not None and char in _WHITE_SPACE:
            split = len(unstable) - size
            two_parts = vocab.byte_pair_encode(unstable[:split])
            completions[tuple(two_parts + vocab.byte_pair_encode(unstable[split:]))] = None
    return stable, [list(c) for c in completions]
