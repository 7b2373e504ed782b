"""The sentencepiece-compatible face: ``tokensmith.SentencePieceProcessor``.

A drop-in for ``sentencepiece.SentencePieceProcessor`` on the calls most code uses. It loads a
``.model`` file (Unigram or BPE) and gives the same ids and pieces, with no dependency on the
``sentencepiece`` package.

Usage::

    import tokensmith
    sp = tokensmith.SentencePieceProcessor(model_file="m.model")
    sp.encode("Hello world", out_type=str)      # e.g. ['▁Hello', '▁world']

Not handled yet: ``nbest``/``sample`` encodings, ``add_bos``/``add_eos`` options,
``word``/``char`` models (loading one raises :class:`tokensmith.UnsupportedFeatureError`), and
writing ``.model`` files.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import overload

from tokensmith._core import CoreSentencePiece


class SentencePieceProcessor:
    """A loaded SentencePiece model. Immutable and safe to share between threads."""

    __slots__ = ("_core",)

    def __init__(
        self,
        model_file: str | PathLike[str] | None = None,
        *,
        model_proto: bytes | None = None,
    ) -> None:
        if (model_file is None) == (model_proto is None):
            raise TypeError("give exactly one of model_file=... or model_proto=...")
        if model_proto is not None:
            self._core = CoreSentencePiece.from_bytes(model_proto)
        else:
            assert model_file is not None
            self._core = CoreSentencePiece.from_file(model_file)

    @classmethod
    def _from_core(cls, core: CoreSentencePiece) -> SentencePieceProcessor:
        """Wraps a model built by the core (``tokensmith.train_unigram``)."""
        self = cls.__new__(cls)
        self._core = core
        return self

    @overload
    def encode(self, input: str, out_type: type[int] = ...) -> list[int]: ...
    @overload
    def encode(self, input: str, out_type: type[str]) -> list[str]: ...
    @overload
    def encode(self, input: list[str], out_type: type[int] = ...) -> list[list[int]]: ...
    @overload
    def encode(self, input: list[str], out_type: type[str]) -> list[list[str]]: ...

    def encode(
        self, input: str | list[str], out_type: type[int] | type[str] = int
    ) -> list[int] | list[str] | list[list[int]] | list[list[str]]:
        """Encodes a text (or a list of texts) into ids (``out_type=int``) or pieces (``str``)."""
        if out_type is int:
            one = self._core.encode_ids
        elif out_type is str:
            one = self._core.encode_pieces  # type: ignore[assignment]
        else:
            raise ValueError(f"out_type must be int or str, not {out_type!r}")
        if isinstance(input, str):
            return one(input)
        return [one(text) for text in input]

    def EncodeAsIds(self, input: str) -> list[int]:  # noqa: N802 (sentencepiece's name)
        return self._core.encode_ids(input)

    def EncodeAsPieces(self, input: str) -> list[str]:  # noqa: N802
        return self._core.encode_pieces(input)

    def decode(self, input: Sequence[int] | Sequence[Sequence[int]]) -> str | list[str]:
        """Decodes ids (or a list of id lists) back to text."""
        if len(input) > 0 and not isinstance(input[0], int):
            return [self._core.decode(ids) for ids in input]  # type: ignore[arg-type]
        return self._core.decode(input)  # type: ignore[arg-type]

    def DecodeIds(self, input: Sequence[int]) -> str:  # noqa: N802
        return self._core.decode(input)

    def normalize(self, text: str) -> str:
        """The normalized text the model segments (spaces shown as ``▁``)."""
        return self._core.normalize(text)

    def piece_size(self) -> int:
        return self._core.piece_size()

    def get_piece_size(self) -> int:
        return self._core.piece_size()

    def __len__(self) -> int:
        return self._core.piece_size()

    def id_to_piece(self, id: int) -> str:
        return self._core.id_to_piece(id)

    def IdToPiece(self, id: int) -> str:  # noqa: N802
        return self._core.id_to_piece(id)

    def piece_to_id(self, piece: str) -> int:
        return self._core.piece_to_id(piece)

    def PieceToId(self, piece: str) -> int:  # noqa: N802
        return self._core.piece_to_id(piece)

    def get_score(self, id: int) -> float:
        return self._core.get_score(id)

    def is_unknown(self, id: int) -> bool:
        return self._core.piece_type(id) == "unknown"

    def is_control(self, id: int) -> bool:
        return self._core.piece_type(id) == "control"

    def is_unused(self, id: int) -> bool:
        return self._core.piece_type(id) == "unused"

    def is_byte(self, id: int) -> bool:
        return self._core.piece_type(id) == "byte"

    def unk_id(self) -> int:
        return self._core.special_ids()[0]

    def bos_id(self) -> int:
        return self._core.special_ids()[1]

    def eos_id(self) -> int:
        return self._core.special_ids()[2]

    def pad_id(self) -> int:
        return self._core.special_ids()[3]


__all__ = ["SentencePieceProcessor"]
