"""Ids identical to tiktoken 0.14 on real text: every line of the committed multilingual
sample (82 languages), Python source, and whole documents."""

from __future__ import annotations

import numpy as np
import tokensmith


def test_every_multilingual_line(pair, multilingual_lines):
    ours, ref = pair
    mismatches = [
        line
        for line in multilingual_lines
        if ours.encode_ordinary(line) != ref.encode_ordinary(line)
    ]
    assert mismatches == []


def test_whole_multilingual_document(pair, multilingual_lines):
    ours, ref = pair
    text = "".join(multilingual_lines)
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == expected
    assert ours.count(text) == len(expected)
    assert ours.encode_to_numpy(text).tolist() == expected


def test_python_code(pair, code_text):
    ours, ref = pair
    assert ours.encode_ordinary(code_text) == ref.encode_ordinary(code_text)
    for chunk in code_text.split("\n\n"):
        assert ours.encode_ordinary(chunk) == ref.encode_ordinary(chunk)


def test_batches_match_single_calls(pair, multilingual_lines):
    ours, ref = pair
    docs = ["".join(multilingual_lines[i : i + 25]) for i in range(0, len(multilingual_lines), 25)]
    expected = ref.encode_ordinary_batch(docs)
    assert ours.encode_ordinary_batch(docs, num_threads=2) == expected
    assert ours.encode_batch(docs, num_threads=2) == ref.encode_batch(docs)
    toks, offs = ours.encode_ordinary_batch_to_numpy(docs, num_threads=2)
    assert offs.tolist() == list(np.cumsum([0] + [len(e) for e in expected]))
    assert toks.tolist() == [t for e in expected for t in e]


def test_special_token_policies_match(pair):
    ours, ref = pair
    text = "a<|endoftext|>b<|endofprompt|> c <|endoftext|>"
    for kwargs in [
        {"allowed_special": "all"},
        {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
        {"disallowed_special": ()},
        {"allowed_special": {"<|endofprompt|>"}, "disallowed_special": ()},
    ]:
        assert ours.encode(text, **kwargs) == ref.encode(text, **kwargs), kwargs
        assert ours.count(text, **kwargs) == len(ref.encode(text, **kwargs)), kwargs
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_vocabulary_facts_match(pair):
    ours, ref = pair
    assert ours.n_vocab == ref.n_vocab
    assert ours.max_token_value == ref.max_token_value
    assert ours.eot_token == ref.eot_token
    assert ours.special_tokens_set == ref.special_tokens_set
    assert ours.token_byte_values() == ref.token_byte_values()
    assert ours._mergeable_ranks == ref._mergeable_ranks
    for token in [0, 255, 1000, ref.eot_token]:
        assert ours.decode_single_token_bytes(token) == ref.decode_single_token_bytes(token)


def test_decode_with_offsets_matches(pair, multilingual_lines):
    ours, ref = pair
    for line in multilingual_lines[::50]:
        ids = ref.encode_ordinary(line)
        assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)


def test_encode_single_token(pair):
    ours, ref = pair
    for text in ["hello", " world", "<|endoftext|>", b"\xff"]:
        assert ours.encode_single_token(text) == ref.encode_single_token(text)


def test_get_encoding_is_cached():
    assert tokensmith.get_encoding("o200k_base") is tokensmith.get_encoding("o200k_base")


def test_long_runs_of_one_byte(pair):
    """Pieces made of a few long byte runs take their own merge path (models/bpe/runs.rs)."""
    ours, ref = pair
    texts = [
        " " * 3000,
        "a" * 2999,
        "-" * 1000 + "=" * 1001,
        "\n" * 300 + " " * 701 + "x",
        "\t" * 500 + " " * 33,
        "ab" * 40 + "b" * 500,
        "0" * 3001,
        "!" * 999 + "?" * 64,
        "Z" * 257 + "z" * 258,
    ]
    for text in texts:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), repr(text[:12])
