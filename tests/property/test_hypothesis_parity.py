"""Generated strings: tiktoken's ids, and exact round trips, on anything Python can hold."""

from __future__ import annotations

from pathlib import Path

import tokensmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokensmith.reference import tiktoken_encoding

GPT2_DATA_GYM = Path(__file__).parents[1] / "data" / "gpt2_data_gym"
# All seven of tiktoken's encodings (gpt2 built by tiktoken from GPT-2's data-gym files).
ENCODINGS = {
    name: (tokensmith.get_encoding(name), tiktoken_encoding(name, data_gym_dir=GPT2_DATA_GYM))
    for name in tokensmith.registry.BUNDLED
}

# Characters that exercise the splitters: every letter case class, marks, numbers, spaces,
# contractions, emoji with modifiers, and lone surrogates.
tricky = st.sampled_from(
    list("aAsSſKk'’ \t\n\r\x0b\x0c\x85\xa0\u2028\u3000 07½²Ⅻ٣中文アʰǅéÉß\u0301\u0903\u200d.,/!-_$")
    + ["😀", "👍🏽", "\ufe0f", "\x00", "\ud800", "\udfff", "\ud83d", "\ude00", "'s", "'LL", "'Re"]
)
texts = st.one_of(
    st.text(max_size=60),
    st.lists(tricky, max_size=40).map("".join),
    st.tuples(tricky, st.integers(1, 300)).map(lambda t: t[0] * t[1]),
)

common = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same_ids(name: str, text: str) -> None:
    ours, ref = ENCODINGS[name]
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


@common
@given(texts)
def test_same_ids_as_tiktoken(text: str) -> None:
    for name in ("cl100k_base", "o200k_base", "r50k_base"):
        _same_ids(name, text)


# The other four share a vocabulary and a pattern with one of the three above, so fewer
# examples each keep the suite fast.
@settings(common, max_examples=150)
@given(texts)
def test_same_ids_as_tiktoken_other_encodings(text: str) -> None:
    for name in ("gpt2", "p50k_base", "p50k_edit", "o200k_harmony"):
        _same_ids(name, text)


def _is_valid_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@common
@given(texts)
def test_round_trip(text: str) -> None:
    for name in ("cl100k_base", "o200k_base"):
        ours = ENCODINGS[name][0]
        ids = ours.encode_ordinary(text)
        assert ours.count(text, disallowed_special=()) == len(ids)
        if _is_valid_utf8(text):
            assert ours.decode(ids) == text
            assert ours.decode_bytes(ids) == text.encode("utf-8")


@common
@given(st.lists(texts, max_size=8), st.integers(1, 4))
def test_batch_equals_singles(batch: list[str], threads: int) -> None:
    ours, _ = ENCODINGS["o200k_base"]
    assert ours.encode_ordinary_batch(batch, num_threads=threads) == [
        ours.encode_ordinary(t) for t in batch
    ]


@common
@given(st.lists(texts, max_size=8), st.integers(1, 4))
def test_numpy_batch_equals_singles(batch: list[str], threads: int) -> None:
    ours, _ = ENCODINGS["o200k_base"]
    singles = [ours.encode_ordinary(t) for t in batch]
    toks, offs = ours.encode_ordinary_batch_to_numpy(batch, num_threads=threads)
    assert [toks[offs[i] : offs[i + 1]].tolist() for i in range(len(batch))] == singles
    assert int(offs[-1]) == len(toks)
