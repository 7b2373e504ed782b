"""``Tokenizer.post_process``, ``encode_batch_fast`` and ``async_encode_batch_fast`` compared
with HF ``tokenizers`` on the committed multilingual text, every field and alignment answer of
the result and of its overflowing encodings (:mod:`alignment_checks`).

``post_process`` is fed what callers feed it: results encoded without special tokens, results
that were already post-processed (special tokens, a pair's type ids and sequences), results
padded on either side, empty ones, and results that already overflow; the tokenizer truncates
(with a stride) and pads or not. ``encode_batch_fast`` leaves the input's tokens empty, with
offsets ``(0, 0)``, no word and type id 0, and must do so exactly where HF does: added tokens,
pairs without a post-processor, truncation windows, padding, pre-tokenized input.

The files are those of :mod:`hf_families` (WordPiece, byte-level BPE, Metaspace BPE, Unigram)
and the MiniLM file without a post-processor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from alignment_checks import tree
from family_fixture import Family, family_fixture
from hf_families import OVERFLOW_FAMILIES
from tokensmith.errors import ArgumentTypeError

DATA = Path(__file__).parent.parent / "data"
LINES = [
    line
    for line in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:200]
    if line.strip()
]
SHORT = sorted(LINES, key=len)[:6]
LONG = sorted(LINES, key=len)[-2:]
PAIRS = [(LINES[20], LINES[21]), (SHORT[0], LONG[0]), ("", LINES[22]), (LINES[23], "")]
BATCH: list[Any] = [*LINES[:10], "", *PAIRS, LONG[1]]


family_json = family_fixture([*OVERFLOW_FAMILIES, "bert-bare"])


def both(family: Family) -> tuple[Any, Any]:
    from tokenizers import Tokenizer as HfTokenizer

    return HfTokenizer.from_file(str(family.path)), tokensmith.Tokenizer.from_file(family.path)


def inputs(tok: Any) -> list[tuple[Any, Any]]:
    """``(encoding, pair)`` arguments for post_process, made by ``tok`` itself."""
    bare = [tok.encode(t, add_special_tokens=False) for t in (LINES[30], LINES[31], "")]
    processed = tok.encode(LINES[32], LINES[33])
    padded_right, padded_left = tok.encode(LINES[34]), tok.encode(SHORT[1], SHORT[2])
    padded_right.pad(len(padded_right.ids) + 3, pad_id=1, pad_token="<x>")
    padded_left.pad(len(padded_left.ids) + 4, direction="left", pad_type_id=1)
    overflowing = tok.encode(LONG[0], add_special_tokens=False)
    overflowing.truncate(9, stride=2)
    return [
        (bare[0], None),
        (bare[0], bare[1]),
        (bare[2], bare[2]),
        (bare[2], None),
        (processed, None),
        (bare[1], processed),
        (padded_right, padded_left),
        (padded_left, None),
        (overflowing, bare[0]),
        (bare[1], overflowing),
    ]


def configure(tok: Any, truncation: tuple[int, int] | None, padding: int | None) -> None:
    if truncation is not None:
        tok.enable_truncation(truncation[0], stride=truncation[1])
    if padding is not None:
        tok.enable_padding(length=padding, pad_id=2, pad_token="<pad>")


SETTINGS = [(None, None), ((14, 4), None), (None, 70), ((24, 0), 30), ((3, 0), None)]


@pytest.mark.parametrize(("truncation", "padding"), SETTINGS)
def test_post_process_as_hf(
    family_json: Family, truncation: tuple[int, int] | None, padding: int | None
) -> None:
    hf, ours = both(family_json)
    # The inputs are made before truncation and padding are set, by each library itself.
    pairs = list(zip(inputs(hf), inputs(ours), strict=True))
    assert_inputs_same(pairs)
    configure(hf, truncation, padding)
    configure(ours, truncation, padding)
    for i, ((theirs, theirs_pair), (mine, mine_pair)) in enumerate(pairs):
        for add in (True, False):
            want = outcome(hf.post_process, theirs, theirs_pair, add)
            assert outcome(ours.post_process, mine, mine_pair, add) == want, (i, add)
    # post_process changes none of its inputs.
    assert_inputs_same(pairs)


def assert_inputs_same(pairs: list[tuple[tuple[Any, Any], tuple[Any, Any]]]) -> None:
    for (theirs, theirs_pair), (mine, mine_pair) in pairs:
        assert tree(mine) == tree(theirs)
        assert (theirs_pair is None) == (mine_pair is None)
        if theirs_pair is not None:
            assert tree(mine_pair) == tree(theirs_pair)


def outcome(call: Any, *args: Any) -> Any:
    """The result's tree, or "error" when the call fails (HF's panics included). Inputs that
    were post-processed before carry sequences that the new ones overlap: see
    :func:`alignment_checks.answers`."""
    try:
        return tree(call(*args), overlapping=True)
    except BaseException as e:  # HF's PanicException derives from BaseException.
        if isinstance(e, KeyboardInterrupt):
            raise
        return "error"


@pytest.mark.parametrize(("truncation", "padding"), SETTINGS[:4])
def test_encode_batch_fast_as_hf(
    family_json: Family, truncation: tuple[int, int] | None, padding: int | None
) -> None:
    hf, ours = both(family_json)
    configure(hf, truncation, padding)
    configure(ours, truncation, padding)
    for add in (True, False):
        want = [tree(e) for e in hf.encode_batch_fast(BATCH, add_special_tokens=add)]
        got = [tree(e) for e in ours.encode_batch_fast(BATCH, add_special_tokens=add)]
        assert got == want, add
        # The ids are encode_batch's.
        ids = [e.ids for e in ours.encode_batch(BATCH, add_special_tokens=add)]
        assert [e[0][0] for e in got] == ids


def test_encode_batch_fast_with_added_and_pretokenized_input(family_json: Family) -> None:
    hf, ours = both(family_json)
    for tok in (hf, ours):
        tok.add_tokens(["[NEW]", "zzq"])
        tok.add_special_tokens(["<sp>"])
    texts = [f"{LINES[40]} [NEW] x<sp>", ("zzq [NEW]", LINES[41])]
    want = [tree(e) for e in hf.encode_batch_fast(texts)]
    assert [tree(e) for e in ours.encode_batch_fast(texts)] == want
    words: list[Any] = [LINES[42].split(), (LINES[43].split(), ["[NEW]", "a"]), []]
    want = [tree(e) for e in hf.encode_batch_fast(words, is_pretokenized=True)]
    assert [tree(e) for e in ours.encode_batch_fast(words, is_pretokenized=True)] == want


def test_async_encode_batch_fast(family_json: Family) -> None:
    hf, ours = both(family_json)

    async def run(tok: Any) -> list[Any]:
        return [tree(e) for e in await tok.async_encode_batch_fast(BATCH)]

    assert asyncio.run(run(ours)) == asyncio.run(run(hf))


def test_bad_arguments_raise_typed_errors(family_json: Family) -> None:
    hf, ours = both(family_json)
    enc = ours.encode(LINES[0])
    with pytest.raises(ArgumentTypeError, match="encoding"):
        ours.post_process(hf.encode(LINES[0]))
    with pytest.raises(ArgumentTypeError, match="pair"):
        ours.post_process(enc, [1, 2])


def test_sentencepiece_model_tokenizers_take_both_calls() -> None:
    """A ``.model`` tokenizer has no post-processor, truncation or padding: ``post_process``
    of a pair joins the two results, each its own sequence (HF's ``default_process``), and
    ``encode_batch_fast`` keeps ``encode_batch``'s ids and sequences with the rest blank."""
    from tokensmith.sentencepiece_backend import SentencePieceTokenizer

    tok = SentencePieceTokenizer.from_file(DATA / "spm" / "test_model.model")
    a, b = tok.encode(SHORT[3]), tok.encode(SHORT[4])
    joined = tok.post_process(a, b)
    assert joined.ids == a.ids + b.ids
    assert joined.offsets == a.offsets + b.offsets
    assert joined.sequence_ids == [0] * len(a.ids) + [1] * len(b.ids)
    assert tok.post_process(a).ids == a.ids
    batch: list[Any] = [SHORT[3], (SHORT[3], SHORT[4])]
    fast, full = tok.encode_batch_fast(batch), tok.encode_batch(batch)
    assert [e.ids for e in fast] == [e.ids for e in full]
    assert [e.sequence_ids for e in fast] == [e.sequence_ids for e in full]
    assert fast[1].sequence_ids == joined.sequence_ids
    assert {t for e in fast for t in e.tokens} == {""}
    assert fast[1].type_ids == [0] * len(joined.ids)
