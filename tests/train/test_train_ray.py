"""Training with engine="ray" counts on a real local Ray cluster and learns the same merges."""

from __future__ import annotations

import os

import pytest

# A local cluster on loopback only: without this Ray binds to the machine's outward address.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
import ray  # noqa: E402
import tokensmith  # noqa: E402
import tokensmith.train  # noqa: E402
from tokensmith._core import count_words, merge_word_counts  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
    yield
    ray.shutdown()


def test_ray_training_equals_local(cluster, multilingual_lines, monkeypatch):
    # Small chunks: 11 counting tasks and two levels of merge tasks.
    monkeypatch.setattr(tokensmith.train, "_RAY_CHUNK_TEXTS", 500)
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
