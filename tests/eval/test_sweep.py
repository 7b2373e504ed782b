"""Vocabulary-size sweeps over nested BPE prefixes."""

from __future__ import annotations

import pytest
import tokensmith.eval as ev
from eval_helpers import read_lines
from tokensmith.errors import InvalidVocabError
from tokensmith.reference import tiktoken_encoding


def test_cl100k_curve_is_monotonic_and_ends_at_the_real_encoder() -> None:
    lines = read_lines("multilingual.txt")[:2000] + read_lines("code.txt")[:2000]
    rows = ev.vocab_size_sweep("cl100k_base", lines, sizes=[256, 1024, 8192, 100256], d_model=4096)
    assert [r.vocab_size for r in rows] == [256, 1024, 8192, 100256]
    bpt = [r.bytes_per_token for r in rows]
    assert bpt == sorted(bpt) and len(set(bpt)) == 4
    # 256 ranks are the bytes alone: one token per byte.
    assert bpt[0] == 1.0
    # The full prefix is cl100k itself: compare with tiktoken's own encoder.
    ref = tiktoken_encoding("cl100k_base")
    assert rows[-1].n_tokens == sum(len(ref.encode_ordinary(t)) for t in lines)
    assert [r.embedding_params for r in rows] == [2 * k * 4096 for k in (256, 1024, 8192, 100256)]


def test_default_sizes_double_up_to_the_full_vocabulary() -> None:
    assert ev.sweep.default_sizes(100256)[:3] == [1024, 2048, 4096]
    assert ev.sweep.default_sizes(100256)[-2:] == [65536, 100256]


def test_vocabularies_that_are_not_nested_are_refused() -> None:
    enc = tiktoken_encoding("cl100k_base")
    with pytest.raises(ValueError, match="256"):
        ev.vocab_size_sweep(enc, ["x"], sizes=[100])
    gappy = {bytes([b]): b for b in range(256)} | {b"ab": 300}
    with pytest.raises(InvalidVocabError, match="gaps"):
        ev.sweep.nested_ranks(gappy)
    # Ranks 0..255 with no gaps, but a merge took the place of byte 0x00.
    no_zero_byte = {bytes([b]): b - 1 for b in range(1, 256)} | {b"ab": 255}
    with pytest.raises(InvalidVocabError, match="256 single bytes"):
        ev.sweep.nested_ranks(no_zero_byte)
    with pytest.raises(TypeError):
        ev.vocab_size_sweep(object(), ["x"])
