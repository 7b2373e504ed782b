"""``load()`` and the format's own loader agree on the files the hardening issue named: an empty
file is refused rather than loaded as a 0-token tokenizer, an unknown key is refused by both,
and a byte-level ``tokenizer.json`` whose split regex leaves text unmatched keeps that text in
both. Each case runs in a child process."""

from __future__ import annotations

import json

import pytest
import tokensmith
from hostile_helpers import expect_error, expect_result


@pytest.mark.parametrize("name", ["empty.json", "empty.tiktoken"])
def test_an_empty_file_is_refused(tmp_path, name):
    (tmp_path / name).write_bytes(b"")
    out = expect_error(
        f"import tokensmith\nresult = tokensmith.load({str(tmp_path / name)!r})",
        "VocabFormatError",
        contains="empty" if name.endswith(".json") else "no token",
    )
    assert name in out.message


@pytest.fixture
def cl100k_json(tmp_path):
    path = tmp_path / "cl.json"
    tokensmith.save(tokensmith.get_encoding("cl100k_base"), path)
    return path


@pytest.mark.parametrize("loader", ["tokensmith.load", "tokensmith.Tokenizer.from_file"])
def test_an_unknown_key_is_refused_by_both_loaders(tmp_path, cl100k_json, loader):
    doc = json.loads(cl100k_json.read_text(encoding="utf-8"))
    doc["bogus_key"] = 1
    path = tmp_path / "bogus.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    expect_error(
        f"import tokensmith\nresult = {loader}({str(path)!r})",
        "TokenizerJsonError",
        contains="bogus_key",
    )


def test_text_the_split_regex_does_not_match_is_kept(tmp_path, cl100k_json):
    doc = json.loads(cl100k_json.read_text(encoding="utf-8"))
    doc["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": "[a-z]+"}
    path = tmp_path / "narrow.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    text = "hello World 12!"
    # Both loaders give the same ids, and they decode to the whole text.
    expect_result(
        f"""
        import tokensmith
        a = tokensmith.load({str(path)!r})
        b = tokensmith.Tokenizer.from_file({str(path)!r})
        ids_a = a.encode({text!r}) if isinstance(a, tokensmith.Encoding) else a.encode({text!r}).ids
        ids_b = b.encode({text!r}).ids
        result = (ids_a == ids_b, b.decode(ids_b))
        """,
        repr((True, text)),
    )
