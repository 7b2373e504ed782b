"""The output types beyond ids and pieces, against sentencepiece on every committed line.

``out_type="serialized_proto"`` must give sentencepiece's very bytes, and the proto pieces
(``piece``, ``id``, ``surface``, ``begin``, ``end``) its values: for Unigram and BPE models,
with and without byte fallback, on encode, n-best and decode. ``bytes``, ``"numpy"``,
``"offset_mapping"``, ``normalize(with_offsets=True)`` and ``Parallel*`` likewise.
"""

from __future__ import annotations

import numpy as np
import pytest
import sentencepiece as spm
import tokensmith
from sentencepiece import sentencepiece_pb2
from spm_helpers import pair, trained

# Unigram and BPE, each with and without byte fallback, and the other normalizations.
PROTO_MODELS = [
    "unigram_nmt_nfkc",
    "unigram_byte_fallback",
    "unigram_identity",
    "unigram_user_defined",
    "unigram_ws_suffix",
    "bpe_nmt_nfkc",
    "bpe_byte_fallback_identity",
    "bpe_keep_spaces_dummy",
]


def fields(spt) -> list[tuple]:
    return [(p.piece, p.id, p.surface, p.begin, p.end) for p in spt.pieces]


@pytest.mark.parametrize("name", PROTO_MODELS)
def test_proto_pieces_and_offsets_equal_sentencepiece(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    multibyte_offsets = 0
    for line in lines:
        want = ref.encode(line, out_type="proto")
        got = ours.encode(line, out_type="proto")
        assert got.text == want.text == line
        assert fields(got) == fields(want), line
        assert ours.encode(line, out_type="serialized_proto") == want.SerializeToString(), line
        assert ours.encode_as_proto(line) == got
        multibyte_offsets += any(p.end - p.begin > len(p.surface) for p in want.pieces)
    assert multibyte_offsets > 500  # offsets in bytes, not characters, were compared


@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "bpe_byte_fallback_identity"])
def test_serialized_proto_parses_in_sentencepiece_protobuf(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    for line in lines[::7]:
        parsed = sentencepiece_pb2.SentencePieceText()
        parsed.ParseFromString(ours.encode(line, out_type="serialized_proto"))
        assert parsed == ref.encode(line, out_type="proto")
        assert fields(parsed) == fields(ours.encode(line, out_type="immutable_proto"))


@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "unigram_byte_fallback"])
def test_nbest_proto_equals_sentencepiece(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    for line in lines[::5]:
        want = ref.nbest_encode(line, nbest_size=3, out_type="serialized_proto")
        assert ours.nbest_encode(line, nbest_size=3, out_type="serialized_proto") == want, line
        got = ours.nbest_encode_as_proto(line, nbest_size=3)
        parsed = sentencepiece_pb2.NBestSentencePieceText()
        parsed.ParseFromString(want)
        assert [fields(n) for n in got.nbests] == [fields(n) for n in parsed.nbests]
        assert [n.score for n in got.nbests] == [n.score for n in parsed.nbests]
        got_np = ours.nbest_encode_as_numpy(line, nbest_size=3)
        want_np = ref.nbest_encode_as_numpy(line, nbest_size=3)
        assert [a.tolist() for a in got_np] == [a.tolist() for a in want_np]
        assert all(a.dtype == np.int32 for a in got_np)
        got_b = ours.nbest_encode(line, nbest_size=2, out_type=bytes, add_bos=True)
        assert got_b == ref.nbest_encode(line, nbest_size=2, out_type=bytes, add_bos=True)


@pytest.mark.parametrize("name", PROTO_MODELS)
def test_plain_outputs_equal_sentencepiece(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    for kwargs in ({}, {"add_bos": True, "emit_unk_piece": True}, {"reverse": True}):
        assert ours.encode(lines, out_type=bytes, **kwargs) == ref.encode(
            lines, out_type=bytes, **kwargs
        )
        got = ours.encode(lines, out_type="numpy", **kwargs)
        want = ref.encode(lines, out_type="numpy", **kwargs)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]
        assert {a.dtype for a in got} == {np.dtype(np.int32)}
    for return_bytes in (None, True, False):
        got = ours.encode(lines, out_type="offset_mapping", return_bytes=return_bytes)
        assert got == ref.encode(lines, out_type="offset_mapping", return_bytes=return_bytes)
    raw = [line.encode("utf-8") for line in lines]
    assert ours.encode(raw, out_type="offset_mapping") == ref.encode(raw, out_type="offset_mapping")
    assert ours.encode(raw, out_type=str) == ref.encode(raw, out_type=str)
    assert ours.encode_as_offset_mapping(lines[5]) == ref.encode_as_offset_mapping(lines[5])
    assert ours.encode_as_numpy(lines[5]).tolist() == ref.encode_as_numpy(lines[5]).tolist()


@pytest.mark.parametrize("name", PROTO_MODELS)
def test_decode_outputs_equal_sentencepiece(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    # Every line's ids and pieces at once (batches), then proto fields on a sample.
    ids = ref.encode(lines)
    pieces = ref.encode(lines, out_type=str)
    for source in (ids, pieces):
        for out_type in (str, bytes, "serialized_proto", "offset_mapping"):
            assert ours.decode(source, out_type=out_type) == ref.decode(
                source, out_type=out_type
            ), out_type
    for one in ids[::25]:
        assert fields(ours.decode_ids_as_proto(one)) == fields(ref.decode_ids_as_proto(one))
    raw = [[p.encode("utf-8") for p in line] for line in pieces]
    assert ours.decode(raw) == ref.decode(raw)
    batch = [ref.encode(line) for line in lines[:50]]
    assert ours.decode(batch, out_type=bytes) == ref.decode(batch, out_type=bytes)
    assert ours.decode(np.array(batch[3])) == ref.decode(np.array(batch[3]))
    got = ours.decode_pieces_as_proto([ref.encode(line, out_type=str) for line in lines[:50]])
    want = ref.decode_pieces_as_proto([ref.encode(line, out_type=str) for line in lines[:50]])
    assert [fields(g) for g in got] == [fields(w) for w in want]


def test_decode_proto_of_bytes_controls_and_unknowns() -> None:
    # Invalid byte runs (one U+FFFD each), control pieces, the unknown id, an unknown piece.
    ours, ref = pair("bpe_byte_fallback_identity")
    ids = ref.encode("a𠀋bé 🤖x")
    cases = [ids, ids[:2] + ids[3:], [1, 2, 5, 1], [0, 7, 0], ids[::-1], []]
    for case in cases:
        want = ref.decode(case, out_type="serialized_proto")
        assert ours.decode(case, out_type="serialized_proto") == want, case
        assert ours.decode(case, out_type=bytes) == ref.decode(case, out_type=bytes)
    assert ours.decode(["▁a", "ナ", "<s>"], out_type="serialized_proto") == ref.decode(
        ["▁a", "ナ", "<s>"], out_type="serialized_proto"
    )


@pytest.mark.parametrize("name", PROTO_MODELS)
def test_normalize_with_offsets_equals_sentencepiece(name: str, lines: list[str]) -> None:
    ours, ref = pair(name)
    for line in lines:
        assert ours.normalize(line, with_offsets=True) == ref.normalize(line, with_offsets=True)
        raw = line.encode("utf-8")
        assert ours.normalize(raw, with_offsets=True) == ref.normalize(raw, with_offsets=True)
    assert ours.normalize(lines[:20]) == ref.normalize(lines[:20])
    raw_lines = [line.encode("utf-8") for line in lines[:20]]
    assert ours.normalize(raw_lines) == ref.normalize(raw_lines)


@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "bpe_byte_fallback_identity"])
def test_parallel_encode_equals_sentencepiece(name: str, lines: list[str]) -> None:
    # sentencepiece's ParallelEncode cuts a text into chunks and encodes them apart; at a cut
    # its pieces can differ from Encode's (on the committed lines: one line of 5,000, with
    # chunk_len=16, "▁install|a" became "▁|inst|al|la"). tokensmith's ParallelEncode gives
    # Encode's pieces always: equal to sentencepiece's wherever its chunks did not change them.
    ours, ref = pair(name)
    document = " ".join(lines[:300])
    for chunk_len in (1, 7, 100):
        for out_type in (int, str, bytes):
            assert ours.parallel_encode(
                document, chunk_len=chunk_len, out_type=out_type
            ) == ref.parallel_encode(document, chunk_len=chunk_len, out_type=out_type)
    got = ours.ParallelEncodeAsIds(lines, chunk_len=16, num_threads=2)
    assert got == ref.encode(lines)
    want = ref.ParallelEncodeAsIds(lines, chunk_len=16, num_threads=2)
    differ = sum(g != w for g, w in zip(got, want, strict=True))
    assert differ <= 2
    assert ours.parallel_encode_as_pieces(lines[:40], chunk_len=3, add_bos=True) == (
        ref.parallel_encode_as_pieces(lines[:40], chunk_len=3, add_bos=True)
    )
    got_proto = ours.parallel_encode_as_proto(lines[:40], chunk_len=5)
    want_proto = ref.parallel_encode_as_proto(lines[:40], chunk_len=5)
    assert [fields(g) for g in got_proto] == [fields(w) for w in want_proto]
    got_np = ours.parallel_encode_as_numpy(lines[7], chunk_len=5)
    assert got_np.tolist() == ref.parallel_encode_as_numpy(lines[7], chunk_len=5).tolist()


@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "bpe_byte_fallback_identity"])
def test_sampled_proto_is_the_sampled_segmentation(name: str, lines: list[str]) -> None:
    # The draws are tokensmith's own (see test_spm_sampling.py for their distribution); the
    # proto of a draw must hold that draw with the offsets its pieces have in the text.
    ours, _ = pair(name)
    for line in lines[:200]:
        tokensmith.sentencepiece.set_random_generator_seed(7)
        ids = ours.sample_encode_as_ids(line, nbest_size=-1, alpha=0.5)
        tokensmith.sentencepiece.set_random_generator_seed(7)
        spt = ours.sample_encode_as_proto(line, nbest_size=-1, alpha=0.5)
        assert [p.id for p in spt.pieces] == ids
        raw = line.encode("utf-8")
        assert all(raw[p.begin : p.end].decode() == p.surface for p in spt.pieces)
        # The pieces tile the text: each starts where the one before ended (or at its start,
        # for the empty byte pieces of one character).
        for before, after in zip(spt.pieces, spt.pieces[1:], strict=False):
            assert after.begin in (before.end, before.begin)
        tokensmith.sentencepiece.set_random_generator_seed(7)
        arr = ours.sample_encode_as_numpy(line, nbest_size=-1, alpha=0.5)
        assert arr.tolist() == ids


def test_bad_options_raise_sentencepiece_types() -> None:
    ours, ref = pair("bpe_nmt_nfkc")
    uni, uni_ref = pair("unigram_nmt_nfkc")
    cases = [
        (ValueError, lambda p, q: p.encode("x", out_type=float)),
        (ValueError, lambda p, q: p.encode("x", out_type="numpy", return_bytes=True)),
        (ValueError, lambda p, q: p.decode([5], out_type=int)),
        (ValueError, lambda p, q: p.parallel_encode("x")),
        (ValueError, lambda p, q: p.parallel_encode("x", chunk_len=0)),
        (ValueError, lambda p, q: p.encode("x", enable_sampling=True, nbest_size=1)),
        (TypeError, lambda p, q: p.encode(["x"], num_threads="2")),
        (RuntimeError, lambda p, q: p.encode("x", out_type="proto", add_bos=True)),
        (RuntimeError, lambda p, q: p.encode("x", out_type="offset_mapping", reverse=True)),
        (RuntimeError, lambda p, q: p.nbest_encode("x", nbest_size=3)),
        (RuntimeError, lambda p, q: q.nbest_encode("x", nbest_size=1000)),
        (RuntimeError, lambda p, q: q.nbest_encode_as_proto("x", nbest_size=600)),
    ]
    for kind, call in cases:
        with pytest.raises(kind):
            call(ref, uni_ref)
        with pytest.raises(kind) as caught:
            call(ours, uni)
        assert isinstance(caught.value, tokensmith.TokensmithError | TypeError | ValueError)


def test_immutable_proto_is_kept_from_sentencepiece_0_2_0() -> None:
    # sentencepiece 0.2.3 refuses the name; 0.2.0 returned this object. tokensmith keeps it.
    ours, ref = pair("unigram_nmt_nfkc")
    with pytest.raises(ValueError):
        ref.encode("x", out_type="immutable_proto")
    assert ours.encode("a b", out_type="immutable_proto") == ours.encode("a b", out_type="proto")
    default = tokensmith.SentencePieceProcessor(
        model_proto=trained("unigram_nmt_nfkc"), out_type="serialized_proto"
    )
    ref_default = spm.SentencePieceProcessor(
        model_proto=trained("unigram_nmt_nfkc"), out_type="serialized_proto"
    )
    assert default.encode("a b") == ref_default.encode("a b")
    assert default.tokenize("a b") == ref_default.tokenize("a b")
    assert ours.detokenize([5, 6]) == ref.detokenize([5, 6])
