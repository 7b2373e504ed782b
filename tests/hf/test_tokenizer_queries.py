"""``from_buffer``, ``num_special_tokens_to_add``, ``get_added_tokens_decoder`` and the
pipeline slots read from tokenizer files, against HF: BERT, GPT-2, RoBERTa, Llama-2, and Llama-3
style files built offline (a Unigram file's slots: ``test_nmt_unigram_file.py``)."""

from __future__ import annotations

import json

import pytest
import tokenizers
import tokensmith
from family_fixture import Family, family_fixture

family_json = family_fixture(["bert", "gpt2", "roberta", "llama2", "llama3"])

FLAGS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")


def flags(token: object) -> tuple[object, ...]:
    return tuple(getattr(token, f) for f in FLAGS)


def test_queries_match_hf(family_json: Family, multilingual_lines: list[str]) -> None:
    data = family_json.path.read_bytes()
    ours = tokensmith.Tokenizer.from_buffer(data)
    hf = tokenizers.Tokenizer.from_buffer(data)
    for t in (ours, hf):
        t.add_tokens(["<new>", tokenizers.AddedToken("<x>", lstrip=True)])
        t.add_special_tokens(["<sp>"])
    for pair in (False, True):
        assert ours.num_special_tokens_to_add(pair) == hf.num_special_tokens_to_add(pair)
    a, b = ours.get_added_tokens_decoder(), hf.get_added_tokens_decoder()
    assert {i: flags(t) for i, t in a.items()} == {i: flags(t) for i, t in b.items()}
    for slot in ("normalizer", "pre_tokenizer", "model", "decoder", "post_processor"):
        mine, theirs = getattr(ours, slot), getattr(hf, slot)
        assert (mine is None) == (theirs is None), slot
        if mine is not None:
            assert json.loads(mine.__getstate__()) == json.loads(theirs.__getstate__()), slot
    for line in multilingual_lines[::50]:
        assert ours.encode(line).ids == hf.encode(line).ids


def test_from_buffer_refuses_bytes_that_are_not_utf8() -> None:
    with pytest.raises(tokensmith.TokenizerJsonError, match="UTF-8"):
        tokensmith.Tokenizer.from_buffer(b"\xff{}")
