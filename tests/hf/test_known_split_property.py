"""Generated strings through the Llama-3- and Qwen2-style files, whose ``Split`` regexes run on
tokensmith's hand-written splitter (``hf/known_split.rs``): every field of the encoding, with
and without special tokens, is HF ``tokenizers``' (Oniguruma) on every string.

The alphabet mixes each character class the patterns tell apart, the contraction letters and
their case-folding cousins (``ſ`` folds to ``s``; ``K`` is the Kelvin sign; ``ﬅ`` folds to
two letters), and runs of whitespace with and without line breaks, at the end of the text too.
Lone surrogates are left out: HF's Python binding refuses them before its pipeline runs.
"""

from __future__ import annotations

import pytest
import tokensmith
from family_builders import regex_bpe_style
from hf_parity import assert_texts_same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

tricky = st.sampled_from(
    list("aZsSſtTrReEvVmMlLdDkK'’` \t\n\r\x0b\x0c\x85\xa0\u2029\u3000 19٣²½Ⅻ中ひʰǅüß")
    + list("\u0300\u094d\u200c.?-/#€\x01Жфกعकﬅİı")
    + ["😀", "\ufe0f", "\r\n", " \n ", "'s", "'LL", "'ſ", "  ", "123456"]
)
texts = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=50),
    st.lists(tricky, max_size=40).map("".join),
)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, tokensmith.Tokenizer]]:
    from tokenizers import Tokenizer as HfTokenizer

    out = []
    for family in ("llama3", "qwen2"):
        path = regex_bpe_style(family, tmp_path_factory.mktemp(family))
        out.append((HfTokenizer.from_file(str(path)), tokensmith.Tokenizer.from_file(path)))
    return out


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(texts)
def test_same_as_hf(pairs: list[tuple[object, tokensmith.Tokenizer]], text: str) -> None:
    for hf, ours in pairs:
        assert_texts_same(ours, hf, [text])


def test_whitespace_runs_at_the_end(pairs: list[tuple[object, tokensmith.Tokenizer]]) -> None:
    """Where the patterns differ from cl100k's: a final run with a break is cut after it."""
    for hf, ours in pairs:
        assert_texts_same(ours, hf, ["x \n\t\n  ", "x\n", "x  ", "x \r\n", "\n\n", "x\n y\n"])
