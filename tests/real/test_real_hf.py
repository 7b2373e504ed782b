"""Published ``tokenizer.json`` files: tokensmith's HF face against HF ``tokenizers``.

Ids, tokens, offsets and decoding on every line of the committed multilingual text and every
paragraph of the code sample, single and batched, with special-token text in the input too.
"""

from __future__ import annotations

import pytest
import tokenizers
import tokensmith
from conftest import of_kind, real_path


@pytest.fixture(scope="module", params=of_kind("tokenizer.json"))
def both(request: pytest.FixtureRequest) -> tuple[object, tokensmith.Tokenizer]:
    path = str(real_path(request.param))
    return tokenizers.Tokenizer.from_file(path), tokensmith.Tokenizer.from_file(path)


def test_ids_tokens_offsets_equal_hf(both: tuple, texts: list[str]) -> None:
    hf, ours = both
    theirs = hf.encode_batch(texts)
    for text, want in zip(texts, theirs, strict=True):
        got = ours.encode(text)
        assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets), text


def test_batch_and_decode_equal_hf(both: tuple, texts: list[str]) -> None:
    hf, ours = both
    some = texts[::7]
    got = ours.encode_batch(some)
    want = hf.encode_batch(some)
    assert [e.ids for e in got] == [e.ids for e in want]
    for enc in want:
        assert ours.decode(enc.ids) == hf.decode(enc.ids)
        assert ours.decode(enc.ids, skip_special_tokens=False) == hf.decode(
            enc.ids, skip_special_tokens=False
        )


def test_special_token_text_equal_hf(both: tuple, texts: list[str]) -> None:
    hf, ours = both
    specials = [t.content for t in hf.get_added_tokens_decoder().values()][:8]
    assert specials, "the file defines no added tokens"
    for i, text in enumerate(texts[:50]):
        mixed = f"{specials[i % len(specials)]}{text}{specials[(i + 3) % len(specials)]} x"
        assert ours.encode(mixed).ids == hf.encode(mixed).ids, mixed
        assert ours.token_to_id(specials[i % len(specials)]) == hf.token_to_id(
            specials[i % len(specials)]
        )
