"""Ids, padding and normalizer growth far past any real tokenizer's raise LimitError, never
abort the process: each case runs in a child process (see hostile_helpers)."""

from __future__ import annotations

import json

import pytest
import tokensmith
import tokensmith.limits as limits
from hostile_helpers import expect_error, expect_result
from tokensmith import _core

WORDLEVEL = {
    "version": "1.0",
    "model": {"type": "WordLevel", "vocab": {"a": 0, "[PAD]": 1}, "unk_token": "a"},
    "pre_tokenizer": {"type": "Whitespace"},
}


def _tokenizer_json(**parts: object) -> str:
    return json.dumps({**WORDLEVEL, **parts})


def test_python_defaults_mirror_the_core():
    for name, default in limits.DEFAULTS.items():
        if name.startswith("template_"):
            continue
        assert _core.get_limit(name) == default, name


def test_set_limits_checks_names_and_values():
    with pytest.raises(tokensmith.LimitError, match="unknown limit"):
        limits.set_limits(max_nothing=3)
    with pytest.raises(tokensmith.LimitError, match="positive"):
        limits.set_limits(max_token_id=0)
    with pytest.raises(tokensmith.LimitError, match="integer"):
        limits.set_limits(max_token_id=2.5)


def test_special_token_id_4e9_in_encoding():
    expect_error(
        """
        import tokensmith
        ranks = {bytes([i]): i for i in range(256)}
        tokensmith.Encoding(name="x", pat_str=r"\\w+|.", mergeable_ranks=ranks,
                            special_tokens={"<s>": 4_000_000_000})
        result = None
        """,
        "LimitError",
        contains="max_token_id",
    )


def test_special_token_id_4e9_in_tiktoken_sidecar(tmp_path):
    enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="t")
    path = tmp_path / "t.tiktoken"
    tokensmith.save(enc, path)
    side = json.loads((tmp_path / "t.tiktoken.json").read_text())
    side["special_tokens"] = {"<s>": 4_000_000_000}
    (tmp_path / "t.tiktoken.json").write_text(json.dumps(side))
    expect_error(
        f"import tokensmith\nresult = tokensmith.load({str(path)!r})",
        "LimitError",
        contains="set_limits(max_token_id=",
    )


def test_vocab_id_2e9_in_tokenizer_json():
    vocab = {"a": 0, "[PAD]": 1, "zz": 2_000_000_000}
    doc = _tokenizer_json(model={"type": "WordLevel", "vocab": vocab, "unk_token": "a"})
    expect_error(
        f"import tokensmith\nresult = tokensmith.Tokenizer.from_str({doc!r})",
        "LimitError",
        contains="max_token_id",
    )


def test_vocab_json_id_2e9(tmp_path):
    enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="t")
    tokensmith.save(enc, tmp_path / "v")
    vocab = json.loads((tmp_path / "v" / "vocab.json").read_text())
    vocab[max(vocab, key=vocab.get)] = 2_000_000_000
    (tmp_path / "v" / "vocab.json").write_text(json.dumps(vocab))
    out = expect_error(
        f"import tokensmith\nresult = tokensmith.load({str(tmp_path / 'v')!r})",
        "InvalidVocabError",
        contains="2000000000",
    )
    assert "too large" in out.message


PAD = {"direction": "Right", "pad_id": 1, "pad_type_id": 0, "pad_token": "[PAD]"}


@pytest.mark.parametrize(
    ("setup", "option"),
    [
        ("t.enable_padding(length=10**12)", "padding length"),
        ("t.enable_padding(pad_to_multiple_of=10**12)", "padding pad_to_multiple_of"),
    ],
)
def test_enable_padding_far_past_the_limit(setup, option):
    expect_error(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_str({_tokenizer_json()!r})
        {setup}
        result = t.encode("a").ids[:3]
        """,
        "LimitError",
        contains=f"{option} is 1000000000000",
    )


@pytest.mark.parametrize(
    ("padding", "option"),
    [
        ({"strategy": {"Fixed": 10**12}, "pad_to_multiple_of": None}, "strategy.Fixed"),
        ({"strategy": "BatchLongest", "pad_to_multiple_of": 2**63}, "pad_to_multiple_of"),
    ],
)
def test_padding_in_tokenizer_json_far_past_the_limit(padding, option):
    doc = _tokenizer_json(padding={**PAD, **padding})
    expect_error(
        f"import tokensmith\nresult = tokensmith.Tokenizer.from_str({doc!r})",
        "LimitError",
        contains=f"padding {option}",
    )


def test_padding_within_a_raised_limit_works():
    expect_result(
        f"""
        import tokensmith
        tokensmith.limits.set_limits(max_padded_length=2**23)
        t = tokensmith.Tokenizer.from_str({_tokenizer_json()!r})
        t.enable_padding(length=5_000_000, pad_id=1)
        ids = t.encode("a").ids
        result = (len(ids), ids[:2], sum(ids))
        """,
        repr((5_000_000, [0, 1], 4_999_999)),
        bound=60,
    )


def test_chained_replace_normalizers_stop_at_the_growth_limit():
    step = {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * 100}
    doc = _tokenizer_json(normalizer={"type": "Sequence", "normalizers": [step] * 6})
    expect_error(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_str({doc!r})
        result = t.encode("a").ids
        """,
        "LimitError",
        contains="max_normalized_growth",
    )


def test_one_replace_within_the_growth_limit_gives_the_tokens():
    step = {"type": "Replace", "pattern": {"String": "a"}, "content": "a " * 100}
    doc = _tokenizer_json(normalizer=step)
    expect_result(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_str({doc!r})
        result = t.encode("a").ids
        """,
        repr([0] * 100),
    )


def test_token_length_limit_in_add_tokens_and_tokenizer_json():
    added = [{"id": 2, "content": "x" * 2000, "special": True}]
    long_vocab = {"a": 0, "[PAD]": 1, "y" * 2000: 2}
    with_added = _tokenizer_json(added_tokens=added)
    with_vocab = _tokenizer_json(model={"type": "WordLevel", "vocab": long_vocab, "unk_token": "a"})
    for setup, where in [
        (f"tokensmith.Tokenizer.from_str({_tokenizer_json()!r}).add_tokens(['z' * 2000])",
         "an added token"),
        (f"tokensmith.Tokenizer.from_str({with_added!r})", "added_tokens[0].content"),
        (f"tokensmith.Tokenizer.from_str({with_vocab!r})", "a token of model.vocab"),
    ]:  # fmt: skip
        expect_error(
            f"""
            import tokensmith
            tokensmith.limits.set_limits(max_token_bytes=1000)
            result = {setup}
            """,
            "LimitError",
            contains=where,
        )
