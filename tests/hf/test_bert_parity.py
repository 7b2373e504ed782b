"""Parity with HF ``tokenizers`` on BERT-style tokenizer.json files: ids, tokens, offsets,
type ids, masks, word ids and decode, on every line of the committed multilingual text, on
pairs of consecutive lines and on edge cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tokensmith

EDGE_CASES = [
    "",
    "   \t\n",
    "İstanbul ǅemal ŉ ß Σίσυφος ΌΣΟΣ",
    "naïve café déjà vu — «quoted» ¿qué? ¡sí!",
    "中文字符和日本語のテキスト，한국어 텍스트。",
    "a\u0000b\ufffdc\u200bd\u00ade\u0007f\x7f g\u2028h\u00a0i\u3000j",
    "e\u0301\u0323 a\u0323\u0301 \ufb01 \u2460 x\u0308",
    "x" * 31 + " " + "y" * 30 + " " + "中" * 40 + " " + "w" * 101,
    "emoji 🙂👍🏽 🧑‍💻 and ᏣᎳᎩ and 𐍈 and \U0001fa77",
    "don't can't I'm we've they're it's do not , . ! ?",
    "$100.00 & 50% off @home #tag ~tilde `tick` ^caret |pipe| <tag/>",
]


def _ours(enc: tokensmith.EncodingResult) -> dict[str, Any]:
    return {
        "ids": enc.ids,
        "tokens": enc.tokens,
        "offsets": enc.offsets,
        "type_ids": enc.type_ids,
        "attention_mask": enc.attention_mask,
        "special_tokens_mask": enc.special_tokens_mask,
        "word_ids": enc.word_ids,
    }


def _theirs(enc: Any) -> dict[str, Any]:
    return {
        "ids": enc.ids,
        "tokens": enc.tokens,
        "offsets": [tuple(o) for o in enc.offsets],
        "type_ids": enc.type_ids,
        "attention_mask": enc.attention_mask,
        "special_tokens_mask": enc.special_tokens_mask,
        "word_ids": enc.word_ids,
    }


def _mismatches(
    path: Path, inputs: list[tuple[str, str | None]], add_special_tokens: bool = True
) -> list[str]:
    from tokenizers import Tokenizer as HfTokenizer

    ref = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    bad = []
    for text, pair in inputs:
        expected = ref.encode(text, pair, add_special_tokens=add_special_tokens)
        got = ours.encode(text, pair, add_special_tokens=add_special_tokens)
        want, have = _theirs(expected), _ours(got)
        diff = [k for k in want if want[k] != have[k]]
        for skip in (True, False):
            if ours.decode(got.ids, skip) != ref.decode(expected.ids, skip_special_tokens=skip):
                diff.append(f"decode(skip_special_tokens={skip})")
        if diff:
            bad.append(f"{text!r} / {pair!r}: {diff}")
    return bad


def test_every_line(bert_json: Path, multilingual_lines: list[str]) -> None:
    inputs: list[tuple[str, str | None]] = [(line, None) for line in multilingual_lines]
    assert _mismatches(bert_json, inputs)[:5] == []


def test_pairs_of_consecutive_lines(bert_json: Path, multilingual_lines: list[str]) -> None:
    lines = multilingual_lines
    inputs: list[tuple[str, str | None]] = [(a, b) for a, b in zip(lines, lines[1:], strict=False)]
    assert _mismatches(bert_json, inputs)[:5] == []


def test_edge_cases(bert_json: Path) -> None:
    inputs = [(t, None) for t in EDGE_CASES] + list(zip(EDGE_CASES, EDGE_CASES[::-1], strict=True))
    assert _mismatches(bert_json, inputs)[:5] == []


def test_without_special_tokens(bert_json: Path, multilingual_lines: list[str]) -> None:
    lines = multilingual_lines[::7]
    inputs: list[tuple[str, str | None]] = [(a, b) for a, b in zip(lines, lines[1:], strict=False)]
    assert _mismatches(bert_json, inputs, add_special_tokens=False)[:5] == []


def test_vocab_lookups(bert_json: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    ref = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    vocab = ref.get_vocab()
    assert ours.get_vocab() == vocab
    for token, id in list(vocab.items())[:500]:
        assert ours.token_to_id(token) == id
        assert ours.id_to_token(id) == ref.id_to_token(id)
    assert ours.token_to_id("not a token at all") is None
    assert ours.id_to_token(len(vocab) + 10) is None


@pytest.mark.parametrize(
    ("edit", "json_path"),
    [
        (lambda d: d["normalizer"].update(type="NmtNfkcCf"), "normalizer.type"),
        (lambda d: d.update(pre_tokenizer={"type": "UnicodeScripts", "x": 1}), "pre_tokenizer.x"),
        (lambda d: d.update(pre_tokenizer={"type": "Metaspace"}), "pre_tokenizer.replacement"),
        (
            lambda d: d.update(
                pre_tokenizer={"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"}
            ),
            "pre_tokenizer.pattern",
        ),
        (
            lambda d: d["model"]["vocab"].pop("[SEP]"),
            'post_processor.special_tokens["[SEP]"].ids[0]',
        ),
        (lambda d: d["decoder"].update(type="CTC"), "decoder.prefix"),
        (lambda d: d["model"].update(dropout=0.1), "model.dropout"),
    ],
)
def test_errors_name_the_json_path(
    bert_json: Path, tmp_path: Path, edit: Any, json_path: str
) -> None:
    import json

    doc = json.loads(bert_json.read_text(encoding="utf-8"))
    # The added tokens would otherwise still give "[SEP]" its id.
    doc["added_tokens"] = []
    edit(doc)
    bad = tmp_path / "tokenizer.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(tokensmith.TokenizerJsonError) as info:
        tokensmith.Tokenizer.from_file(bad)
    assert info.value.json_path == json_path
    assert json_path in str(info.value)


def test_every_code_point(bert_json: Path, tmp_path: Path) -> None:
    """Each code point between letters and alone, 1,024 at a time (truncation and padding
    are turned off so that the whole text is compared)."""
    import json

    doc = json.loads(bert_json.read_text(encoding="utf-8"))
    doc["truncation"] = doc["padding"] = None
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    chunks = [code_points[i : i + 1024] for i in range(0, len(code_points), 1024)]
    texts = [" ".join(f"a{chr(cp)}b {chr(cp)}" for cp in chunk) for chunk in chunks]
    bad = _mismatches(path, [(text, None) for text in texts])
    assert [line[:120] for line in bad[:3]] == []
