"""Bad input gets a clear, typed exception that names what is wrong, and never a crash."""

from __future__ import annotations

import gzip

import pytest
import tokensmith
from tokensmith.errors import (
    DisallowedSpecialTokenError,
    InputNotFoundError,
    InvalidVocabError,
    PatternError,
    UnknownEncodingError,
    UnknownModelError,
    UnknownTokenIdError,
    VocabFormatError,
)


def test_unknown_encoding_lists_known_names():
    with pytest.raises(UnknownEncodingError) as e:
        tokensmith.get_encoding("cl200k")
    assert "cl100k_base" in str(e.value) and "o200k_base" in str(e.value)
    assert isinstance(e.value, ValueError)
    assert "r50k_base" in str(e.value) and "load_tiktoken" in str(e.value)


def test_unknown_model():
    with pytest.raises(UnknownModelError, match="no-such-model"):
        tokensmith.encoding_for_model("no-such-model")
    assert tokensmith.encoding_for_model("gpt-4o-mini").name == "o200k_base"
    assert tokensmith.encoding_for_model("gpt-3.5-turbo").name == "cl100k_base"


@pytest.mark.parametrize(
    ("content", "line", "what"),
    [
        (b"YQ== 0\nYg== 1\nYWI= x\n", 3, "rank"),
        (b"YQ== 0\n\nnot base64! 1\n", 3, "base64"),
        (b"YQ== 0\nYg==\n", 2, "expected"),
    ],
)
@pytest.mark.parametrize("gz", [False, True])
def test_corrupt_tiktoken_file_names_file_and_line(tmp_path, content, line, what, gz):
    path = tmp_path / ("v.tiktoken.gz" if gz else "v.tiktoken")
    path.write_bytes(gzip.compress(content) if gz else content)
    for load in (tokensmith.load_tiktoken, tokensmith.load_tiktoken_bpe):
        with pytest.raises(VocabFormatError) as e:
            load(path)
        assert f"{path}:{line}:" in str(e.value)
        assert what in str(e.value)
        assert e.value.line == line


def test_missing_file(tmp_path):
    with pytest.raises(InputNotFoundError, match="nope.tiktoken"):
        tokensmith.load_tiktoken(tmp_path / "nope.tiktoken")
    with pytest.raises(FileNotFoundError):
        tokensmith.load_tiktoken_bpe(tmp_path / "nope.tiktoken")


def test_decode_out_of_range_names_the_id():
    enc = tokensmith.get_encoding("cl100k_base")
    for bad in (100261, 10**9, -1, 2**40):
        with pytest.raises(UnknownTokenIdError, match=str(bad)):
            enc.decode([1, bad])
        assert isinstance(UnknownTokenIdError("x"), KeyError)
    with pytest.raises(UnknownTokenIdError, match="100261"):
        enc.decode_single_token_bytes(100261)


def test_wrong_argument_types():
    enc = tokensmith.get_encoding("o200k_base")
    with pytest.raises(TypeError):
        enc.encode(b"bytes are not text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        enc.encode_ordinary(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        enc.decode(["a"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        enc.encode("x", allowed_special=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        enc.encode("x", allowed_special="some")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tokensmith.get_encoding(7)  # type: ignore[arg-type]


def test_disallowed_special_message_shows_the_fix():
    enc = tokensmith.get_encoding("cl100k_base")
    with pytest.raises(DisallowedSpecialTokenError) as e:
        enc.encode("hello <|endoftext|>")
    message = str(e.value)
    assert "'<|endoftext|>'" in message
    assert "allowed_special={'<|endoftext|>'}" in message
    assert "disallowed_special=()" in message
    assert isinstance(e.value, ValueError)
    with pytest.raises(DisallowedSpecialTokenError):
        enc.encode_batch(["fine", "bad <|fim_prefix|>"])
    with pytest.raises(DisallowedSpecialTokenError):
        enc.count("<|endofprompt|>")


def test_decode_strict_raises_on_partial_utf8():
    enc = tokensmith.get_encoding("o200k_base")
    partial = (
        enc.encode("中")[:1] if len(enc.encode("中")) > 1 else [enc.encode_single_token(b"\xe4")]
    )
    with pytest.raises(UnicodeDecodeError):
        enc.decode(partial, errors="strict")
    assert enc.decode(partial) == "\ufffd"


def test_inconsistent_vocabularies_are_rejected():
    with pytest.raises(InvalidVocabError, match="share"):
        tokensmith.Encoding(
            "t", pat_str=r"\w+", mergeable_ranks={b"a": 0, b"b": 0}, special_tokens={}
        )
    with pytest.raises(InvalidVocabError, match="already"):
        tokensmith.Encoding(
            "t", pat_str=r"\w+", mergeable_ranks={b"a": 0}, special_tokens={"<s>": 0}
        )
    with pytest.raises(InvalidVocabError, match="dense"):
        tokensmith.Encoding("t", pat_str=r"\w+", mergeable_ranks={b"a": 100_000}, special_tokens={})
    with pytest.raises(InvalidVocabError, match="too large"):
        tokensmith.Encoding("t", pat_str=r"\w+", mergeable_ranks={b"a": 2**31}, special_tokens={})
    with pytest.raises(InvalidVocabError, match="explicit_n_vocab"):
        tokensmith.Encoding(
            "t", pat_str=r".", mergeable_ranks={b"a": 0}, special_tokens={}, explicit_n_vocab=5
        )


def test_bad_pattern():
    with pytest.raises(PatternError, match="does not compile"):
        tokensmith.Encoding("t", pat_str="(unclosed", mergeable_ranks={b"a": 0}, special_tokens={})


def test_missing_byte_is_an_error_not_a_crash():
    enc = tokensmith.Encoding(
        "t", pat_str=r"\w+", mergeable_ranks={b"a": 0, b"b": 1}, special_tokens={}
    )
    with pytest.raises(tokensmith.MissingByteError, match="0x63"):
        enc.encode_ordinary("abc")
