"""A SentencePiece ``.model`` behind the Hugging Face-style :class:`tokensmith.Tokenizer`.

``tokensmith.load("x.model")`` returns a :class:`SentencePieceTokenizer`, a
:class:`~tokensmith.Tokenizer` like every other format gives: ``encode(text)`` returns an
:class:`~tokensmith.EncodingResult` with ``.ids`` and ``.tokens``. It adds the SentencePiece
calls: ``nbest``, ``sample``, ``id_to_piece``, ``piece_to_id``, ``get_score`` and ``save``.

>>> import tokensmith
>>> sp = tokensmith.SentencePieceProcessor.from_pieces(
...     [("<unk>", 0.0, "unknown"), ("▁ab", -1.0, "normal"), ("▁", -2.0, "normal"),
...      ("a", -2.0, "normal"), ("b", -2.0, "normal")])
>>> tok = SentencePieceTokenizer(sp)
>>> enc = tok.encode("ab a")
>>> enc.tokens, enc.ids, enc.word_ids
(['▁ab', '▁', 'a'], [1, 2, 3], [0, 1, 1])
>>> tok.decode(enc.ids)
'ab a'

How the HF fields are filled: ``type_ids`` are 0 (1 for ``pair``), ``special_tokens_mask``
marks control pieces, and a word starts at each piece that begins with ``▁`` (ends with it,
for models with ``treat_whitespace_as_suffix``). ``add_special_tokens`` adds nothing:
a ``.model`` has no post-processor (sentencepiece adds ``<s>``/``</s>`` only when asked, see
:meth:`SentencePieceProcessor.encode`). ``offsets`` are ``(begin, end)`` in characters of the
text each token came from, the spans sentencepiece's ``encode(..., out_type="proto")`` gives
(there in bytes): through normalization, so ``▁ab`` from ``" ab"`` starts at ``a``, a merged
run of unknown characters spans the run, and with byte fallback all byte pieces of a
character but the last are empty.

>>> enc.offsets
[(0, 2), (2, 3), (3, 4)]
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from typing import Any

from tokensmith._core import EncodingResult
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.sentencepiece import SentencePieceProcessor

_SPACE = "\u2581"


class _SentencePieceCore:
    """Gives a :class:`SentencePieceProcessor` the calls :class:`Tokenizer` makes on its core."""

    __slots__ = ("sp", "_suffix")

    def __init__(self, sp: SentencePieceProcessor) -> None:
        self.sp = sp
        self._suffix = sp.normalize(" a").endswith(_SPACE) and not sp.normalize(" a").startswith(
            _SPACE
        )

    def _word_ids(self, tokens: list[str], first: int) -> list[int | None]:
        out: list[int | None] = []
        word = first - 1
        starts_word = True
        for token in tokens:
            if self._suffix:
                if starts_word:
                    word += 1
                starts_word = token.endswith(_SPACE)
            elif token.startswith(_SPACE) or not out:
                word += 1
            out.append(word)
        return out

    def encode(
        self, text: str, pair: str | None, add_special_tokens: bool, blank: bool = False
    ) -> EncodingResult:
        """One input's result; with ``blank``, as HF's ``encode_batch_fast`` leaves a
        sequence without a post-processor: its ids and sequences, with empty tokens, offsets
        ``(0, 0)``, no word, type id 0 and no special token."""
        del add_special_tokens  # a .model has no post-processor
        model = self.sp._model
        tokens, ids, offsets = model.encode_offsets(text)
        type_ids = [0] * len(ids)
        word_ids = self._word_ids(tokens, 0)
        # As HF records a pair without a post-processor: each sequence's tokens.
        ranges: list[tuple[int, tuple[int, int]]] = []
        if pair is not None:
            n = len(ids)
            pair_tokens, pair_ids, pair_offsets = model.encode_offsets(pair)
            tokens += pair_tokens
            ids += pair_ids
            offsets += pair_offsets
            type_ids += [1] * len(pair_ids)
            word_ids += self._word_ids(pair_tokens, 0)
            ranges = [(0, (0, n)), (1, (n, len(ids)))]
        control = [model.piece_type(i) == "control" for i in ids]
        special = [int(c) for c in control]
        word_ids = [None if c else w for c, w in zip(control, word_ids, strict=True)]
        attention = [1] * len(ids)
        if blank:
            n = len(ids)
            return EncodingResult(
                ids, [""] * n, [(0, 0)] * n, [0] * n, attention, [0] * n, [None] * n, None, ranges
            )
        return EncodingResult(
            ids, tokens, offsets, type_ids, attention, special, word_ids, None, ranges
        )

    def encode_batch(
        self,
        inputs: list[tuple[str, str | None]],
        add_special_tokens: bool,
        threads: int,
        blank: bool = False,
    ) -> list[EncodingResult]:
        """Each input's result; with ``blank``, as HF's ``encode_batch_fast`` leaves it
        (only the ids and sequences kept)."""
        del threads  # one at a time: the pieces' types and word ids are found in Python
        return [self.encode(text, pair, add_special_tokens, blank) for text, pair in inputs]

    def post_process(
        self, encoding: EncodingResult, pair: EncodingResult | None, add_special_tokens: bool
    ) -> EncodingResult:
        """HF's ``post_process`` without truncation, padding or post-processor: one result is
        returned as it is (a copy), a pair joined with each marked as its sequence."""
        del add_special_tokens  # a .model has no post-processor
        if pair is None:
            return copy.copy(encoding)
        first, second = copy.copy(encoding), copy.copy(pair)
        first.set_sequence_id(0)
        second.set_sequence_id(1)
        return EncodingResult.merge([first, second], growing_offsets=False)

    def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        del skip_special_tokens  # control pieces never show in sentencepiece's decode
        return self.sp._model.decode(ids)

    def decode_batch(
        self, sequences: list[list[int]], skip_special_tokens: bool, threads: int
    ) -> list[str]:
        del threads
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    def token_to_id(self, token: str) -> int | None:
        return self.sp._model.piece_id(token)

    def id_to_token(self, id: int) -> str | None:
        if 0 <= id < self.sp.piece_size():
            return self.sp._model.id_to_piece(id)
        return None

    def get_vocab(self) -> dict[str, int]:
        return {piece: i for i, (piece, _, _) in enumerate(self.sp.pieces())}


class SentencePieceTokenizer(Tokenizer):
    """A :class:`~tokensmith.Tokenizer` that runs a SentencePiece ``.model``."""

    __slots__ = ("processor",)

    def __init__(self, processor: SentencePieceProcessor) -> None:
        super().__init__(_SentencePieceCore(processor))  # type: ignore[arg-type]
        self.processor = processor

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickles the processor (its model bytes and options), as
        :class:`~tokensmith.SentencePieceProcessor` pickles."""
        return (type(self), (self.processor,))

    def __copy__(self) -> SentencePieceTokenizer:
        return type(self)(copy.copy(self.processor))

    def __deepcopy__(self, memo: dict[int, Any]) -> SentencePieceTokenizer:
        return type(self)(copy.deepcopy(self.processor, memo))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> SentencePieceTokenizer:
        """Loads a ``.model`` file."""
        return cls(SentencePieceProcessor(model_file=path))

    @classmethod
    def from_bytes(cls, data: bytes) -> SentencePieceTokenizer:
        """Loads the bytes of a ``.model`` file."""
        return cls(SentencePieceProcessor(model_proto=data))

    def nbest(self, text: str, n: int) -> list[tuple[list[str], list[int], float]]:
        """The ``n`` best segmentations (Unigram models) as ``(tokens, ids, score)``."""
        return self.processor._model.nbest(text, n)

    def sample(self, text: str, alpha: float = 0.1, nbest_size: int = -1) -> list[int]:
        """The ids of one sampled segmentation (subword regularization, or BPE dropout)."""
        ids: list[int] = self.processor.encode(
            text, enable_sampling=True, alpha=alpha, nbest_size=nbest_size
        )
        return ids

    def id_to_piece(self, id: int | list[int]) -> Any:
        return self.processor.id_to_piece(id)

    def piece_to_id(self, piece: str | list[str]) -> Any:
        """The id of ``piece`` (the unknown id when the vocabulary lacks it, as sentencepiece)."""
        return self.processor.piece_to_id(piece)

    def get_score(self, id: int | list[int]) -> Any:
        return self.processor.get_score(id)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the ``.model`` file atomically; ``sentencepiece`` loads it."""
        self.processor.save(path)

    def decode_pieces(self, pieces: Sequence[str]) -> str:
        return self.processor._model.decode_pieces(list(pieces))

    def to_str(self) -> str:
        """The ``tokenizer.json`` text that gives this model's ids in HF tokenizers (see
        :mod:`tokensmith.conversion.spm_json`).

        Raises:
            InexpressibleComponentError: the model uses an option tokenizer.json lacks.
        """
        from tokensmith.conversion.spm_json import model_to_json

        return model_to_json(self.processor)

    def to_transformers(self) -> Any:
        """A ``transformers.PreTrainedTokenizerFast`` that gives sentencepiece's ids, built
        from :meth:`to_str`. Control pieces (``<s>``, ``</s>``) keep their ids but are not
        declared as special tokens, which transformers would match in text where
        sentencepiece does not.
        """
        return Tokenizer.from_str(self.to_str()).to_transformers()


__all__ = ["SentencePieceTokenizer"]
