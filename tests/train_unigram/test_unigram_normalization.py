"""The normalization rules tokensmith's Unigram trainer builds, against sentencepiece's own.

For each of nmt_nfkc, nfkc, nmt_nfkc_cf and nfkc_cf, sentencepiece trains a small model in the
test (its charsmap is the one built into the library) and tokensmith trains one with the same
rule. The two charsmaps must be byte-identical (the same rules, the same replacement strings
and the same darts-clone double array), and must normalize every line of the committed
multilingual text, and random text, the same way through sentencepiece's own normalizer. Then
a tokensmith nmt_nfkc model, saved, must give sentencepiece the same ids as tokensmith on
every line.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from hypothesis import given, settings
from hypothesis import strategies as st
from sentencepiece import sentencepiece_model_pb2 as model_pb2

DATA = Path(__file__).parent.parent / "data"
RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
SEED_TEXT = ["the cat sat on the mat", "the dog sat on the log"] * 20


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()


def charsmap(model_proto: bytes) -> bytes:
    proto = model_pb2.ModelProto()
    proto.ParseFromString(model_proto)
    return bytes(proto.normalizer_spec.precompiled_charsmap)


def spm_model(rule: str) -> bytes:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(SEED_TEXT),
        model_writer=out,
        vocab_size=18,
        normalization_rule_name=rule,
        minloglevel=2,
    )
    return out.getvalue()


def tokensmith_model(rule: str) -> bytes:
    sp = tokensmith.train_unigram(
        SEED_TEXT, vocab_size=18, normalization_rule_name=rule, seed_sentencepiece_size=1000
    )
    return sp.serialized_model_proto()


@pytest.fixture(scope="module", params=RULES)
def models(request: pytest.FixtureRequest) -> tuple[str, bytes, bytes]:
    """(rule, sentencepiece's model, tokensmith's model)."""
    return request.param, spm_model(request.param), tokensmith_model(request.param)


def test_the_charsmaps_are_byte_identical(models: tuple[str, bytes, bytes]) -> None:
    rule, ref, ours = models
    ref_map, our_map = charsmap(ref), charsmap(ours)
    (trie_size,) = struct.unpack_from("<I", ref_map)
    assert trie_size > 100_000  # sentencepiece's whole table, not a stub
    assert our_map == ref_map


def test_every_line_normalizes_as_sentencepiece_does(
    models: tuple[str, bytes, bytes], lines: list[str]
) -> None:
    rule, ref, ours = models
    builtin = spm.SentencePieceProcessor(model_proto=ref)
    ours_in_spm = spm.SentencePieceProcessor(model_proto=ours)
    ours_in_tokensmith = tokensmith.SentencePieceProcessor(model_proto=ours)
    for line in lines:
        want = builtin.normalize(line)
        assert ours_in_spm.normalize(line) == want, line
        assert ours_in_tokensmith.normalize(line) == want, line


# Any code point but surrogates, with combining marks and Hangul jamo made likely, so that
# the multi-character rules are exercised too.
_chars = st.one_of(
    st.characters(exclude_categories=("Cs",)),
    st.characters(min_codepoint=0x300, max_codepoint=0x36F),
    st.characters(min_codepoint=0x1100, max_codepoint=0x11FF),
    st.sampled_from("aeiouAEIOUｕ\u3131\u314f\t\u200b\u2581 ~～"),
)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=300, deadline=None)
@given(text=st.text(_chars, max_size=12))
def test_random_text_normalizes_as_sentencepiece_does(rule: str, text: str) -> None:
    builtin, ours = _pair(rule)
    assert ours.normalize(text) == builtin.normalize(text)


_PAIRS: dict[str, tuple[spm.SentencePieceProcessor, spm.SentencePieceProcessor]] = {}


def _pair(rule: str) -> tuple[spm.SentencePieceProcessor, spm.SentencePieceProcessor]:
    if rule not in _PAIRS:
        _PAIRS[rule] = (
            spm.SentencePieceProcessor(model_proto=spm_model(rule)),
            spm.SentencePieceProcessor(model_proto=tokensmith_model(rule)),
        )
    return _PAIRS[rule]


def test_a_saved_nmt_nfkc_model_gives_sentencepiece_the_same_ids(
    lines: list[str], tmp_path: Path
) -> None:
    ours = tokensmith.train_unigram(lines, vocab_size=4000, num_threads=2)
    path = tmp_path / "m.model"
    ours.save(path)
    ref = spm.SentencePieceProcessor(model_file=str(path))
    proto = model_pb2.ModelProto()
    proto.ParseFromString(path.read_bytes())
    assert proto.normalizer_spec.name == "nmt_nfkc"
    for line in lines:
        assert ref.encode(line) == ours.encode(line), line
    # The text really was normalized before training: no piece holds a character that
    # nmt_nfkc rewrites (a fullwidth letter, a tab).
    pieces = [ours.id_to_piece(i) for i in range(ours.piece_size())]
    assert not any("\t" in p or "Ａ" in p for p in pieces)


def test_unknown_rule_is_named() -> None:
    with pytest.raises(tokensmith.errors.InvalidTrainerOptionError, match="nfkd"):
        tokensmith.train_unigram(SEED_TEXT, vocab_size=18, normalization_rule_name="nfkd")  # type: ignore[arg-type]
