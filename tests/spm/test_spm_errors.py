"""Bad input gives a clear typed error, never a crash: damaged ``.model`` bytes, bad ids,
unsupported calls; and the reader/writer round trip holds for any model hypothesis builds."""

from __future__ import annotations

import random

import pytest
import sentencepiece as spm
import tokensmith
from hypothesis import given, settings
from hypothesis import strategies as st
from spm_helpers import trained


def test_garbage_and_empty_are_model_format_errors():
    with pytest.raises(tokensmith.ModelFormatError, match="no pieces"):
        tokensmith.SentencePieceProcessor(model_proto=b"")
    with pytest.raises(tokensmith.ModelFormatError, match="truncated"):
        tokensmith.SentencePieceProcessor(model_proto=b"\x0a\xff\x01abc")


def test_random_bytes_never_crash():
    rng = random.Random(4)
    for _ in range(2000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        try:
            tokensmith.SentencePieceProcessor(model_proto=data)
        except tokensmith.TokensmithError:
            pass


def test_every_truncation_of_a_real_model_is_an_error_or_a_model():
    proto = trained("unigram_nmt_nfkc")
    rng = random.Random(8)
    for cut in sorted(rng.sample(range(len(proto)), 300)):
        try:
            sp = tokensmith.SentencePieceProcessor(model_proto=proto[:cut])
        except tokensmith.ModelFormatError as e:
            assert "byte offset" in str(e) or "piece" in str(e)
        else:
            # A cut between two fields is a valid, smaller model: it must write back as read.
            assert sp.serialized_model_proto() == proto[:cut]


def test_missing_file_is_input_not_found(tmp_path):
    with pytest.raises(tokensmith.InputNotFoundError):
        tokensmith.SentencePieceProcessor(model_file=tmp_path / "nope.model")


def test_a_processor_without_a_model_says_so():
    sp = tokensmith.SentencePieceProcessor()
    with pytest.raises(tokensmith.errors.ModelNotLoadedError, match="load"):
        sp.encode("x")
    with pytest.raises(TypeError):
        sp.load(model_file="a.model", model_proto=b"x")
    sp.load(model_proto=trained("bpe_nmt_nfkc"))
    assert sp.encode("x")


def test_bad_ids_are_index_errors_as_in_sentencepiece():
    proto = trained("unigram_nmt_nfkc")
    sp = tokensmith.SentencePieceProcessor(model_proto=proto)
    ref = spm.SentencePieceProcessor(model_proto=proto)
    calls = [
        lambda p, bad: p.decode([5, bad]),
        lambda p, bad: p.id_to_piece(bad),
        lambda p, bad: p.get_score(bad),
        lambda p, bad: p.is_unknown(bad),
        lambda p, bad: p.is_control([3, bad]),
        lambda p, bad: p.decode([5, bad], out_type="proto"),
    ]
    for bad in (-1, 2000, 2**31 - 1):
        for call in calls:
            with pytest.raises(IndexError):
                call(ref, bad)
            with pytest.raises(tokensmith.errors.PieceIdOutOfRangeError, match="0..2000"):
                call(sp, bad)
    # Also the KeyError of tokensmith's other faces.
    with pytest.raises(tokensmith.UnknownTokenIdError):
        sp.id_to_piece(10**12)


def test_bad_options_are_value_errors():
    sp = tokensmith.SentencePieceProcessor(model_proto=trained("unigram_nmt_nfkc"))
    with pytest.raises(ValueError, match="512"):
        sp.nbest_encode_as_ids("x", 513)
    with pytest.raises(ValueError, match="512"):
        sp.sample_encode_as_ids("x", nbest_size=600, alpha=0.1)
    with pytest.raises(ValueError, match="out_type"):
        sp.encode("x", out_type=float)
    with pytest.raises(ValueError, match="piece type"):
        tokensmith.SentencePieceProcessor.from_pieces([("<unk>", 0.0, "unk")])
    with pytest.raises(tokensmith.ModelFormatError, match="no unknown piece"):
        tokensmith.SentencePieceProcessor.from_pieces([("a", 0.0, "normal")])


PIECE_TYPES = ["normal", "control", "user_defined", "unused"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=5).filter(lambda s: "\x00" not in s),
            st.floats(min_value=-30, max_value=0, width=32),
            st.sampled_from(PIECE_TYPES),
        ),
        min_size=1,
        max_size=30,
        unique_by=lambda p: p[0],
    ),
    st.sampled_from(["unigram", "bpe"]),
    st.booleans(),
)
def test_write_read_round_trip(pieces, model_type, dummy_prefix):
    pieces = [("<unk>", 0.0, "unknown")] + [p for p in pieces if p[0] != "<unk>"]
    sp = tokensmith.SentencePieceProcessor.from_pieces(
        pieces, model_type=model_type, add_dummy_prefix=dummy_prefix
    )
    data = sp.serialized_model_proto()
    back = tokensmith.SentencePieceProcessor(model_proto=data)
    assert back.pieces() == pieces
    assert back.serialized_model_proto() == data
    for text in ["", "abc", pieces[-1][0] * 2]:
        assert back.encode(text) == sp.encode(text)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 8))
def test_bit_flips_in_a_real_model_never_crash(seed, flips):
    data = bytearray(trained("bpe_byte_fallback_identity"))
    rng = random.Random(seed)
    for _ in range(flips):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    try:
        sp = tokensmith.SentencePieceProcessor(model_proto=bytes(data))
    except tokensmith.TokensmithError:
        return
    sp.encode("Hello wörld 123", out_type=str)
    again = tokensmith.SentencePieceProcessor(model_proto=sp.serialized_model_proto())
    assert again.pieces() == sp.pieces()
