"""One interface over every tokenizer the page shows: ids with byte and UTF-16 spans.

The page draws the text it already holds, so the server sends, for each token, its id and
where it sits: byte offsets (shown on hover) and UTF-16 offsets (what a JavaScript string
indexes). Two kinds of tokenizer come in:

- a byte-level BPE (:class:`tokensmith.Encoding`): its tokens' bytes concatenate to the text,
  so the spans are running sums of the tokens' byte lengths;
- a pipeline (:class:`tokensmith.Tokenizer`, a SentencePiece ``.model`` included): its
  offsets count characters of the input, so they are mapped to bytes.

>>> import tokensmith
>>> seg = Segmenter.of(tokensmith.get_encoding("cl100k_base"), label="cl100k_base")
>>> cut = seg.segment(TextLayout.of("a😀"))
>>> cut.ids.tolist(), cut.byte_starts.tolist(), cut.u16_starts.tolist(), cut.u16_ends.tolist()
([64, 76460, 222], [0, 1, 4], [0, 1, 3], [1, 3, 3])
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


@dataclass(frozen=True)
class TextLayout:
    """A text and where each of its characters starts, in bytes and in UTF-16 units.

    Attributes:
        text: The text.
        byte_at_char: ``len(text) + 1`` byte positions.
        u16_at_char: ``len(text) + 1`` UTF-16 positions (a character above U+FFFF takes two).
    """

    text: str
    byte_at_char: IntArray
    u16_at_char: IntArray

    @classmethod
    def of(cls, text: str) -> TextLayout:
        """Measures ``text`` (lone surrogates must already be replaced)."""
        cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        byte_at_char = np.zeros(cps.size + 1, dtype=np.int64)
        np.cumsum(1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000), out=byte_at_char[1:])
        u16_at_char = np.zeros(cps.size + 1, dtype=np.int64)
        np.cumsum(1 + (cps >= 0x10000), out=u16_at_char[1:])
        return cls(text, byte_at_char, u16_at_char)

    @property
    def n_bytes(self) -> int:
        return int(self.byte_at_char[-1])

    def u16_of_bytes(self, offsets: IntArray) -> IntArray:
        """The UTF-16 position of the first character that starts at or after each byte
        offset: a token holding a character's first byte shows that character."""
        chars = np.searchsorted(self.byte_at_char, offsets, side="left")
        return self.u16_at_char[chars]


@dataclass(frozen=True)
class Cut:
    """How one tokenizer cuts one text."""

    ids: IntArray
    byte_starts: IntArray
    byte_ends: IntArray
    u16_starts: IntArray
    u16_ends: IntArray

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
            ends = np.cumsum(self._byte_lengths()[ids])
            starts = ends - self._byte_lengths()[ids]
        else:
            ids, spans = self._encode_with_offsets(layout.text)
            chars = np.clip(spans, 0, len(layout.text))
            starts = layout.byte_at_char[chars[:, 0]]
            ends = np.maximum(layout.byte_at_char[chars[:, 1]], starts)
        return Cut(ids, starts, ends, layout.u16_of_bytes(starts), layout.u16_of_bytes(ends))

    def _encode_with_offsets(self, text: str) -> tuple[IntArray, IntArray]:
        """Ids and ``(n, 2)`` character offsets from a pipeline tokenizer."""
        from tokensmith.sentencepiece_backend import SentencePieceTokenizer

        tok = self.tokenizer
        if isinstance(tok, SentencePieceTokenizer):
            # The model's own call: the HF-style result would also build word ids and
            # special-token masks in Python, which the page does not show (half the time).
            _, id_list, offsets = tok.processor._model.encode_offsets(text)
        else:
            assert isinstance(tok, Tokenizer)
            result = tok.encode(text, add_special_tokens=False)
            id_list, offsets = result.ids, result.offsets
        flat = np.fromiter((x for pair in offsets for x in pair), np.int64, 2 * len(offsets))
        return np.asarray(id_list, dtype=np.int64), flat.reshape(-1, 2)

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
