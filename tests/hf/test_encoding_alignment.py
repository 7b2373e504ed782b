"""The alignment methods of ``EncodingResult`` (``char_to_token``, ``char_to_word``,
``token_to_chars``, ``token_to_word``, ``token_to_sequence``, ``word_to_tokens``,
``word_to_chars``, ``sequence_ids``, ``n_sequences``, ``set_sequence_id``, ``words``) and
the static ``merge``, compared with HF ``tokenizers``' ``Encoding`` on the committed
multilingual text: single texts and pairs, with and without special tokens, and truncated with
a stride (every overflowing encoding, nested ones included, is asked too).

The files are those of :mod:`hf_families`: WordPiece (the real MiniLM file), byte-level BPE
(GPT-2 with a ByteLevel post-processor, RoBERTa, Llama 3), Metaspace BPE (Llama 2) and T5-style
Unigram; and the MiniLM file without a post-processor, where HF records no sequence for a
single text.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from alignment_checks import answers, tree
from family_fixture import Family, family_fixture
from hf_families import OVERFLOW_FAMILIES
from hf_parity import fields
from test_fast_ids import _train
from tokensmith.errors import InvalidArgumentError

DATA = Path(__file__).parent.parent / "data"
LINES = [
    line
    for line in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:200]
    if line.strip()
]
SINGLES = LINES[:24] + ["", " ", "a"]
PAIRS = list(zip(LINES[30:42], LINES[60:72], strict=True)) + [("", LINES[0]), (LINES[1], "")]
# Lines of 120 to 200 characters: a few truncation windows each, and a pair's nested ones
# (whose number grows with the product of the two sequences' windows).
MEDIUM = [line for line in LINES if 120 <= len(line) <= 200][:3]


family_json = family_fixture([*OVERFLOW_FAMILIES, "bert-bare"])


def both(family: Family) -> tuple[Any, Any]:
    from tokenizers import Tokenizer as HfTokenizer

    return HfTokenizer.from_file(str(family.path)), tokensmith.Tokenizer.from_file(family.path)


def test_singles_and_pairs_answer_as_hf(family_json: Family) -> None:
    hf, ours = both(family_json)
    for add in (True, False):
        bad = [
            t
            for t in SINGLES
            if tree(ours.encode(t, add_special_tokens=add))
            != tree(hf.encode(t, add_special_tokens=add))
        ]
        assert bad == [], (add, bad[:2])
        bad_pairs = [
            p
            for p in PAIRS
            if tree(ours.encode(*p, add_special_tokens=add))
            != tree(hf.encode(*p, add_special_tokens=add))
        ]
        assert bad_pairs == [], (add, bad_pairs[:2])


@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncated_windows_answer_as_hf(family_json: Family, direction: str) -> None:
    hf, ours = both(family_json)
    for tok in (hf, ours):
        tok.enable_truncation(18, stride=5, direction=direction)
    pair = ours.encode(MEDIUM[0], MEDIUM[1])
    # The setting does make windows, nested ones for the pair.
    assert any(o.overflowing for o in pair.overflowing)
    assert tree(pair) == tree(hf.encode(MEDIUM[0], MEDIUM[1]))
    for text in MEDIUM:
        assert tree(ours.encode(text)) == tree(hf.encode(text))
    for p in PAIRS[:6]:
        assert tree(ours.encode(*p)) == tree(hf.encode(*p))


def test_padded_results_answer_as_hf(family_json: Family) -> None:
    """Left padding moves each sequence's tokens; its pad tokens belong to no sequence."""
    hf, ours = both(family_json)
    for tok in (hf, ours):
        tok.enable_padding(direction="left", length=90, pad_id=0, pad_token="<p>")
    for p in PAIRS[:4]:
        assert tree(ours.encode(*p)) == tree(hf.encode(*p))
    assert tree(ours.encode(LINES[3])) == tree(hf.encode(LINES[3]))


def test_set_sequence_id_and_words_as_hf(family_json: Family) -> None:
    hf, ours = both(family_json)
    for text, pair in [(LINES[5], None), (LINES[6], LINES[7])]:
        mine, theirs = ours.encode(text, pair), hf.encode(text, pair)
        for sequence_id in (1, 0, 3):
            mine.set_sequence_id(sequence_id)
            theirs.set_sequence_id(sequence_id)
            assert fields(mine) == fields(theirs)
            assert answers(mine, overlapping=True) == answers(theirs, overlapping=True)
        with pytest.warns(DeprecationWarning):
            words = mine.words
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert words == theirs.words == theirs.word_ids


@pytest.mark.parametrize("growing_offsets", [True, False])
def test_merge_as_hf(family_json: Family, growing_offsets: bool) -> None:
    hf, ours = both(family_json)
    for tok in (hf, ours):
        tok.enable_truncation(40, stride=3)
    # Two of them overflow (their windows combine), the others do not.
    inputs: list[tuple[str, str | None]] = [
        (SINGLES[-1], None),
        (MEDIUM[2], None),
        (SINGLES[-1], SINGLES[-3]),
        ("", None),
        (MEDIUM[0], None),
    ]
    mine = [ours.encode(*i) for i in inputs]
    theirs = [hf.encode(*i) for i in inputs]
    merged = tokensmith.EncodingResult.merge(mine, growing_offsets=growing_offsets)
    expected = type(theirs[0]).merge(theirs, growing_offsets=growing_offsets)
    assert tree(merged) == tree(expected)
    # Merging changes none of its inputs.
    assert [tree(e) for e in mine] == [tree(e) for e in theirs]
    assert tree(tokensmith.EncodingResult.merge([])) == tree(type(theirs[0]).merge([]))


def test_sequences_survive_pickle(family_json: Family) -> None:
    _, ours = both(family_json)
    ours.enable_truncation(10, stride=2)
    enc = ours.encode(LINES[11], LINES[12])
    enc.set_sequence_id(4)
    copy = pickle.loads(pickle.dumps(enc))
    assert copy == enc
    assert tree(copy) == tree(enc)


@pytest.mark.parametrize("template", [False, True])
def test_lazy_ids_first_results_answer_as_hf(template: bool) -> None:
    """A byte-level file's results hold their ids alone until something else is read; the
    alignment methods compute the rest on first use."""
    hf = _train(LINES, template=template)
    ours = tokensmith.Tokenizer.from_str(hf.to_str())
    assert ours._core.fast_ids
    for text, pair in [(LINES[13], None), (LINES[14], LINES[15])]:
        # Each method is the first read of its own result.
        for method, args in [
            ("char_to_token", (3,)),
            ("word_to_tokens", (1, 0)),
            ("token_to_sequence", (2,)),
            ("sequence_ids", None),
            ("n_sequences", None),
        ]:
            mine, theirs = ours.encode(text, pair), hf.encode(text, pair)
            got, want = getattr(mine, method), getattr(theirs, method)
            assert (got if args is None else got(*args)) == (want if args is None else want(*args))
        assert answers(ours.encode(text, pair)) == answers(hf.encode(text, pair))


def test_bad_positions_raise_typed_errors() -> None:
    ours = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordLevel", "unk_token": "?", "vocab": {"?": 0, "a": 1}},'
        ' "pre_tokenizer": {"type": "Whitespace"}}'
    )
    enc = ours.encode("a a")
    with pytest.raises(InvalidArgumentError, match="char_pos"):
        enc.char_to_token(-1)
    with pytest.raises(InvalidArgumentError, match="sequence_index"):
        enc.word_to_tokens(0, -2)
    with pytest.raises(InvalidArgumentError, match="word_index"):
        enc.word_to_chars(2**32)
    with pytest.raises(InvalidArgumentError, match="sequence_id"):
        enc.set_sequence_id(-1)
    with pytest.raises(InvalidArgumentError, match="offsets"):
        tokensmith.EncodingResult([1], ["a"], [(0, 1), (1, 2)], [0], [1], [0], [0])
    with pytest.raises(InvalidArgumentError, match="range"):
        tokensmith.EncodingResult([1], ["a"], [(0, 1)], [0], [1], [0], [0], None, [(0, (0, 2))])
