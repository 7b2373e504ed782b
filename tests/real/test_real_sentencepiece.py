"""Published sentencepiece ``.model`` files: tokensmith against ``sentencepiece``."""

from __future__ import annotations

import pytest
import sentencepiece
import tokensmith
from conftest import of_kind, real_path


@pytest.fixture(scope="module", params=of_kind("sentencepiece"))
def both(request: pytest.FixtureRequest) -> tuple[object, tokensmith.SentencePieceProcessor]:
    path = str(real_path(request.param))
    return (
        sentencepiece.SentencePieceProcessor(model_file=path),
        tokensmith.SentencePieceProcessor(model_file=path),
    )


def test_ids_pieces_and_decode_equal_sentencepiece(both: tuple, texts: list[str]) -> None:
    ref, ours = both
    assert ours.get_piece_size() == ref.get_piece_size()
    for text in texts:
        ids = ref.encode(text)
        assert ours.encode(text) == ids, text
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        assert ours.decode(ids) == ref.decode(ids), text


def test_vocabulary_and_control_pieces_equal_sentencepiece(both: tuple) -> None:
    ref, ours = both
    for i in range(ref.get_piece_size()):
        assert ours.id_to_piece(i) == ref.id_to_piece(i)
        assert ours.get_score(i) == ref.get_score(i)
        assert (ours.is_control(i), ours.is_unknown(i), ours.is_byte(i)) == (
            ref.is_control(i),
            ref.is_unknown(i),
            ref.is_byte(i),
        ), i
    assert (ours.bos_id(), ours.eos_id(), ours.unk_id(), ours.pad_id()) == (
        ref.bos_id(),
        ref.eos_id(),
        ref.unk_id(),
        ref.pad_id(),
    )
