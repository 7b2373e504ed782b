"""sentencepiece's post-encoding options, applied to one segmentation: ``reverse``, then
``add_bos``/``add_eos``, then ``emit_unk_piece`` (unknown pieces shown as the unknown piece).

>>> class Sp:  # the three queries it needs from a processor
...     def bos_id(self): return 1
...     def id_to_piece(self, id): return "<s>"
>>> Rewrite(Sp(), add_bos=True, add_eos=False, reverse=True, emit_unk_piece=False).apply(
...     ["▁a", "b"], [5, 6], as_ids=True)
[1, 6, 5]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokensmith.sentencepiece import SentencePieceProcessor


class Rewrite:
    """The post-encoding options of one call."""

    __slots__ = ("sp", "add_bos", "add_eos", "reverse", "emit_unk_piece")

    def __init__(
        self,
        sp: SentencePieceProcessor,
        add_bos: bool,
        add_eos: bool,
        reverse: bool,
        emit_unk_piece: bool,
    ) -> None:
        self.sp = sp
        self.add_bos = add_bos
        self.add_eos = add_eos
        self.reverse = reverse
        self.emit_unk_piece = emit_unk_piece

    @property
    def is_noop(self) -> bool:
        return not (self.add_bos or self.add_eos or self.reverse or self.emit_unk_piece)

    def apply(self, pieces: list[str], ids: list[int], as_ids: bool) -> list[int] | list[str]:
        if self.reverse:
            pieces, ids = pieces[::-1], ids[::-1]
        if as_ids:
            out_ids = list(ids)
            if self.add_bos:
                out_ids.insert(0, self.sp.bos_id())
            if self.add_eos:
                out_ids.append(self.sp.eos_id())
            return out_ids
        out = list(pieces)
        if self.add_bos:
            out.insert(0, self.sp.id_to_piece(self.sp.bos_id()))
        if self.add_eos:
            out.append(self.sp.id_to_piece(self.sp.eos_id()))
        if self.emit_unk_piece:
            unk = self.sp.unk_id()
            unk_piece = self.sp.id_to_piece(unk)
            out = [unk_piece if self.sp.piece_to_id(p) == unk else p for p in out]
        return out


__all__ = ["Rewrite"]
