"""``required_chars`` against sentencepiece's trainer: required characters come first in the
alphabet but, like every other character, are only added while the characters chosen so far
cover less than ``character_coverage`` of the text."""

from __future__ import annotations

import io

import sentencepiece as spm
import tokensmith
from sentencepiece import sentencepiece_model_pb2 as model_pb2

TEXT = ["the cat sat on the mat", "the dog sat on the log"] * 20
# Every character of the normalized TEXT (its letters and "▁", which spaces become), so the
# required characters alone cover all of it, then two that the text lacks: sentencepiece
# drops those, since coverage is reached before them.
REQUIRED = "".join(sorted(set("".join(TEXT)) - {" "})) + "\u2581QZ"


def alphabet(model_proto: bytes) -> set[str]:
    """The single-character NORMAL pieces of a model."""
    proto = model_pb2.ModelProto()
    proto.ParseFromString(model_proto)
    normal = model_pb2.ModelProto.SentencePiece.NORMAL
    return {p.piece for p in proto.pieces if p.type == normal and len(p.piece) == 1}


def alphabet_of_sentencepiece(required: str, coverage: float) -> set[str]:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT),
        model_writer=out,
        vocab_size=18,
        required_chars=required,
        character_coverage=coverage,
        minloglevel=2,
    )
    return alphabet(out.getvalue())


def alphabet_of_tokensmith(required: str, coverage: float) -> set[str]:
    sp = tokensmith.train_unigram(
        TEXT,
        vocab_size=18,
        required_chars=required,
        character_coverage=coverage,
        seed_sentencepiece_size=1000,
    )
    return alphabet(sp.serialized_model_proto())


def test_required_chars_past_the_coverage_are_dropped_as_sentencepiece_does() -> None:
    want = alphabet_of_sentencepiece(REQUIRED, 0.9995)
    assert "Q" not in want and "t" in want
    assert alphabet_of_tokensmith(REQUIRED, 0.9995) == want


def test_rare_required_chars_before_the_coverage_are_kept() -> None:
    # Only "Q" and "g" are required: "Q" (absent) comes first, and is kept.
    want = alphabet_of_sentencepiece("Qg", 0.98)
    assert "Q" in want
    assert alphabet_of_tokensmith("Qg", 0.98) == want
