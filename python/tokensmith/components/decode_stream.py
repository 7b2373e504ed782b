"""``DecodeStream``: decode ids one at a time, as HF's ``decoders.DecodeStream`` does.

Each :meth:`DecodeStream.step` returns the text the new id completes, or None while the
text so far ends in an incomplete character (U+FFFD) or adds nothing. Only the ids since
the last complete text are decoded again, with the one id before them as context (so a
decoder that drops a leading space sees where the text continues).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["DecodeStream"]


class DecodeStream:
    """Streaming decoder state: ``ids`` already seen (as context), and whether special
    tokens are skipped.

    Raises:
        TokensmithError: (from :meth:`step`) the decoded text stopped starting with what
            was returned before, which a decoder that rewrites earlier text can do.
    """

    __slots__ = ("_ids", "_prefix", "_prefix_index", "_skip")

    def __init__(
        self, ids: Sequence[int] | None = None, skip_special_tokens: bool | None = False
    ) -> None:
        self._ids: list[int] = list(ids or [])
        self._prefix = ""
        self._prefix_index = 0
        self._skip = bool(skip_special_tokens)

    def step(self, tokenizer: Tokenizer, id: int | Sequence[int]) -> str | None:
        """Adds ``id`` (or several) and returns the new text, or None if there is none yet."""
        from tokensmith.errors import TokensmithError

        if self._prefix == "" and self._ids:
            text = tokenizer.decode(self._ids, self._skip)
            if not text.endswith("\ufffd"):
                self._prefix, self._prefix_index = text, len(self._ids)
        self._ids.extend([id] if isinstance(id, int) else id)
        text = tokenizer.decode(self._ids, self._skip)
        if len(text) <= len(self._prefix) or text.endswith("\ufffd"):
            return None
        if not text.startswith(self._prefix):
            raise TokensmithError(
                "DecodeStream: the decoded text no longer starts with what was returned"
            )
        new = text[len(self._prefix) :]
        kept = len(self._ids) - self._prefix_index
        self._ids = self._ids[self._prefix_index :]
        self._prefix = tokenizer.decode(self._ids, self._skip)
        self._prefix_index = kept
        return new
