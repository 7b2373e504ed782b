"""Corrupt or deeply nested files give typed errors that name the file (and line), and a
regex that gives up raises in every face: each case runs in a child process."""

from __future__ import annotations

import json

import pytest
import tokensmith
from hostile_helpers import expect_error, run_case

NESTED = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def saved_dir(tmp_path):
    enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="t")
    tokensmith.save(enc, tmp_path / "v")
    tokensmith.save(enc, tmp_path / "t.tiktoken")
    return tmp_path


def test_merges_txt_that_is_not_utf8(saved_dir):
    merges = saved_dir / "v" / "merges.txt"
    n_lines = len(merges.read_bytes().splitlines())
    merges.write_bytes(merges.read_bytes() + b"\xff\xfe bad\n")
    out = expect_error(
        f"import tokensmith\nresult = tokensmith.load({str(saved_dir / 'v')!r})",
        "VocabFormatError",
        contains="not UTF-8",
    )
    assert f"merges.txt:{n_lines + 1}" in out.message


@pytest.mark.parametrize(
    "target", ["tokenizer.json", "v/vocab.json", "t.tiktoken.json", "v/tokensmith.json"]
)
def test_deeply_nested_json(saved_dir, target):
    (saved_dir / target).write_text(NESTED)
    load = {
        "tokenizer.json": saved_dir / "tokenizer.json",
        "v/vocab.json": saved_dir / "v",
        "t.tiktoken.json": saved_dir / "t.tiktoken",
        "v/tokensmith.json": saved_dir / "v",
    }[target]
    out = run_case(f"import tokensmith\nresult = tokensmith.load({str(load)!r})")
    # Which format a nested .json sniffs as is the loader's choice; the error is typed.
    assert out.error in ("TokenizerJsonError", "VocabFormatError"), (out.error, out.message)
    assert out.tokensmith and "ValueError" in out.bases
    assert target.split("/")[-1] in out.message, out.message


def test_deeply_nested_json_in_from_file(tmp_path):
    (tmp_path / "tokenizer.json").write_text(NESTED)
    expect_error(
        f"import tokensmith\n"
        f"result = tokensmith.Tokenizer.from_file({str(tmp_path / 'tokenizer.json')!r})",
        "TokenizerJsonError",
        contains="not valid JSON",
    )


SPLIT = {
    "version": "1.0",
    "model": {"type": "WordLevel", "vocab": {"a": 0, "c": 1}, "unk_token": "a"},
    "pre_tokenizer": {
        "type": "Split",
        "pattern": {"Regex": "(a|aa)+(?=b)|."},
        "behavior": "Isolated",
        "invert": False,
    },
}


def test_a_split_regex_that_gives_up_raises_like_encoding():
    text = "a" * 100 + "c"
    # The Split face: it used to give one "?" token for the whole text.
    expect_error(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_str({json.dumps(SPLIT)!r})
        assert len(t.encode("aac").ids) == 3
        result = t.encode({text!r}).ids
        """,
        "PatternError",
        contains="regex_backtrack_limit",
    )
    # The Encoding face, for the same pattern.
    expect_error(
        f"""
        import tokensmith
        ranks = {{bytes([i]): i for i in range(256)}}
        enc = tokensmith.Encoding(name="x", pat_str="(a|aa)+(?=b)|.", mergeable_ranks=ranks,
                                  special_tokens={{}})
        result = enc.encode({text!r})
        """,
        "PatternError",
    )
