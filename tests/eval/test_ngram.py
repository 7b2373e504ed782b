"""The interpolated Kneser-Ney model: hand-derived probabilities, normalization, seed 004."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tokensmith.eval as ev
from eval_helpers import read_lines
from tokensmith.eval import KneserNeyLM

A, B, C = 0, 1, 2
Pair = tuple[ev.Tokenized, ev.Tokenized]
TOY = [[A, B, A, B, C]]  # one training sequence over a vocabulary of 3


def test_bigram_by_hand() -> None:
    # With BOS (s) the bigrams are s a, a b, b a, a b, b c.
    # Continuation counts (distinct left neighbours): a {s, b} = 2, b {a} = 1, c {b} = 1;
    # total 4 over 3 types. With D = 0.5 everywhere:
    #   P1(a) = (2 - .5)/4 + .5*3/4 * 1/3 = .375 + .125 = .5;  P1(b) = P1(c) = .125 + .125 = .25
    # Context a: counts {b: 2}, total 2, 1 type:
    #   P(b|a) = 1.5/2 + .5*1/2 * .25 = .8125;  P(a|a) = .25*.5 = .125;  P(c|a) = .0625
    # Context b: {a: 1, c: 1}, total 2, 2 types; the back-off weight is .5*2/2 = .5:
    #   P(a|b) = .5/2 + .5*.5 = .5;  P(c|b) = .25 + .5*.25 = .375;  P(b|b) = .125
    # Context s: {a: 1}: P(a|s) = .5 + .5*.5 = .75;  P(b|s) = P(c|s) = .5*.25 = .125
    # Context c never precedes anything: P(.|c) = P1.
    lm = KneserNeyLM.fit(TOY, vocab_size=3, order=2, discount=0.5)
    assert lm.distribution([]).tolist() == [0.5, 0.25, 0.25]
    assert lm.distribution([A]).tolist() == [0.125, 0.8125, 0.0625]
    assert lm.distribution([B]).tolist() == [0.5, 0.125, 0.375]
    assert lm.distribution([lm.bos]).tolist() == [0.75, 0.125, 0.125]
    assert lm.distribution([C]).tolist() == [0.5, 0.25, 0.25]
    # Scoring "a b c" from the start: P(a|s) P(b|a) P(c|b) = .75 * .8125 * .375.
    assert lm.log2_probs([[A, B, C]]).tolist() == pytest.approx(
        [math.log2(0.75), math.log2(0.8125), math.log2(0.375)]
    )


def test_trigram_by_hand() -> None:
    # Trigrams: s a b, a b a, b a b, a b c. Bigram continuation counts (distinct left
    # neighbours among trigrams): a b {s, b} = 2, b a {a} = 1, b c {a} = 1; "s a" starts with
    # BOS, so it keeps its raw count 1. Unigram level as in the bigram test.
    #   P2(b|a) = (2 - .5)/2 + .5*1/2 * P1(b) = .75 + .25*.25 = .8125
    #   P2(c|b) = .5/2 + .5*2/2 * .25 = .375
    # Trigram level (raw counts): context (s, a): {b: 1}; context (a, b): {a: 1, c: 1}.
    #   P(b|s a) = .5/1 + .5*1/1 * P2(b|a) = .5 + .40625 = .90625
    #   P(c|a b) = .5/2 + .5*2/2 * P2(c|b) = .25 + .1875 = .4375
    # The first token has only (s) as context: P(a|s) = .75 as for the bigram.
    lm = KneserNeyLM.fit(TOY, vocab_size=3, order=3, discount=0.5)
    probs = np.exp2(lm.log2_probs([[A, B, C]]))
    assert probs.tolist() == pytest.approx([0.75, 0.90625, 0.4375])
    assert lm.distribution([A, B]).tolist() == pytest.approx([0.5, 0.0625, 0.4375])


def test_estimated_discounts_by_hand() -> None:
    # Bigram counts {s a: 1, a b: 2, b a: 1, b c: 1}: n1 = 3, n2 = 1, D2 = 3/(3 + 2) = .6.
    # Unigram continuation counts {a: 2, b: 1, c: 1}: n1 = 2, n2 = 1, D1 = 2/(2 + 2) = .5.
    assert KneserNeyLM.fit(TOY, vocab_size=3, order=2).discounts == (0.5, 0.6)


def test_seed_004_bigram_model_is_the_zero_discount_case() -> None:
    # Seed 004 counts bigrams over "<s> w1 .. wn </s>" and sets P(w|v) = C(v, w) / C(v).
    # With D = 0 the Kneser-Ney terms reduce to exactly that for every seen context.
    corpus = ["我 爱 北京", "我 爱 上海", "北京 是 首都", "上海 是 城市", "我 爱 中国"]
    words = sorted({w for s in corpus for w in s.split()} | {"广州"})
    ids = {w: i for i, w in enumerate(words)}
    seqs = [[ids[w] for w in s.split()] for s in corpus]
    mle = KneserNeyLM.fit(seqs, vocab_size=len(words), order=2, discount=0.0, eos=True)
    # P(爱|我) = 3/3; P(北京|爱) = P(上海|爱) = P(中国|爱) = 1/3; P(是|北京) = P(</s>|北京) = 1/2.
    assert mle.distribution([ids["我"]])[ids["爱"]] == pytest.approx(1.0)
    after_love = mle.distribution([ids["爱"]])
    for w in ("北京", "上海", "中国"):
        assert after_love[ids[w]] == pytest.approx(1 / 3)
    after_bj = mle.distribution([ids["北京"]])
    assert after_bj[ids["是"]] == after_bj[mle.eos] == pytest.approx(1 / 2)
    # Sentence "我 爱 北京": P(我|<s>) P(爱|我) P(北京|爱) P(</s>|北京) = 3/5 * 1 * 1/3 * 1/2.
    total = np.exp2(mle.log2_probs([[ids["我"], ids["爱"], ids["北京"]]]).sum())
    assert total == pytest.approx(1 / 10)
    # The seed's sparsity problem: the unseen pair 爱 -> 广州 gets 0 ...
    assert after_love[ids["广州"]] == 0.0
    # ... and Kneser-Ney smoothing gives it a share while still summing to 1.
    kn = KneserNeyLM.fit(seqs, vocab_size=len(words), order=2, eos=True)
    smoothed = kn.distribution([ids["爱"]])
    assert smoothed[ids["广州"]] > 0 and smoothed.sum() == pytest.approx(1.0)
    assert smoothed[ids["北京"]] > smoothed[ids["广州"]]


@pytest.fixture(scope="module")
def real() -> Pair:
    train, test = ev.split_train_test(read_lines("multilingual.txt"), test_fraction=0.2)
    return ev.tokenize("o200k_base", train), ev.tokenize("o200k_base", test)


@pytest.mark.parametrize("order", [2, 3, 4])
@pytest.mark.parametrize("eos", [False, True])
def test_distributions_sum_to_one_over_the_vocabulary(real: Pair, order: int, eos: bool) -> None:
    train, _ = real
    lm = KneserNeyLM.fit(train, vocab_size=train.adapter.vocab_size, order=order, eos=eos)
    ids = train.ids.tolist()
    rng = np.random.default_rng(order)
    contexts = [
        [],  # no history
        [lm.bos],  # start of a sequence
        [lm.bos, ids[0]],  # a seen start
        ids[100:103],  # a seen history
        ids[5000:5003],
        rng.integers(0, 200_000, 3).tolist(),  # almost surely unseen
        [ids[10], *rng.integers(0, 200_000, 1).tolist(), ids[11]],  # partly seen
    ]
    for context in contexts:
        p = lm.distribution(context)
        assert p.size == lm.n_outcomes == train.adapter.vocab_size + eos
        assert p.min() > 0
        assert p.sum() == pytest.approx(1.0, abs=1e-9)


def test_vectorized_scores_match_the_distribution_path(real: Pair) -> None:
    train, test = real
    lm = KneserNeyLM.fit(train, vocab_size=train.adapter.vocab_size, order=4)
    lengths = test.batch.lengths()
    chosen = np.flatnonzero(lengths >= 6)[:3]
    seqs = [test.ids[test.offsets[i] : test.offsets[i + 1]].tolist() for i in chosen]
    fast = lm.log2_probs(seqs)
    slow = []
    for seq in seqs:
        history = [lm.bos]
        for token in seq:
            slow.append(math.log2(lm.distribution(history)[token]))
            history.append(token)
    assert len(slow) >= 18
    assert fast.tolist() == pytest.approx(slow)


def test_bits_per_byte_on_held_out_text(real: Pair) -> None:
    train, test = real
    lines = read_lines("multilingual.txt")
    tr, te = ev.split_train_test(lines, test_fraction=0.2)
    score = ev.ngram_bits_per_byte("o200k_base", tr, te, order=3)
    lm = KneserNeyLM.fit(train, vocab_size=train.adapter.vocab_size, order=3)
    bits = -lm.log2_probs(test).sum()
    assert score.bits == pytest.approx(bits)
    assert score.n_bytes == test.n_bytes and score.n_tokens == test.n_tokens
    assert score.bits_per_byte == pytest.approx(bits / test.n_bytes)
    assert 0 < score.bits_per_byte < 8  # beats spelling every byte uniformly
    # On its own training text a higher order fits more closely.
    on_train = [
        KneserNeyLM.fit(train, vocab_size=train.adapter.vocab_size, order=n).bits(train)
        for n in (2, 3, 4)
    ]
    assert on_train[0] > on_train[1] > on_train[2]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="order"):
        KneserNeyLM.fit(TOY, vocab_size=3, order=5)
    with pytest.raises(ValueError, match="ids"):
        KneserNeyLM.fit([[0, 3]], vocab_size=3)
    with pytest.raises(ValueError, match="discount"):
        KneserNeyLM.fit(TOY, vocab_size=3, discount=1.0)
    with pytest.raises(ValueError, match="discount"):
        KneserNeyLM.fit(TOY, vocab_size=3, order=3, discount=[0.5, 0.5])
    lm = KneserNeyLM.fit(TOY, vocab_size=3)
    with pytest.raises(ValueError, match="ids"):
        lm.log2_probs([[0, 7]])
