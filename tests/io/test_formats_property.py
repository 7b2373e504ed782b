"""Round trips on random corpora: every format loads back the same vocabulary, and HF
``tokenizers`` gives tokensmith's ids on random text with our ``tokenizer.json``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import tokensmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Letters, digits, marks, CJK, emoji, apostrophes and every kind of space the patterns split on.
ALPHABET = "abAB01 \n\t'sé\u0301中文😀-.,\r\u00a0"
text = st.text(alphabet=ALPHABET, max_size=40)
pattern = st.sampled_from(
    [tokensmith.O200K_PATTERN, tokensmith.CL100K_PATTERN, tokensmith.R50K_PATTERN]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=st.lists(text, min_size=1, max_size=30).filter(lambda c: any(c)),
    extra=st.integers(min_value=0, max_value=60),
    pat_str=pattern,
    probes=st.lists(text, max_size=5),
)
def test_every_format_round_trips(
    corpus: list[str], extra: int, pat_str: str, probes: list[str]
) -> None:
    import tokenizers

    enc = tokensmith.train_bpe(
        corpus,
        vocab_size=256 + extra + 1,
        pat_str=pat_str,
        min_frequency=1,
        special_tokens=["<|endoftext|>"],
    )
    with tempfile.TemporaryDirectory() as d:
        for out in ("t.tiktoken", "tokenizer.json", "dir"):
            tokensmith.save(enc, Path(d) / out)
            loaded = tokensmith.load(Path(d) / out)
            assert loaded._mergeable_ranks == enc._mergeable_ranks
            assert loaded._special_tokens == enc._special_tokens
            assert loaded._pat_str == pat_str
        hf = tokenizers.Tokenizer.from_file(str(Path(d) / "tokenizer.json"))
        for t in corpus + probes:
            assert hf.encode(t).ids == enc.encode_ordinary(t), t
