"""The tokensmith.Tokenizer API on a tiny hand-written tokenizer.json."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import tokensmith

DOC = {
    "added_tokens": [
        {"id": 0, "content": "[UNK]", "special": True},
        {"id": 1, "content": "[CLS]", "special": True},
        {"id": 2, "content": "[SEP]", "special": True},
    ],
    "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}]},
    "pre_tokenizer": {"type": "WhitespaceSplit"},
    "model": {
        "type": "WordPiece",
        "unk_token": "[UNK]",
        "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "he": 3, "##llo": 4, "you": 5},
    },
    "post_processor": {"type": "BertProcessing", "cls": ["[CLS]", 1], "sep": ["[SEP]", 2]},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
}


@pytest.fixture
def tok() -> tokensmith.Tokenizer:
    return tokensmith.Tokenizer.from_str(json.dumps(DOC))


def test_encode_pair(tok: tokensmith.Tokenizer) -> None:
    enc = tok.encode("HELLO", pair="you x")
    assert enc.tokens == ["[CLS]", "he", "##llo", "[SEP]", "you", "[UNK]", "[SEP]"]
    assert enc.type_ids == [0, 0, 0, 0, 1, 1, 1]
    assert enc.offsets == [(0, 0), (0, 2), (2, 5), (0, 0), (0, 3), (4, 5), (0, 0)]
    assert enc.word_ids == [None, 0, 0, None, 0, 1, None]
    assert enc.special_tokens_mask == [1, 0, 0, 1, 0, 0, 1]
    assert enc.attention_mask == [1] * 7
    assert len(enc) == 7
    assert tok.decode(enc.ids) == "hello you"
    assert tok.decode(enc.ids, skip_special_tokens=False) == "[CLS] hello [SEP] you [UNK] [SEP]"
    assert tok.encode("hello", add_special_tokens=False).ids == [3, 4]


def test_lookups(tok: tokensmith.Tokenizer) -> None:
    assert tok.token_to_id("##llo") == 4
    assert tok.id_to_token(5) == "you"
    assert tok.id_to_token(99) is None
    assert tok.get_vocab()["[SEP]"] == 2
    assert tok.get_vocab_size() == 6


def test_threads_share_one_tokenizer(tok: tokensmith.Tokenizer) -> None:
    results: list[list[int]] = []

    def work() -> None:
        results.append(tok.encode("hello you " * 1000).ids)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({tuple(r) for r in results}) == 1


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(tokensmith.InputNotFoundError):
        tokensmith.Tokenizer.from_file(tmp_path / "missing.json")
    with pytest.raises(tokensmith.TokenizerJsonError) as info:
        tokensmith.Tokenizer.from_str("{not json")
    assert info.value.json_path == "$"
    doc = json.loads(json.dumps(DOC))
    # Every HF normalizer runs (Nmt included); a type HF lacks is refused the same way.
    doc["normalizer"]["normalizers"][1]["type"] = "NmtNfkcCf"
    with pytest.raises(tokensmith.UnsupportedComponentError) as unsupported:
        tokensmith.Tokenizer.from_str(json.dumps(doc))
    assert unsupported.value.json_path == "normalizer.normalizers[1].type"
    assert "NmtNfkcCf" in str(unsupported.value)
    assert isinstance(unsupported.value, NotImplementedError)
    assert isinstance(unsupported.value, ValueError)


def test_encoding_result_behaves_as_a_value(tok: tokensmith.Tokenizer) -> None:
    import copy
    import pickle

    enc = tok.encode("HELLO", pair="you x")
    assert isinstance(enc, tokensmith.EncodingResult)
    assert enc == tok.encode("hello", pair="YOU x")
    assert enc != tok.encode("hello")
    assert enc != enc.ids
    assert pickle.loads(pickle.dumps(enc)) == enc
    assert copy.deepcopy(enc) == enc
    with pytest.raises(AttributeError):
        enc.ids = [1]  # type: ignore[misc]
    short = tok.encode("he", add_special_tokens=False)
    assert repr(short) == (
        "EncodingResult(ids=[3], tokens=['he'], offsets=[(0, 2)], type_ids=[0], "
        "attention_mask=[1], special_tokens_mask=[0], word_ids=[0])"
    )
    # Each read gives a fresh list: changing it does not change the result.
    ids = enc.ids
    ids.append(9)
    assert len(enc.ids) == len(enc) == 7


def test_encoding_result_from_lists() -> None:
    enc = tokensmith.EncodingResult([5, 6], ["a", "b"], [], [0, 1], [1, 1], [0, 0], [0, None])
    assert (enc.ids, enc.tokens, enc.offsets, enc.word_ids) == ([5, 6], ["a", "b"], [], [0, None])
    assert len(enc) == 2
    # Ids are unsigned 32-bit, as in the Rust encoding.
    with pytest.raises(OverflowError):
        tokensmith.EncodingResult([-1], [], [], [], [], [], [])
