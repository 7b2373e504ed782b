"""Very long tokens and inflating files load in near-linear time and bounded memory: each
case runs in a child process with a bound far above its normal time (see hostile_helpers)."""

from __future__ import annotations

import base64
import gzip
import json

import pytest
import sentencepiece as spm
from hostile_helpers import DATA, expect_error, expect_result
from sentencepiece import sentencepiece_model_pb2

WORDLEVEL = {
    "version": "1.0",
    "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"},
    "pre_tokenizer": {"type": "Whitespace"},
}


def _byte_lines() -> list[str]:
    return [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]


def test_a_640_kb_token_in_a_tiktoken_file(tmp_path):
    token = b"a" * 640_000
    path = tmp_path / "long.tiktoken"
    path.write_text("\n".join([*_byte_lines(), f"{base64.b64encode(token).decode()} 256"]))
    # Before: 30 s, as every cut of the token was hashed; now a fraction of a second.
    expect_result(
        f"""
        import tokensmith
        enc = tokensmith.load({str(path)!r})
        result = (enc.n_vocab, enc.encode("a" * 640_000), len(enc.encode("a" * 640_001)))
        """,
        repr((257, [256], 640_001)),
        bound=10,
    )


def test_a_100_000_character_added_token():
    # Before: 41 s building the matcher's DFA; now its linear NFA.
    expect_result(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_str({json.dumps(WORDLEVEL)!r})
        t.add_tokens(["a" * 100_000])
        result = t.encode("a" * 100_000 + " a").ids
        """,
        repr([1, 0]),
        bound=10,
    )


def test_a_40_000_character_added_token_in_tokenizer_json(tmp_path):
    doc = dict(WORDLEVEL)
    doc["added_tokens"] = [
        {"id": 1, "content": "b" * 40_000, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": False}
    ]  # fmt: skip
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc))
    expect_result(
        f"""
        import tokensmith
        t = tokensmith.Tokenizer.from_file({str(path)!r})
        result = t.encode("a " + "b" * 40_000).ids
        """,
        repr([0, 1]),
        bound=10,
    )


def test_a_gzip_bomb_tiktoken_stops_at_the_inflate_limit(tmp_path):
    path = tmp_path / "bomb.tiktoken"
    # 400 gzip members of 1 MiB of newlines each: 400 MiB in about 400 KB.
    path.write_bytes(gzip.compress(b"\n" * (1 << 20), compresslevel=9) * 400)
    expect_error(
        f"import tokensmith\nresult = tokensmith.load({str(path)!r})",
        "LimitError",
        contains="max_inflated_bytes",
        bound=20,
    )


def _model_with_piece(tmp_path, length: int) -> str:
    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString((DATA / "spm" / "test_model.model").read_bytes())
    model.pieces[-1].piece = "x" * length
    path = tmp_path / f"long{length}.model"
    path.write_bytes(model.SerializeToString())
    return str(path)


def test_a_model_piece_sentencepiece_refuses_is_refused(tmp_path):
    path = _model_with_piece(tmp_path, 40_000)
    with pytest.raises(Exception, match="piece is too long"):
        spm.SentencePieceProcessor(model_file=path)
    expect_error(
        f"import tokensmith\nresult = tokensmith.SentencePieceProcessor(model_file={path!r})",
        "ModelFormatError",
        contains="40000 bytes long",
    )


def test_the_longest_piece_sentencepiece_accepts_loads(tmp_path):
    path = _model_with_piece(tmp_path, 7_999)
    ref = spm.SentencePieceProcessor(model_file=path)
    text = "x" * 7_999 + " hello"
    expect_result(
        f"""
        import tokensmith
        sp = tokensmith.SentencePieceProcessor(model_file={path!r})
        result = sp.encode({text!r})
        """,
        repr(ref.encode(text)),
    )
