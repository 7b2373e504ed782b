"""N-best lists equal sentencepiece's; sampled segmentations follow the exact path
probabilities (Unigram) and BPE dropout behaves as sentencepiece's."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import sentencepiece as spm
import tokensmith


# The 0.999 quantile of chi-square with k degrees of freedom (Wilson-Hilferty).
def chi2_limit(k: int) -> float:
    return k * (1 - 2 / (9 * k) + 3.0902 * math.sqrt(2 / (9 * k))) ** 3


def test_nbest_lists_and_scores_equal_sentencepiece(unigram_models, lines):
    ours, ref = unigram_models
    bad = []
    for line in lines[::3]:
        for n in (2, 7, 30):
            got = ours.nbest_encode_as_pieces(line, n)
            if got != ref.nbest_encode_as_pieces(line, n):
                bad.append((line, n))
            if ours.nbest_encode_as_ids(line, n) != ref.nbest_encode_as_ids(line, n):
                bad.append((line, n, "ids"))
    assert bad == []
    for line in lines[:150]:
        proto = ref.nbest_encode(line, nbest_size=6, return_type="proto")
        want = [([p.piece for p in nb.pieces], nb.score) for nb in proto.nbests]
        got = ours.nbest_with_scores(line, 6)
        # sentencepiece's proto pieces are the text-side pieces; compare scores and lengths.
        assert [s for _, s in got] == [s for _, s in want], line
        assert [len(p) for p, _ in got] == [len(p) for p, _ in want], line


def test_nbest_on_a_long_repetitive_line_that_shrinks_the_agenda(unigram_models):
    """Thousands of equal-scoring paths: the agenda shrinks as sentencepiece's does."""
    ours, ref = unigram_models
    text = "ab " * 40 + "aaaa bbbb " * 20
    for n in (10, 100):
        assert ours.nbest_encode_as_ids(text, n) == ref.nbest_encode_as_ids(text, n)


def test_nbest_one_and_empty(unigram_models):
    ours, ref = unigram_models
    for text in ["", "x", "Hello world"]:
        for n in (0, 1, 2):
            assert ours.nbest_encode_as_ids(text, n) == ref.nbest_encode_as_ids(text, n)


def test_entropy_matches_the_complete_nbest_list_of_sentencepiece(unigram_models, lines):
    """For short words sentencepiece's n-best list (up to 512) holds every segmentation, so
    its scores give the exact entropy (sentencepiece's Python API has no CalculateEntropy)."""
    ours, ref = unigram_models
    words = sorted({w for line in lines[:400] for w in line.split() if 3 <= len(w) <= 7})
    checked = 0
    for word in words[:80]:
        proto = ref.nbest_encode(word, nbest_size=512, return_type="proto")
        if len(proto.nbests) >= 512:
            continue
        for alpha in (0.1, 1.0):
            logw = [alpha * nb.score for nb in proto.nbests]
            top = max(logw)
            z = sum(math.exp(x - top) for x in logw)
            probs = [math.exp(x - top) / z for x in logw]
            h = -sum(p * math.log(p) for p in probs if p > 0)
            assert ours.calculate_entropy(word, alpha) == pytest.approx(h, rel=1e-3, abs=1e-4)
        checked += 1
    assert checked >= 40


EX2 = [
    ("<unk>", 0.0, "unknown"),
    ("ab", math.log(0.4), "normal"),
    ("a", math.log(0.3), "normal"),
    ("b", math.log(0.2), "normal"),
    ("c", math.log(0.1), "normal"),
]


def test_exercise_2_sampling_picks_ab_c_87_percent():
    """Seed 004, exercise 2: P([ab, c]) = 0.04 / (0.04 + 0.006) = 0.8696 with alpha = 1."""
    sp = tokensmith.SentencePieceProcessor.from_pieces(EX2, add_dummy_prefix=False)
    assert sp.encode("abc", out_type=str) == ["ab", "c"]
    tokensmith.sentencepiece.set_random_generator_seed(87)
    n = 20_000
    counts = Counter(
        tuple(sp.sample_encode_as_pieces("abc", nbest_size=-1, alpha=1.0)) for _ in range(n)
    )
    assert set(counts) == {("ab", "c"), ("a", "b", "c")}
    share = counts[("ab", "c")] / n
    assert abs(share - 0.04 / 0.046) < 0.012, share  # 5 standard errors


def segmentations(text: str, vocab: dict[str, float]) -> list[tuple[tuple[str, ...], float]]:
    """Every segmentation of ``text`` into ``vocab`` pieces, with its log-probability."""
    if not text:
        return [((), 0.0)]
    out = []
    for piece, logp in vocab.items():
        if text.startswith(piece):
            for rest, score in segmentations(text[len(piece) :], vocab):
                out.append(((piece, *rest), logp + score))
    return out


# alpha = 0 makes every segmentation equally likely.
@pytest.mark.parametrize(("alpha", "nbest_size"), [(1.0, -1), (0.3, -1), (0.0, -1), (0.5, 6)])
def test_sampling_frequencies_match_exact_path_probabilities(alpha, nbest_size):
    vocab = {"a": 0.2, "b": 0.15, "c": 0.1, "ab": 0.12, "bc": 0.08, "abc": 0.05, "ca": 0.06}
    pieces = [("<unk>", 0.0, "unknown")] + [(p, math.log(q), "normal") for p, q in vocab.items()]
    sp = tokensmith.SentencePieceProcessor.from_pieces(pieces, add_dummy_prefix=False)
    text = "abcab"
    paths = segmentations(text, {p: math.log(q) for p, q in vocab.items()})
    paths.sort(key=lambda p: -p[1])
    if nbest_size > 0:
        paths = paths[:nbest_size]
        assert [tuple(p) for p in sp.nbest_encode_as_pieces(text, nbest_size)] == [
            p for p, _ in paths
        ]
    weights = [math.exp(alpha * s) for _, s in paths]
    z = sum(weights)
    tokensmith.sentencepiece.set_random_generator_seed(11)
    n = 30_000
    counts = Counter(
        tuple(sp.sample_encode_as_pieces(text, nbest_size=nbest_size, alpha=alpha))
        for _ in range(n)
    )
    assert set(counts) <= {p for p, _ in paths}
    expected = {p: n * w / z for (p, _), w in zip(paths, weights, strict=True)}
    chi2 = sum((counts[p] - e) ** 2 / e for p, e in expected.items())
    assert chi2 < chi2_limit(len(paths) - 1), (chi2, counts)


def test_sampling_follows_the_same_distribution_as_sentencepiece(unigram_models):
    """Two-sample chi-square: our draws and sentencepiece's on the same word."""
    ours, ref = unigram_models
    spm.set_random_generator_seed(3)
    tokensmith.sentencepiece.set_random_generator_seed(3)
    word, n = "Unterschied", 4000
    a = Counter(tuple(ours.sample_encode_as_ids(word, nbest_size=-1, alpha=0.2)) for _ in range(n))
    b = Counter(tuple(ref.sample_encode_as_ids(word, nbest_size=-1, alpha=0.2)) for _ in range(n))
    common = [k for k in set(a) | set(b) if a[k] + b[k] >= 20]
    assert len(common) >= 3
    chi2 = sum((a[k] - b[k]) ** 2 / (a[k] + b[k]) for k in common)
    assert chi2 < chi2_limit(len(common)), (chi2, a.most_common(5), b.most_common(5))


def test_samples_are_valid_segmentations(sampling_models, lines):
    ours, ref = sampling_models
    tokensmith.sentencepiece.set_random_generator_seed(1)
    for line in lines[::5]:
        for nbest_size in (-1, 3):
            pieces = ours.sample_encode_as_pieces(line, nbest_size=nbest_size, alpha=0.3)
            ids = ours.sample_encode_as_ids(line, nbest_size=nbest_size, alpha=0.3)
            assert ours.decode(ids) == ref.decode(ref.encode(line)), line
            if "▁" not in line and not any(ours.is_byte(ours.piece_to_id(p)) for p in pieces):
                assert "".join(pieces) == ours.normalize(line), line


def test_bpe_dropout_zero_is_plain_encode(bpe_models, lines):
    ours, ref = bpe_models
    for line in lines[::4]:
        assert ours.encode(line, enable_sampling=True, alpha=0.0, nbest_size=-1) == ref.encode(
            line
        )
    with pytest.raises(ValueError, match="nbest_size"):
        ours.encode("x", enable_sampling=True, nbest_size=1, alpha=0.1)


def test_bpe_dropout_alpha_one_splits_into_characters(bpe_models, lines):
    ours, ref = bpe_models
    for line in lines[::7]:
        got = ours.sample_encode_as_pieces(line, nbest_size=-1, alpha=1.0)
        assert got == ref.sample_encode_as_pieces(line, nbest_size=-1, alpha=1.0), line


def test_bpe_dropout_rate_matches_sentencepiece(bpe_models, lines):
    """Mean tokens per line under dropout 0.1 and 0.4: within 1.5% of sentencepiece's."""
    ours, ref = bpe_models
    spm.set_random_generator_seed(9)
    tokensmith.sentencepiece.set_random_generator_seed(9)
    sample = [line for line in lines if line.strip()][:600]
    for alpha in (0.1, 0.4):
        a = sum(len(ours.sample_encode_as_ids(x, nbest_size=-1, alpha=alpha)) for x in sample)
        b = sum(len(ref.sample_encode_as_ids(x, nbest_size=-1, alpha=alpha)) for x in sample)
        plain = sum(len(ref.encode(x)) for x in sample)
        assert a > plain * 1.02  # dropout lengthens the encoding
        assert abs(a - b) / b < 0.015, (alpha, a, b)
        ids = [ours.sample_encode_as_ids(x, nbest_size=-1, alpha=alpha) for x in sample[:50]]
        for x, i in zip(sample, ids, strict=False):
            assert ours.decode(i) == ref.decode(ref.encode(x))


def test_nbest_on_bpe_is_a_clear_error(bpe_models):
    ours, _ = bpe_models
    with pytest.raises(tokensmith.UnsupportedFeatureError, match="Unigram"):
        ours.nbest_encode_as_pieces("hello", 3)


def test_same_seed_same_samples(unigram_models):
    ours, _ = unigram_models
    runs = []
    for _ in range(2):
        tokensmith.sentencepiece.set_random_generator_seed(42)
        runs.append([ours.sample_encode_as_ids("tokenization", nbest_size=-1, alpha=0.1)
                     for _ in range(20)])
    assert runs[0] == runs[1]
    assert len({tuple(r) for r in runs[0]}) > 1
