"""Unknown-token and byte-fallback rates, and the exact round-trip rate."""

from __future__ import annotations

import pytest
import tokensmith.eval as ev
from eval_helpers import FakeSentencePiece, hf_byte_fallback, hf_with_unk, read_lines


def test_byte_level_bpe_never_gives_up() -> None:
    lines = read_lines("multilingual.txt") + read_lines("code.txt")[:500]
    m = ev.evaluate("o200k_base", lines)
    assert m["unk_rate"] == 0.0 and m["byte_fallback_rate"] == 0.0
    assert m["round_trip_rate"] == 1.0


def test_hf_unk_rate_matches_its_own_ids() -> None:
    lines = read_lines("multilingual.txt")
    tok = hf_with_unk(lines[:100])  # trained on little text: later scripts are unknown
    unk = tok.token_to_id("[UNK]")
    assert unk is not None
    encodings = tok.encode_batch(lines, add_special_tokens=False)
    n_unk = sum(e.ids.count(unk) for e in encodings)
    n_all = sum(len(e.ids) for e in encodings)
    data = ev.tokenize(tok, lines)
    assert 0 < ev.unk_rate(data) == pytest.approx(n_unk / n_all)
    # Whitespace pre-tokenization loses spaces; [UNK] loses text. Count exact round trips.
    exact = sum(tok.decode(e.ids) == t for e, t in zip(encodings, lines, strict=True))
    assert ev.round_trip_rate(data) == pytest.approx(exact / len(lines))
    assert ev.round_trip_rate(data) < 1


def test_byte_fallback_by_hand() -> None:
    # "abc" -> [ab][<0x63>], "ab" -> [ab]: one byte-fallback token of three. This model has
    # no ByteFallback decoder, so "abc" decodes to "ab <0x63>": one of two texts round-trips.
    data = ev.tokenize(hf_byte_fallback(), ["abc", "ab"])
    assert ev.byte_fallback_rate(data) == pytest.approx(1 / 3)
    assert ev.unk_rate(data) == 0.0
    assert ev.round_trip_rate(data) == 0.5


def test_sentencepiece_rates_by_hand() -> None:
    # "hello ?" -> [▁hello][<unk>]; "hello zz" -> [▁hello] + 5 byte pieces (▁ is 3 bytes).
    data = ev.tokenize(FakeSentencePiece(), ["hello ?", "hello zz"])
    assert ev.unk_rate(data) == pytest.approx(1 / 8)
    assert ev.byte_fallback_rate(data) == pytest.approx(5 / 8)
    # Spans come from the processor's byte offsets: "zz" is one continued word.
    assert ev.continued_words(data) == pytest.approx(1 / 4)
