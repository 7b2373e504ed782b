"""``.model`` files written by tokensmith load in ``sentencepiece`` and behave identically."""

from __future__ import annotations

import math
import random

import pytest
import sentencepiece as spm
import tokensmith
from sentencepiece.sentencepiece_model_pb2 import ModelProto
from spm_helpers import CONFIGS, trained


def same_behaviour(ours_saved: bytes, ref: spm.SentencePieceProcessor, lines: list[str]) -> list:
    """Lines where sentencepiece running our file differs from ``ref``."""
    loaded = spm.SentencePieceProcessor(model_proto=ours_saved)
    bad = []
    for line in lines:
        ids = ref.encode(line)
        got = (loaded.encode(line), loaded.encode(line, out_type=str), loaded.decode(ids))
        want = (ids, ref.encode(line, out_type=str), ref.decode(ids))
        if got != want:
            bad.append((line, got, want))
    return bad


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_load_save_is_byte_identical_and_sentencepiece_agrees(name, lines, tmp_path):
    proto = trained(name)
    ours = tokensmith.SentencePieceProcessor(model_proto=proto)
    path = tmp_path / "saved.model"
    ours.save(path)
    assert path.read_bytes() == proto
    assert ours.serialized_model_proto() == proto
    ref = spm.SentencePieceProcessor(model_proto=proto)
    assert same_behaviour(path.read_bytes(), ref, lines) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saved.model"]


@pytest.mark.parametrize("name", ["unigram_nmt_nfkc", "unigram_byte_fallback", "bpe_nmt_nfkc"])
def test_changed_scores_are_saved_and_sentencepiece_follows_them(name, lines):
    """Scores shuffled among the normal pieces: a different model, written by tokensmith."""
    ours = tokensmith.SentencePieceProcessor(model_proto=trained(name))
    pieces = ours.pieces()
    normal = [i for i, (_, _, kind) in enumerate(pieces) if kind == "normal"]
    scores = [pieces[i][1] for i in normal]
    random.Random(5).shuffle(scores)
    new_pieces = list(pieces)
    for i, score in zip(normal, scores, strict=True):
        new_pieces[i] = (pieces[i][0], score, "normal")
    edited = ours.with_pieces(new_pieces)
    saved = edited.serialized_model_proto()
    loaded = spm.SentencePieceProcessor(model_proto=saved)
    assert [loaded.get_score(i) for i in range(len(pieces))] == [s for _, s, _ in new_pieces]
    changed = 0
    for line in lines:
        assert edited.encode(line) == loaded.encode(line), line
        assert edited.encode(line, out_type=str) == loaded.encode(line, out_type=str), line
        changed += edited.encode(line) != ours.encode(line)
    # The edit must matter, or this test would prove nothing.
    assert changed > len(lines) // 4
    # The specs, with every option tokensmith's reader does not parse, are carried over.
    before, after = ModelProto(), ModelProto()
    before.ParseFromString(trained(name))
    after.ParseFromString(saved)
    assert after.trainer_spec == before.trainer_spec
    assert after.normalizer_spec == before.normalizer_spec
    assert after.denormalizer_spec == before.denormalizer_spec
    assert [p.piece for p in after.pieces] == [p.piece for p in before.pieces]
    assert tokensmith.SentencePieceProcessor(model_proto=saved).pieces() == new_pieces


EXERCISE_2 = [
    ("<unk>", 0.0, "unknown"),
    ("ab", math.log(0.4), "normal"),
    ("a", math.log(0.3), "normal"),
    ("b", math.log(0.2), "normal"),
    ("c", math.log(0.1), "normal"),
]


def test_a_model_built_in_memory_loads_in_sentencepiece(tmp_path):
    ours = tokensmith.SentencePieceProcessor.from_pieces(EXERCISE_2, add_dummy_prefix=False)
    ours.save(tmp_path / "ex2.model")
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "ex2.model"))
    assert ref.encode("abc", out_type=str) == ours.encode("abc", out_type=str) == ["ab", "c"]
    assert ref.nbest_encode_as_pieces("abc", 5) == ours.nbest_encode_as_pieces("abc", 5)
    assert ref.nbest_encode_as_pieces("abc", 5) == [["ab", "c"], ["a", "b", "c"]]
    for text in ["abcab", "cab ba", "xyz abc", "  a  b  "]:
        assert ref.encode(text) == ours.encode(text)
        assert ref.decode(ref.encode(text)) == ours.decode(ours.encode(text))


def test_a_bpe_model_built_in_memory_loads_in_sentencepiece():
    pieces = [("<unk>", 0.0, "unknown"), ("<s>", 0.0, "control"), ("</s>", 0.0, "control")]
    pieces += [(p, -float(i), "normal") for i, p in enumerate(["▁a", "ab", "▁ab", "▁", "a", "b"])]
    ours = tokensmith.SentencePieceProcessor.from_pieces(pieces, model_type="bpe")
    ref = spm.SentencePieceProcessor(model_proto=ours.serialized_model_proto())
    for text in ["ab", "abab ab", "a b ba", "zzz"]:
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str)
        assert ours.encode(text) == ref.encode(text)
    assert (ours.bos_id(), ours.eos_id()) == (ref.bos_id(), ref.eos_id()) == (1, 2)


@pytest.mark.parametrize(
    "pieces",
    [
        [("éé", 0.2, "normal"), ("é", 0.1, "normal"), ("ééé", 0.0, "user_defined"),
         ("xx", 0.2, "normal"), ("x", 0.1, "normal"), ("xxx", 0.0, "user_defined")],
        [("a", -0.01, "normal"), ("b", -0.01, "normal"), ("ab", 0.0, "user_defined"),
         ("c", -0.01, "normal"), ("abc", 0.0, "user_defined"), ("d", -0.01, "normal")],
    ],
)
def test_user_defined_piece_scores_follow_sentencepiece(pieces):
    """Viterbi scores a user-defined piece by its bytes, the n-best lattice by its characters;
    near ties show which rule runs."""
    ours = tokensmith.SentencePieceProcessor.from_pieces(
        [("<unk>", 0.0, "unknown"), *pieces], add_dummy_prefix=False
    )
    ref = spm.SentencePieceProcessor(model_proto=ours.serialized_model_proto())
    for text in ["ééé", "xxx", "ab", "abc", "abcd", "dab", "xxxéééx"]:
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        want = ref.nbest_encode(text, nbest_size=4, return_type="proto").nbests
        got = ours.nbest_with_scores(text, 4)
        assert [(p, s) for p, s in got] == [([x.piece for x in n.pieces], n.score) for n in want]
