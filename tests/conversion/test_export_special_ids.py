"""Bundled encodings exported to ``tokenizer.json`` keep tiktoken's ids in HF tokenizers and
transformers, special tokens included (cl100k's ``<|endoftext|>`` stays 100257 across the gap
at 100256).

tiktoken's o200k_harmony names id 200018 twice, ``<|endofprompt|>`` and
``<|reserved_200018|>``; one id cannot hold two texts in HF's vocabulary (a second added token
with the same id replaces the first), so the export keeps the name the id decodes to and the
tests leave the other name out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tokensmith
from tokensmith.conversion.probes import probe_texts
from tokensmith.reference import tiktoken_encoding


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base", "o200k_harmony"])
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tokensmith.save(tokensmith.get_encoding(request.param), path)
    yield request.param, path


def _specials(name: str) -> dict[str, int]:
    """The encoding's special tokens, one name per id: the name its id decodes to."""
    enc = tokensmith.get_encoding(name)
    return {
        token: i
        for token, i in enc._special_tokens.items()
        if enc.decode_single_token_bytes(i) == token.encode()
    }


def _texts(lines: list[str], specials: set[str]) -> list[str]:
    return [line.rstrip("\n") for line in lines] + probe_texts(specials)


def test_hf_tokenizers_give_tiktoken_ids(
    exported: tuple[str, Path], multilingual_lines: list[str]
) -> None:
    from tokenizers import Tokenizer

    name, path = exported
    ref = tiktoken_encoding(name)
    hf = Tokenizer.from_file(str(path))
    specials = _specials(name)
    for token in specials:
        assert hf.token_to_id(token) == ref.encode_single_token(token), token
    texts = _texts(multilingual_lines, set(specials))
    theirs = [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
    assert theirs == [ref.encode(t, allowed_special="all") for t in texts]


def test_transformers_gives_tiktoken_ids(
    exported: tuple[str, Path], multilingual_lines: list[str]
) -> None:
    from transformers import PreTrainedTokenizerFast

    name, path = exported
    ref = tiktoken_encoding(name)
    fast = PreTrainedTokenizerFast(tokenizer_file=str(path))
    specials = _specials(name)
    for token in specials:
        assert fast.convert_tokens_to_ids(token) == ref.encode_single_token(token), token
    texts = _texts(multilingual_lines[:300], set(specials))
    theirs = fast(texts, add_special_tokens=False)["input_ids"]
    assert theirs == [ref.encode(t, allowed_special="all") for t in texts]


def test_load_and_from_file_agree_on_the_export(exported: tuple[str, Path]) -> None:
    name, path = exported
    ref = tiktoken_encoding(name)
    loaded = tokensmith.load(path)
    tok = tokensmith.Tokenizer.from_file(path)
    for text in probe_texts(loaded._special_tokens):
        want = ref.encode(text, allowed_special="all")
        assert loaded.encode(text, allowed_special="all") == want, text
        assert tok.encode(text).ids == want, text
