"""One interface over every tokenizer the page shows: ids with byte and UTF-16 spans.

The page draws the text it already holds, so the server sends, for each token, its id and
the byte offsets of what it came from; the page maps bytes to the UTF-16 positions a
JavaScript string indexes. Two kinds of tokenizer come in:

- a byte-level BPE (:class:`tokensmith.Encoding`): its tokens' bytes concatenate to the text,
  so the spans are running sums of the tokens' byte lengths;
- a pipeline (:class:`tokensmith.Tokenizer`, a SentencePiece ``.model`` included): its
  offsets count characters of the input (a SentencePiece model's count bytes), mapped to
  bytes.

>>> import tokensmith
>>> seg = Segmenter.of(tokensmith.get_encoding("cl100k_base"), label="cl100k_base")
>>> cut = seg.segment(TextLayout.of("a😀"))
>>> cut.ids.tolist(), cut.byte_starts.tolist(), cut.byte_ends.tolist()
([64, 76460, 222], [0, 1, 4], [1, 4, 5])
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tokensmith.encoding import Encoding
from tokensmith.errors import ArgumentTypeError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.io._byte_level import token_to_str

__all__ = ["Cut", "PieceInfo", "Segmenter", "TextLayout"]

IntArray = npt.NDArray[np.int64]
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class TextLayout:
    """A text and where each of its characters starts in its UTF-8 bytes.

    Attributes:
        text: The text (lone surrogates must already be replaced).
        byte_at_char: ``len(text) + 1`` byte positions, the last the text's length in bytes.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        first = (data & 0xC0) != 0x80  # a character's first byte
        self.byte_at_char: IntArray = np.append(np.flatnonzero(first), data.size).astype(np.int64)
        self._chars_before = np.zeros(data.size + 1, dtype=np.int64)
        np.cumsum(first, out=self._chars_before[1:])

    @classmethod
    def of(cls, text: str) -> TextLayout:
        """Measures ``text``."""
        return cls(text)

    @property
    def n_bytes(self) -> int:
        return int(self.byte_at_char[-1])

    def chars_before(self, offsets: IntArray) -> IntArray:
        """How many characters start before each byte offset: two offsets with a character
        start between them draw that character."""
        return self._chars_before[offsets]


@dataclass(frozen=True)
class Cut:
    """How one tokenizer cuts one text."""

    ids: IntArray
    byte_starts: IntArray
    byte_ends: IntArray

    @property
    def n_tokens(self) -> int:
        return int(self.ids.size)


@dataclass(frozen=True)
class PieceInfo:
    """A token as its vocabulary spells it (``Ġhello``, ``▁hello``, ``<0xE3>``) and the bytes
    it stands for in running text."""

    raw: str
    data: bytes


class Segmenter:
    """A tokenizer the page can show. Build it with :meth:`of`."""

    def __init__(self, tokenizer: Encoding | Tokenizer, *, label: str) -> None:
        self.tokenizer = tokenizer
        self.label = label
        self._lengths: IntArray | None = None
        self._extended: dict[tuple[str, ...], Encoding] = {}
        self._extending = threading.Lock()
        spec = ""
        if isinstance(tokenizer, Tokenizer):
            try:
                spec = tokenizer.to_str()
            except TypeError:  # a SentencePiece model has no tokenizer.json text
                pass
        self._byte_level_json = '"ByteLevel"' in spec
        self._wordpiece = '"WordPiece"' in spec

    @classmethod
    def of(cls, tokenizer: Any, *, label: str) -> Segmenter:
        """Wraps an :class:`~tokensmith.Encoding`, a :class:`~tokensmith.Tokenizer` or a
        :class:`~tokensmith.SentencePieceProcessor`."""
        from tokensmith.sentencepiece import SentencePieceProcessor
        from tokensmith.sentencepiece_backend import SentencePieceTokenizer

        if isinstance(tokenizer, SentencePieceProcessor):
            tokenizer = SentencePieceTokenizer(tokenizer)
        if not isinstance(tokenizer, (Encoding, Tokenizer)):
            raise ArgumentTypeError(f"cannot show a {type(tokenizer).__name__}")
        return cls(tokenizer, label=label)

    @property
    def vocab_size(self) -> int:
        if isinstance(self.tokenizer, Encoding):
            return int(self.tokenizer.n_vocab)
        return int(self.tokenizer.get_vocab_size())

    def encoding(self) -> Encoding | None:
        """The byte-level encoding, if that is what this is."""
        return self.tokenizer if isinstance(self.tokenizer, Encoding) else None

    def encoding_with(self, tokens: tuple[str, ...]) -> Encoding | None:
        """The byte-level encoding with ``tokens`` added as special tokens, made once (adding
        them copies the vocabulary: about a second for o200k_base)."""
        from tokensmith.chat import with_special_tokens

        enc = self.encoding()
        if enc is None or not tokens:
            return enc
        with self._extending:  # two chat requests at once build the copy once
            if tokens not in self._extended:
                self._extended[tokens] = with_special_tokens(enc, tokens)
            return self._extended[tokens]

    def segment(self, layout: TextLayout) -> Cut:
        """The tokens of ``layout.text`` (as ordinary text: special-token text is text)."""
        if isinstance(self.tokenizer, Encoding):
            ids = self._encode_ordinary(layout.text)
            lengths = self._byte_lengths()[ids]
            ends = np.cumsum(lengths)
            return Cut(ids, ends - lengths, ends)
        ids, starts, ends = self._encode_with_offsets(layout)
        starts = np.clip(starts, 0, layout.n_bytes)
        return Cut(ids, starts, np.maximum(np.clip(ends, 0, layout.n_bytes), starts))

    def _encode_with_offsets(self, layout: TextLayout) -> tuple[IntArray, IntArray, IntArray]:
        """Ids, byte starts and byte ends from a pipeline tokenizer."""
        from tokensmith.sentencepiece_backend import SentencePieceTokenizer

        tok = self.tokenizer
        if isinstance(tok, SentencePieceTokenizer):
            # The model's byte offsets as flat arrays: the HF-style result would also build
            # word ids, special-token masks and a tuple per token in Python.
            columns = tok.processor._model.encode_byte_offsets(layout.text)
            ids, starts, ends = (c.astype(np.int64) for c in columns)
            return ids, starts, ends
        assert isinstance(tok, Tokenizer)
        result = tok.encode(layout.text, add_special_tokens=False)
        n = len(result.offsets)
        flat = np.fromiter((x for pair in result.offsets for x in pair), np.int64, 2 * n)
        chars = np.clip(flat.reshape(-1, 2), 0, len(layout.text))
        at = layout.byte_at_char
        return np.asarray(result.ids, dtype=np.int64), at[chars[:, 0]], at[chars[:, 1]]

    def _encode_ordinary(self, text: str) -> IntArray:
        enc = self.tokenizer
        assert isinstance(enc, Encoding)
        tokens, _ = enc.encode_ordinary_batch_to_numpy([text], num_threads=1)
        return np.asarray(tokens, dtype=np.int64)

    def _byte_lengths(self) -> IntArray:
        if self._lengths is None:
            from tokensmith.eval.adapters import TiktokenLikeAdapter

            self._lengths = TiktokenLikeAdapter(self.tokenizer).token_byte_lengths()
        return self._lengths

    def piece(self, token_id: int) -> PieceInfo:
        """The vocabulary's spelling of ``token_id`` and its bytes.

        Raises:
            UnknownTokenIdError: the id is not in the vocabulary.
        """
        from tokensmith.errors import UnknownTokenIdError

        if not 0 <= token_id < self.vocab_size:
            raise UnknownTokenIdError(f"token id {token_id} is not in {self.label}")
        if isinstance(self.tokenizer, Encoding):
            data = bytes(self.tokenizer.decode_single_token_bytes(token_id))
            return PieceInfo(token_to_str(data), data)
        raw = self.tokenizer.id_to_token(token_id)
        if raw is None:
            raise UnknownTokenIdError(f"token id {token_id} is not in {self.label}")
        return PieceInfo(raw, self._piece_bytes(raw))

    def _piece_bytes(self, raw: str) -> bytes:
        byte = _BYTE_PIECE.fullmatch(raw)
        if byte:
            return bytes([int(byte.group(1), 16)])
        if self._byte_level_json:
            from tokensmith.io._byte_level import CHAR_TO_BYTE

            if all(ch in CHAR_TO_BYTE for ch in raw):
                return bytes(CHAR_TO_BYTE[ch] for ch in raw)
        if self._wordpiece and raw.startswith("##"):
            raw = raw[2:]
        return raw.replace("\u2581", " ").encode("utf-8")
