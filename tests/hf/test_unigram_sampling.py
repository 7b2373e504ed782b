"""``models.Unigram(vocab, unk_id, byte_fallback, alpha=, nbest_size=)``: HF 0.23's subword
sampling, against HF on a vocabulary HF trains from the committed multilingual text.

Sampling is random in both libraries (neither is seedable), so the tests compare
distributions: the share of each segmentation of a word over many draws (total variation
distance), and the mean number of tokens per line. With 4,000 draws per library, two HF
runs of the words below were 0.006 to 0.032 apart and tokensmith 0.003 to 0.021 from HF, so
the bound 0.06 leaves a wide margin; the mean token count over 4,000 sampled lines moves by
well under 1%. ``alpha=None`` (or 0) gives the best segmentation, HF's deterministic ids.
"""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()
DRAWS = 4000


@pytest.fixture(scope="module")
def vocab() -> list[tuple[str, float]]:
    """A Unigram vocabulary HF trains on the first 800 lines."""
    tok = tokenizers.Tokenizer(tokenizers.models.Unigram())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    trainer = tokenizers.trainers.UnigramTrainer(
        vocab_size=1200, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False
    )
    tok.train_from_iterator(LINES[:800], trainer)
    return [(p, s) for p, s in json.loads(tok.to_str())["model"]["vocab"]]


def tokenizer(lib: Any, vocab: list[tuple[str, float]], **sampling: Any) -> Any:
    tok = lib.Tokenizer(lib.models.Unigram(vocab, 0, False, **sampling))
    tok.pre_tokenizer = lib.pre_tokenizers.Metaspace()
    return tok


def shares(tok: Any, text: str) -> dict[tuple[str, ...], float]:
    counts = Counter(tuple(tok.encode(text).tokens) for _ in range(DRAWS))
    return {k: n / DRAWS for k, n in counts.items()}


def distance(a: dict[Any, float], b: dict[Any, float]) -> float:
    return sum(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in a.keys() | b.keys()) / 2


@pytest.mark.parametrize("alpha", [None, 0.0])
def test_no_alpha_is_the_best_segmentation(vocab: list[tuple[str, float]], alpha: Any) -> None:
    ours, hf = tokenizer(tokensmith, vocab, alpha=alpha), tokenizer(tokenizers, vocab, alpha=alpha)
    plain = tokenizer(tokensmith, vocab)
    for line in LINES[::11]:
        mine = ours.encode(line)
        assert mine.ids == hf.encode(line).ids == plain.encode(line).ids
        assert mine.ids == ours.encode(line).ids


@pytest.mark.parametrize(
    ("word", "sampling"),
    [
        ("translation", {"alpha": 0.5, "nbest_size": 4}),
        ("Vorbis", {"alpha": 0.3, "nbest_size": 8}),
        ("afgeknot", {"alpha": 0.2}),
        ("beeld", {"alpha": 1.0}),
    ],
)
def test_a_word_is_drawn_as_hf_draws_it(
    vocab: list[tuple[str, float]], word: str, sampling: dict[str, Any]
) -> None:
    ours, hf = tokenizer(tokensmith, vocab, **sampling), tokenizer(tokenizers, vocab, **sampling)
    mine, theirs = shares(ours, word), shares(hf, word)
    assert len(theirs) > 1
    if "nbest_size" in sampling:
        assert len(mine) <= sampling["nbest_size"]
    assert distance(mine, theirs) < 0.06, (mine, theirs)


def test_lines_sample_valid_tokens_as_often_as_hf(vocab: list[tuple[str, float]]) -> None:
    ours, hf = tokenizer(tokensmith, vocab, alpha=0.1), tokenizer(tokenizers, vocab, alpha=0.1)
    best = tokenizer(tokensmith, vocab)
    pieces = {p for p, _ in vocab}
    totals = {"ours": 0, "hf": 0}
    changed = 0
    for line in LINES[800:1000]:
        spelled = "".join(best.encode(line).tokens)
        for _ in range(20):
            enc = ours.encode(line)
            assert all(t in pieces or i == 0 for t, i in zip(enc.tokens, enc.ids, strict=True))
            # The tokens spell the text as the best segmentation does.
            assert "".join(enc.tokens) == spelled
            totals["ours"] += len(enc.ids)
            totals["hf"] += len(hf.encode(line).ids)
            changed += enc.ids != best.encode(line).ids
    assert changed > 0
    assert abs(totals["ours"] / totals["hf"] - 1) < 0.01, totals


def test_options_are_attributes_and_not_saved(vocab: list[tuple[str, float]]) -> None:
    ours = tokenizer(tokensmith, vocab, alpha=0.5, nbest_size=3)
    hf = tokenizer(tokenizers, vocab, alpha=0.5, nbest_size=3)
    assert (ours.model.alpha, ours.model.nbest_size) == (hf.model.alpha, hf.model.nbest_size)
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())
    word = "translation"
    # A pickle is the JSON, in both: the copy gives the best segmentation only.
    for tok in (ours, hf):
        assert len(shares(pickle.loads(pickle.dumps(tok)), word)) == 1
    # Setting the model's attribute changes the tokenizer, as HF's shared model does.
    ours.model.alpha = None
    hf.model.alpha = None
    assert len(shares(ours, word)) == len(shares(hf, word)) == 1
    # Another component set keeps the sampling.
    ours = tokenizer(tokensmith, vocab, alpha=0.5)
    ours.normalizer = tokensmith.normalizers.NFKC()
    assert len(shares(ours, word)) > 1


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"alpha": "x"}, TypeError),
        ({"nbest_size": 1.5}, TypeError),
        ({"nbest_size": -1}, OverflowError),
    ],
)
def test_bad_options_raise_hfs_error_type(
    vocab: list[tuple[str, float]], options: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        tokenizers.models.Unigram(vocab, 0, False, **options)
    with pytest.raises(error) as raised:
        tokensmith.models.Unigram(vocab, 0, False, **options)
    assert isinstance(raised.value, tokensmith.TokensmithError)


@pytest.mark.parametrize("nbest_size", [None, 3])
def test_without_unk_id_a_word_fails_only_when_no_piece_covers_it(
    vocab: list[tuple[str, float]], nbest_size: int | None
) -> None:
    """The vocabulary without its ``<unk>``: HF itself then fails every sampled word (its
    sampler needs ``unk_id`` to fuse unknowns, and panics on a character no piece covers),
    so tokensmith follows its best path instead. Without the one-character pieces of a few
    letters, the best path still encodes some lines (longer pieces cover those letters), and
    so does every draw; only a character no piece covers fails."""
    dropped = set("kvwyz")
    pieces = [(p, s) for p, s in vocab[1:] if p not in dropped]
    plain = tokensmith.Tokenizer(tokensmith.models.Unigram(pieces, None, False))
    plain.pre_tokenizer = tokensmith.pre_tokenizers.Metaspace()
    ours = tokensmith.Tokenizer(
        tokensmith.models.Unigram(pieces, None, False, alpha=0.5, nbest_size=nbest_size)
    )
    ours.pre_tokenizer = tokensmith.pre_tokenizers.Metaspace()
    known = {p for p, _ in pieces}
    # Lines that hold a character without a one-character piece yet encode on the best path.
    lines = [line for line in LINES[800:1200] if dropped & set(line) and _encodes(plain, line)]
    assert lines
    for line in lines[:20]:
        spelled = "".join(plain.encode(line).tokens)
        for _ in range(5):
            enc = ours.encode(line)
            assert "".join(enc.tokens) == spelled
            assert all(t in known for t in enc.tokens)
    with pytest.raises(tokensmith.TokensmithError, match="unk_id"):
        ours.encode("\u2603")


def _encodes(tok: Any, line: str) -> bool:
    try:
        tok.encode(line)
    except tokensmith.TokensmithError:
        return False
    return True
