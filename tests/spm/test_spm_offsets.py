"""Offsets of ``SentencePieceTokenizer.encode`` against sentencepiece's ``out_type="proto"``.

sentencepiece gives each piece's ``begin``/``end`` in UTF-8 bytes of the original text;
tokensmith gives them in characters (as Python indexes the string). Each byte offset is
turned into characters here, on its own, and the two must agree on every line.
"""

from __future__ import annotations

import pytest
import sentencepiece as spm
from spm_helpers import trained
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

# Normalizations (identity, nmt_nfkc, nfkc_cf), kept spaces, suffix spaces, byte fallback,
# user-defined symbols, and all four model types.
OFFSET_MODELS = [
    "unigram_identity",
    "unigram_nmt_nfkc",
    "unigram_nfkc_cf",
    "unigram_byte_fallback",
    "unigram_keep_spaces",
    "unigram_ws_suffix",
    "unigram_user_defined",
    "bpe_nmt_nfkc",
    "bpe_byte_fallback_identity",
    "bpe_keep_spaces_dummy",
    "char_nmt_nfkc",
    "char_user_defined_byte_fallback",
    "word_nmt_nfkc",
    "word_ws_suffix_byte_fallback",
]


def char_offset(text: str, byte_offset: int) -> int:
    """The character index of ``byte_offset`` in ``text`` (a character boundary)."""
    prefix = text.encode("utf-8")[:byte_offset]
    return len(prefix.decode("utf-8"))


@pytest.mark.parametrize("name", OFFSET_MODELS)
def test_offsets_equal_sentencepiece_proto(name: str, lines: list[str]) -> None:
    proto = trained(name)
    ours = SentencePieceTokenizer.from_bytes(proto)
    ref = spm.SentencePieceProcessor(model_proto=proto)
    checked_non_ascii = 0
    for line in lines:
        enc = ours.encode(line)
        spt = ref.encode(line, out_type="proto")
        want = [(char_offset(line, p.begin), char_offset(line, p.end)) for p in spt.pieces]
        assert enc.tokens == [p.piece for p in spt.pieces], line
        assert enc.offsets == want, line
        checked_non_ascii += not line.isascii()
    assert checked_non_ascii > 1000


def test_pair_offsets_are_per_sequence(lines: list[str]) -> None:
    proto = trained("unigram_nmt_nfkc")
    ours = SentencePieceTokenizer.from_bytes(proto)
    first, second = lines[3], lines[4]
    alone = ours.encode(second).offsets
    both = ours.encode(first, second).offsets
    assert both[len(both) - len(alone) :] == alone
    assert both[: len(both) - len(alone)] == ours.encode(first).offsets
