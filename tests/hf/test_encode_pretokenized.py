"""``encode(..., is_pretokenized=True)`` against HF: every field on words of the
multilingual lines (cut on spaces, and on spaces kept inside words), alone and as pairs,
with added tokens, truncation and padding, on BERT, GPT-2, RoBERTa, Llama-2 and Llama-3
style files."""

from __future__ import annotations

import pytest
import tokenizers
import tokensmith
from family_fixture import Family, family_fixture

family_json = family_fixture(["bert", "gpt2", "roberta", "llama2", "llama3"])

FIELDS = (
    "ids",
    "tokens",
    "offsets",
    "type_ids",
    "word_ids",
    "attention_mask",
    "special_tokens_mask",
)


def fields(enc: object) -> list[object]:
    return [getattr(enc, f) for f in FIELDS]


def test_pretokenized_matches_hf(family_json: Family, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(family_json.path)
    hf = tokenizers.Tokenizer.from_file(str(family_json.path))
    lines = multilingual_lines[::25]
    for line, other in zip(lines, lines[1:] + lines[:1], strict=True):
        words = line.split()
        spaced = [w + " " for w in words] + [""]
        for a, b in [(words, None), (spaced, None), (words, other.split()), ([], None)]:
            for special in (True, False):
                got = ours.encode(a, b, is_pretokenized=True, add_special_tokens=special)
                want = hf.encode(a, b, is_pretokenized=True, add_special_tokens=special)
                assert fields(got) == fields(want), (a, b)
    # Added tokens inside words, truncation with overflow, and padding.
    for t in (ours, hf):
        t.add_tokens(["<x>"])
        t.enable_truncation(12, stride=2)
        t.enable_padding(length=14)
    for line in lines:
        words = [w + "<x>" for w in line.split()]
        got, want = ours.encode(words, is_pretokenized=True), hf.encode(words, is_pretokenized=True)
        assert fields(got) == fields(want)
        assert [fields(o) for o in got.overflowing] == [fields(o) for o in want.overflowing]


def test_pretokenized_input_types() -> None:
    tok = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordLevel", "unk_token": "?", "vocab": {"?": 0, "a": 1}}}'
    )
    assert tok.encode(("a", "b"), is_pretokenized=True).word_ids == [0, 1]
    with pytest.raises(tokensmith.errors.EncodeInputError, match="list of str"):
        tok.encode("a b", is_pretokenized=True)
    with pytest.raises(TypeError):
        tok.encode(["a"])  # type: ignore[arg-type]


def test_pretokenized_batch_matches_hf(family_json: Family, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(family_json.path)
    hf = tokenizers.Tokenizer.from_file(str(family_json.path))
    lines = multilingual_lines[::40]
    batch = [line.split() for line in lines] + [
        (a.split(), b.split()) for a, b in zip(lines[:-1], lines[1:], strict=True)
    ]
    for t in (ours, hf):
        t.enable_padding(pad_id=0, pad_token=t.id_to_token(0))
    got = ours.encode_batch(batch, is_pretokenized=True, num_threads=2)
    want = hf.encode_batch(batch, is_pretokenized=True)
    assert [fields(e) for e in got] == [fields(e) for e in want]
    got = ours.encode_batch(batch, True, False)
    want = hf.encode_batch(batch, True, False)
    assert [fields(e) for e in got] == [fields(e) for e in want]
