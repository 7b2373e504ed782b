"""``tokenize``: encode a corpus once, then let every metric read the same arrays.

A :class:`Tokenized` holds the texts, their token ids (flat), and — computed on first use — the
texts' geometry: the code points of all texts joined by ``"\\n"``, the UTF-8 byte position of
every character, and every token's byte span in that joined text. The word-level metrics
compare token spans with word spans by binary search, so nothing loops over tokens in Python.

>>> data = tokenize("o200k_base", ["hello world", "hi"])
>>> data.n_tokens, data.n_bytes, data.n_chars
(3, 13, 13)
>>> data.token_spans()[0].tolist()  # byte starts in "hello world\\nhi"
[0, 5, 12]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tokensmith.errors import EmptyCorpusError, InvalidArgumentError
from tokensmith.eval.adapters import (
    IntArray,
    TokenBatch,
    TokenizerAdapter,
    TokenizerSpec,
    load_tokenizer,
    token_byte_lengths,
)

SEPARATOR = "\n"


def scrub_surrogates(text: str) -> str:
    """Replaces lone surrogates with U+FFFD, as tiktoken does before encoding.

    >>> scrub_surrogates("a\\udc00b")
    'a\\ufffdb'
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass(frozen=True)
class Geometry:
    """Where each text, character and byte sits once the texts are joined by ``"\\n"``.

    Attributes:
        codepoints: The joined text's code points.
        byte_at_char: ``len(codepoints) + 1`` byte positions; character ``i`` occupies bytes
            ``byte_at_char[i]:byte_at_char[i + 1]``.
        char_base: The character position where each text starts.
        byte_base: The byte position where each text starts.
    """

    codepoints: IntArray
    byte_at_char: IntArray
    char_base: IntArray
    byte_base: IntArray

    @classmethod
    def of(cls, texts: tuple[str, ...], n_chars: IntArray, n_bytes: IntArray) -> Geometry:
        joined = SEPARATOR.join(texts)
        cps = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        widths = 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
        byte_at_char = np.zeros(cps.size + 1, dtype=np.int64)
        np.cumsum(widths, out=byte_at_char[1:])
        return cls(cps, byte_at_char, _bases(n_chars), _bases(n_bytes))


def _bases(sizes: IntArray) -> IntArray:
    """Start of each text when texts of these sizes are joined by a one-unit separator."""
    bases = np.zeros(sizes.size, dtype=np.int64)
    np.cumsum(sizes[:-1] + 1, out=bases[1:])
    return bases


@dataclass(frozen=True, eq=False)
class Tokenized:
    """A corpus encoded by one tokenizer. Build it with :func:`tokenize`.

    Attributes:
        adapter: The tokenizer.
        texts: The texts (lone surrogates replaced by U+FFFD).
        batch: Their token ids.
        text_bytes: Each text's UTF-8 length.
        text_chars: Each text's length in code points.
        language: A label, if the corpus is one language.
    """

    adapter: TokenizerAdapter
    texts: tuple[str, ...]
    batch: TokenBatch
    text_bytes: IntArray
    text_chars: IntArray
    language: str | None = field(default=None)

    @property
    def ids(self) -> IntArray:
        """Every token id, text after text."""
        return self.batch.ids

    @property
    def offsets(self) -> IntArray:
        """Text ``i`` owns ``ids[offsets[i]:offsets[i + 1]]``."""
        return self.batch.offsets

    @property
    def n_tokens(self) -> int:
        return int(self.batch.ids.size)

    @property
    def n_bytes(self) -> int:
        return int(self.text_bytes.sum())

    @property
    def n_chars(self) -> int:
        return int(self.text_chars.sum())

    @cached_property
    def geometry(self) -> Geometry:
        """The joined text's layout (computed once)."""
        return Geometry.of(self.texts, self.text_chars, self.text_bytes)

    @cached_property
    def token_byte_lengths(self) -> IntArray:
        """The byte length of every id of the vocabulary."""
        return token_byte_lengths(self.adapter)

    def token_spans(self) -> tuple[IntArray, IntArray]:
        """Every token's ``(start, end)`` byte positions in the joined text."""
        return self._token_spans

    @cached_property
    def _token_spans(self) -> tuple[IntArray, IntArray]:
        geo = self.geometry
        batch = self.batch
        text_of_token = np.repeat(np.arange(len(self.texts)), batch.lengths())
        if batch.starts is None or batch.ends is None:
            # Byte-level tokens concatenate to the text: spans are running sums of lengths.
            lengths = self.token_byte_lengths[batch.ids]
            ends = np.cumsum(lengths)
            at_text_start = np.concatenate([[0], ends])[batch.offsets[:-1]]
            local_end = ends - at_text_start[text_of_token]
            local_start = local_end - lengths
        else:
            local_start, local_end = batch.starts, batch.ends
        if batch.span_unit == "char":
            limit = self.text_chars[text_of_token]
            base = geo.char_base[text_of_token]
            starts = geo.byte_at_char[base + np.clip(local_start, 0, limit)]
            ends = geo.byte_at_char[base + np.clip(local_end, 0, limit)]
        else:
            limit = self.text_bytes[text_of_token]
            base = geo.byte_base[text_of_token]
            starts = base + np.clip(local_start, 0, limit)
            ends = base + np.clip(local_end, 0, limit)
        return starts, np.maximum(ends, starts)


def tokenize(
    tokenizer: TokenizerSpec, texts: Iterable[str], *, language: str | None = None
) -> Tokenized:
    """Encodes ``texts`` once for all the metrics.

    Raises :class:`~tokensmith.errors.EmptyCorpusError` (a ``ValueError``) when there is no
    text, so an empty corpus never turns into a silent NaN.
    """
    adapter = load_tokenizer(tokenizer)
    items = tuple(scrub_surrogates(t) for t in texts)
    text_bytes = np.fromiter(
        (len(t.encode("utf-8")) for t in items), dtype=np.int64, count=len(items)
    )
    if not items or text_bytes.sum() == 0:
        where = f" for language {language!r}" if language else ""
        raise EmptyCorpusError(f"no text to evaluate{where}: the corpus is empty")
    text_chars = np.fromiter((len(t) for t in items), dtype=np.int64, count=len(items))
    batch = adapter.encode_batch(items)
    if batch.offsets.size != len(items) + 1:
        raise InvalidArgumentError(
            f"{adapter.name}: encode_batch returned {batch.offsets.size - 1} texts for {len(items)}"
        )
    if batch.ids.size and (batch.ids.min() < 0 or batch.ids.max() >= adapter.vocab_size):
        raise InvalidArgumentError(f"{adapter.name}: token ids outside 0..{adapter.vocab_size - 1}")
    return Tokenized(adapter, items, batch, text_bytes, text_chars, language)
