"""Exact answers on tiny corpora: tokensmith's Unigram trainer against an independent
brute-force implementation of the same algorithm (``brute_unigram.py``: every segmentation
enumerated, every substring scanned), and a hand-derived case."""

from __future__ import annotations

import math

import brute_unigram
import pytest
import tokensmith

CORPUS = (
    ["the cat sat on the mat"] * 5
    + ["the rat ate the hat"] * 3
    + ["a cat and a bat that sat"] * 2
    + ["hats and mats"] * 4
    + ["tan ant"]
)


def learned(sp: tokensmith.SentencePieceProcessor) -> list[tuple[str, float]]:
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(3, sp.piece_size())]


@pytest.mark.parametrize("vocab_size", [20, 24, 28, 33])
def test_pieces_and_scores_equal_the_brute_force_trainer(vocab_size: int) -> None:
    want = dict(brute_unigram.train(CORPUS, vocab_size))
    sp = tokensmith.train_unigram(CORPUS, vocab_size=vocab_size, seed_sentencepiece_size=1000)
    got = learned(sp)
    assert len(got) == vocab_size - 3
    assert {p for p, _ in got} == set(want)
    for piece, score in got:
        assert score == pytest.approx(want[piece], abs=1e-4), piece
    # Ordered by score; pieces whose expected counts are equal (here "▁hat", "▁rat" and
    # "▁ate", 3 each) tie up to rounding, so only the order of distinct scores is checked.
    scores = [s for _, s in got]
    assert all(a >= b - 1e-6 for a, b in zip(scores, scores[1:], strict=False))


def test_one_em_round_by_hand() -> None:
    # "x" seven times is the word "▁x" seven times. Seeds: "x" and "▁" (count 7 each) and
    # "▁x" (7 occurrences x 2 characters = 14), so probabilities 1/4, 1/4, 1/2.
    # E-step: [▁x] has probability 1/2, [▁, x] 1/16, so E[▁x] = 7 * (1/2) / (9/16) = 56/9
    # and E[▁] = E[x] = 7 * (1/16) / (9/16) = 7/9; the total is 70/9.
    # M-step: score = digamma(E) - digamma(70/9). With vocab_size 6, the 3 pieces are below
    # 1.1 * 6, so training stops after this round; "x" and "▁" tie and go by bytes.
    sp = tokensmith.train_unigram(
        ["x"] * 7, vocab_size=6, num_sub_iterations=1, seed_sentencepiece_size=1000
    )
    dg = brute_unigram.digamma
    want = [
        ("▁x", dg(56 / 9) - dg(70 / 9)),
        ("x", dg(7 / 9) - dg(70 / 9)),
        ("▁", dg(7 / 9) - dg(70 / 9)),
    ]
    got = learned(sp)
    assert [p for p, _ in got] == [p for p, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert a == pytest.approx(b, abs=1e-6)
    assert math.isclose(dg(1.0), -0.5772156649, abs_tol=1e-9)
