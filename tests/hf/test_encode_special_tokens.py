"""``Tokenizer.encode_special_tokens`` compared with HF ``tokenizers``: with it on, special added
tokens written in the input are not matched and their text is encoded as ordinary text (plain
added tokens still match, inside that text too); with it off again, they match as before. Every
encoding field (single texts with special tokens written into the committed lines, pairs, with
and without the post-processor's special tokens) and ``decode`` are compared on the BERT
fixtures and on RoBERTa-, Llama-2-, Llama-3-, Qwen2-, T5- and XLM-R-style files, each with the
file's own special tokens and added ones (special with ``lstrip``/``rstrip``/``normalized``, and
plain ones that overlap them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from family_fixture import Family, family_fixture
from hf_parity import assert_texts_same, fields
from test_add_tokens import LINES
from tokensmith.errors import AddedTokenError

# Added to both tokenizers before the comparison: special tokens with each flag, and plain
# tokens that a special token's text contains (they match once the special one no longer does).
SPECIAL = [
    {"content": "<sys>", "rstrip": True},
    {"content": "<|im_end|>", "lstrip": True},
    {"content": "[Note]", "normalized": True},
]
PLAIN = ["sys", "im_", {"content": "Note", "single_word": True}]


def add_both(hf: Any, ours: tokensmith.Tokenizer) -> list[str]:
    """Adds :data:`SPECIAL` and :data:`PLAIN` to both; returns every special token's content
    (the file's own included)."""
    from tokenizers import AddedToken as HfAddedToken

    def mk(kind: Any, t: Any) -> Any:
        return t if isinstance(t, str) else kind(**t)

    assert ours.add_special_tokens([mk(tokensmith.AddedToken, t) for t in SPECIAL]) == (
        hf.add_special_tokens([mk(HfAddedToken, t) for t in SPECIAL])
    )
    assert ours.add_tokens([mk(tokensmith.AddedToken, t) for t in PLAIN]) == hf.add_tokens(
        [mk(HfAddedToken, t) for t in PLAIN]
    )
    return [t.content for t in hf.get_added_tokens_decoder().values() if t.special]


def texts_with_specials(specials: list[str]) -> list[str]:
    """Each committed line with special tokens written into it, at varying places and
    spacing, some next to each other."""
    spacing = ["{}", " {} ", "  {}", "{}  ", "\n{}\t"]
    out = []
    for i, line in enumerate(LINES[:400]):
        at = (i * 5) % (len(line) + 1)
        token = spacing[i % len(spacing)].format(specials[i % len(specials)])
        if i % 7 == 0:
            token += specials[(i + 1) % len(specials)]
        out.append(line[:at] + token + line[at:])
    return out


def assert_same(hf: Any, ours: tokensmith.Tokenizer, texts: list[str]) -> None:
    assert ours.encode_special_tokens == hf.encode_special_tokens
    assert_texts_same(ours, hf, texts)
    pairs = list(zip(texts[:150], texts[150:300], strict=True))
    assert [fields(ours.encode(*p)) for p in pairs] == [fields(hf.encode(*p)) for p in pairs]
    for text in texts[:150]:
        ids = hf.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip) == hf.decode(ids, skip), (text, skip)


def check(path: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    texts = texts_with_specials(add_both(hf, ours))
    saved = ours.to_str()
    # The texts are ones where the setting matters.
    hf.encode_special_tokens = True
    on = [e.ids for e in hf.encode_batch(texts[:50])]
    hf.encode_special_tokens = False
    assert on != [e.ids for e in hf.encode_batch(texts[:50])]
    for value in (True, False):
        hf.encode_special_tokens = value
        ours.encode_special_tokens = value
        assert_same(hf, ours, texts)
        # Not part of the file, in HF or here.
        assert ours.to_str() == saved
        assert "encode_special_tokens" not in hf.to_str()


def test_bert(bert_json: Path) -> None:
    check(bert_json)


family_json = family_fixture(["roberta", "llama2", "llama3", "qwen2", "t5", "xlmr"])


def test_families(family_json: Family) -> None:
    check(family_json.path)


def test_special_text_is_encoded_as_text(bert_json: Path) -> None:
    """With it on, ``[CLS]`` in the input gives the tokens of its text, not the id of
    ``[CLS]``; the post-processor still adds its own ``[CLS]``."""
    from tokenizers import Tokenizer as HfTokenizer

    ours = tokensmith.Tokenizer.from_file(bert_json)
    ours.no_padding()
    cls = ours.token_to_id("[CLS]")
    assert ours.encode("[CLS]", add_special_tokens=False).ids == [cls]
    ours.encode_special_tokens = True
    ids = ours.encode("[CLS]", add_special_tokens=False).ids
    assert cls not in ids and len(ids) > 1
    assert ours.encode("[CLS]").ids.count(cls) == 1
    hf = HfTokenizer.from_file(str(bert_json))
    hf.no_padding()
    hf.encode_special_tokens = True
    assert hf.encode("[CLS]", add_special_tokens=False).ids == ids


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_bad_value_is_a_type_error(bert_json: Path, bad: Any) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    with pytest.raises(TypeError):
        hf.encode_special_tokens = bad
    with pytest.raises(AddedTokenError, match="encode_special_tokens"):
        ours.encode_special_tokens = bad
    assert ours.encode_special_tokens is False
    assert json.loads(ours.to_str()) == json.loads(bert_json.read_text(encoding="utf-8"))
