"""Training with engine="ray" counts on a real local Ray cluster and learns the same merges."""

from __future__ import annotations

import pytest
import tokensmith
import tokensmith.train.bpe
from tokensmith._core import count_words, merge_word_counts


def test_ray_training_equals_local(ray_cluster, multilingual_lines, monkeypatch):
    # Small chunks: 11 counting tasks and two levels of merge tasks.
    monkeypatch.setattr(tokensmith.train.bpe, "_RAY_CHUNK_TEXTS", 500)
    local = tokensmith.train_bpe(multilingual_lines, vocab_size=1500)
    remote = tokensmith.train_bpe(multilingual_lines, vocab_size=1500, engine="ray")
    assert remote._bpe_merges == local._bpe_merges
    assert remote._mergeable_ranks == local._mergeable_ranks


def test_count_buffers_sum_exactly(multilingual_lines):
    pattern = tokensmith.O200K_PATTERN
    whole = count_words(multilingual_lines, pattern=pattern)
    parts = [count_words(multilingual_lines[i::3], pattern=pattern) for i in range(3)]
    assert merge_word_counts(parts) == whole  # the format is canonical: equal counts, equal bytes
    with pytest.raises(tokensmith.TokensmithError, match="truncated"):
        merge_word_counts([whole[:-3]])


def test_unknown_engine_is_refused(multilingual_lines):
    with pytest.raises(tokensmith.TokensmithError, match="engine"):
        tokensmith.train_bpe(multilingual_lines, vocab_size=300, engine="spark")  # type: ignore[arg-type]
