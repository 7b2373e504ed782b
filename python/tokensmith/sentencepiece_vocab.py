"""The vocabulary queries of :class:`~tokensmith.SentencePieceProcessor`: sizes, piece <-> id,
scores, piece types and the special ids, each taking one id (piece) or a list of them, as
sentencepiece's do. A bad id raises :class:`~tokensmith.errors.PieceIdOutOfRangeError` (an
``IndexError``, as in sentencepiece); an unknown piece maps to the unknown id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokensmith._core import CoreSentencePiece


class VocabularyQueries:
    """The vocabulary methods of :class:`~tokensmith.SentencePieceProcessor`."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def _model(self) -> CoreSentencePiece: ...

    def GetPieceSize(self) -> int:  # noqa: N802
        return self._model.piece_size()

    def piece_size(self) -> int:
        return self._model.piece_size()

    def vocab_size(self) -> int:
        return self._model.piece_size()

    def __len__(self) -> int:
        return self._model.piece_size()

    def __getitem__(self, piece: str) -> int:
        return self._model.piece_to_id(piece)

    def IdToPiece(self, id: int | list[int]) -> Any:  # noqa: N802
        if isinstance(id, list):
            return [self._model.id_to_piece(i) for i in id]
        return self._model.id_to_piece(id)

    def PieceToId(self, piece: str | list[str]) -> Any:  # noqa: N802
        if isinstance(piece, list):
            return [self._model.piece_to_id(p) for p in piece]
        return self._model.piece_to_id(piece)

    def GetScore(self, id: int | list[int]) -> Any:  # noqa: N802
        if isinstance(id, list):
            return [self._model.get_score(i) for i in id]
        return self._model.get_score(id)

    def _is(self, id: int | list[int], kind: str) -> Any:
        if isinstance(id, list):
            return [self._model.piece_type(i) == kind for i in id]
        return self._model.piece_type(id) == kind

    def IsUnknown(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "unknown")

    def IsControl(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "control")

    def IsUnused(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "unused")

    def IsByte(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "byte")

    def unk_id(self) -> int:
        return self._model.special_ids()[0]

    def bos_id(self) -> int:
        return self._model.special_ids()[1]

    def eos_id(self) -> int:
        return self._model.special_ids()[2]

    def pad_id(self) -> int:
        return self._model.special_ids()[3]

    get_piece_size = GetPieceSize
    id_to_piece = IdToPiece
    piece_to_id = PieceToId
    get_score = GetScore
    is_unknown = IsUnknown
    is_control = IsControl
    is_unused = IsUnused
    is_byte = IsByte


__all__ = ["VocabularyQueries"]
