"""The word cache never changes a result: words cached in one context give sentencepiece's ids in
every other one, on every trained model (Unigram and BPE, prefix and suffix whitespace).

Each test first fills the cache, then encodes text whose words it holds, in new contexts: the
lines in reverse order, and lines joined into long texts where the best score before a word is
large (where a Unigram word's rounding alone and in context differ most), alone and in batches.
"""

from __future__ import annotations


def test_cached_words_in_reverse_order(models, lines):
    ours, ref = models
    want = [ref.encode(x) for x in lines]
    assert [ours.encode(x) for x in lines] == want
    assert [ours.encode(x) for x in reversed(lines)] == want[::-1]


def test_cached_words_after_long_prefixes(models, lines):
    ours, ref = models
    for x in lines:
        ours.encode(x)
    # Joined lines of 1 to 8 KB: every word comes after thousands of others.
    texts = [" ".join(lines[i : i + n]) for n in (20, 60, 120) for i in range(0, 600, 97)]
    assert [ours.encode(t) for t in texts] == [ref.encode(t) for t in texts]


def test_cached_words_in_two_thread_batches(models, lines):
    ours, ref = models
    want = ref.encode(lines)
    for _ in range(2):
        assert ours.encode(lines, num_threads=2) == want
