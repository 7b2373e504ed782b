"""Arguments the compiled core cannot convert give typed errors in the user's terms, never a
pyo3 message ("Can't extract `str` to `Vec`", "can't convert negative int to unsigned")."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sentencepiece as spm
import tokensmith
from hostile_helpers import DATA
from tokensmith.errors import ArgumentTypeError, InvalidArgumentError, UnknownTokenIdError

PYO3_WORDS = ("extract", "unsigned", "integral type", "instance of")
WORDLEVEL = {
    "version": "1.0",
    "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1}, "unk_token": "a"},
    "pre_tokenizer": {"type": "Whitespace"},
}


@pytest.fixture(scope="module")
def enc() -> tokensmith.Encoding:
    return tokensmith.get_encoding("cl100k_base")


@pytest.fixture(scope="module")
def tok() -> tokensmith.Tokenizer:
    return tokensmith.Tokenizer.from_str(json.dumps(WORDLEVEL))


def _check(call, error, words):
    with pytest.raises(error) as e:
        call()
    text = str(e.value)
    assert words in text, text
    assert not any(w in text for w in PYO3_WORDS), text


def test_encoding_decode_of_a_str(enc):
    _check(lambda: enc.decode("abc"), ArgumentTypeError, "tokens must be a list of int")
    _check(lambda: enc.decode_bytes(["a"]), ArgumentTypeError, "tokens[0] is a str")
    _check(lambda: enc.decode_single_token_bytes("a"), ArgumentTypeError, "token[0] is a str")


def test_encoding_encode_of_a_non_str(enc):
    _check(lambda: enc.encode(5), ArgumentTypeError, "text must be a str, not an int")
    _check(lambda: enc.encode_batch(["a", 5]), ArgumentTypeError, "text[1] is an int")


def test_negative_num_threads(enc, tok):
    _check(lambda: enc.encode_batch(["a"], num_threads=-1), InvalidArgumentError, "num_threads")
    _check(lambda: tok.encode_batch(["a"], num_threads=-1), InvalidArgumentError, "num_threads")
    assert issubclass(InvalidArgumentError, ValueError)


def test_tokenizer_decode_of_a_negative_id(tok):
    _check(lambda: tok.decode([-1]), UnknownTokenIdError, "token id -1")
    _check(lambda: tok.decode("ab"), ArgumentTypeError, "ids must be a list of int")
    _check(lambda: tok.encode(5), ArgumentTypeError, "is an int, not a str")
    assert tok.decode([0, 1]) == "a b"


def test_sentencepiece_decodes_numpy_arrays_as_sentencepiece_does():
    path = str(DATA / "spm" / "test_model.model")
    ours, ref = tokensmith.SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(
        model_file=path
    )
    ids = ref.encode("I saw a girl with a telescope.")
    for arg in (np.array(ids), np.array([ids, ids[::-1]]), np.int64(ids[0])):
        assert ours.decode(arg) == ref.decode(arg)


@pytest.mark.parametrize("alpha", [-1.0, float("nan"), float("inf")])
def test_sampling_alpha_is_checked_as_sentencepiece_checks_it(alpha):
    path = str(DATA / "spm" / "test_model.model")
    ref = spm.SentencePieceProcessor(model_file=path)
    with pytest.raises(RuntimeError):
        ref.encode("hello", enable_sampling=True, alpha=alpha, nbest_size=-1)
    ours = tokensmith.SentencePieceProcessor(model_file=path)
    with pytest.raises(InvalidArgumentError, match="alpha"):
        ours.encode("hello", enable_sampling=True, alpha=alpha, nbest_size=-1)
    assert ours.encode("hello", enable_sampling=True, alpha=0.0, nbest_size=-1)


def test_binding_type_errors_are_typed(enc):
    path = str(DATA / "spm" / "test_model.model")
    sp = tokensmith.SentencePieceProcessor(model_file=path)
    _check(lambda: sp.encode(["a", 5]), ArgumentTypeError, "texts[1] has type int")
    _check(lambda: enc.encode("a", allowed_special="x"), ArgumentTypeError, "allowed_special")
    _check(lambda: tokensmith.train_bpe([5], vocab_size=300), ArgumentTypeError, "texts[0]")


def test_padding_and_truncation_options_out_of_range(tok):
    from tokensmith.errors import PaddingError, TruncationError

    t = tokensmith.Tokenizer.from_str(tok.to_str())
    _check(lambda: t.enable_padding(pad_to_multiple_of=2**63), PaddingError, "pad_to_multiple_of")
    _check(lambda: t.enable_padding(length=2**64), PaddingError, "padding length")
    _check(lambda: t.enable_truncation(max_length=-1), TruncationError, "max_length")
    _check(lambda: t.enable_truncation(max_length="x"), ArgumentTypeError, "max_length")
    _check(lambda: t.id_to_token(-1), UnknownTokenIdError, "token id -1")
    assert t.id_to_token(1) == "b"
