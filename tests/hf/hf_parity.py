"""Shared checks for the parity tests of HF tokenizer.json families: every output field of
``encode`` (single texts, pairs, with and without special tokens) and ``decode`` compared with
HF ``tokenizers``, and a copy of a file with truncation and padding switched on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tokensmith

EDGE_TEXTS = ["", " ", "  a  b \n\n", "é\t中", "ﬁ ｶﾞ ﾊﾟ ① Ⅻ ™", "e\u0301 a\u0308\u0301 12345"]


def fields(enc: Any) -> tuple[Any, ...]:
    """Every per-token output of an encoding, offsets as tuples, with the sequence of each
    token and the number of sequences."""
    return (
        enc.ids,
        enc.tokens,
        [tuple(o) for o in enc.offsets],
        enc.word_ids,
        enc.type_ids,
        enc.special_tokens_mask,
        enc.attention_mask,
        enc.sequence_ids,
        enc.n_sequences,
    )


def texts_of(lines: list[str], extra: tuple[str, ...] = ()) -> list[str]:
    """The lines without their newline, then edge cases."""
    return [line.rstrip("\n") for line in lines] + EDGE_TEXTS + list(extra)


def assert_texts_same(ours: Any, hf: Any, texts: list[str]) -> None:
    """Every field of encoding each text, with and without special tokens, matches HF."""
    for add in (True, False):
        bad = [
            t
            for t in texts
            if fields(ours.encode(t, add_special_tokens=add))
            != fields(hf.encode(t, add_special_tokens=add))
        ]
        assert bad == [], (add, bad[:3])


def assert_tokens_first_same(ours: Any, hf: Any, texts: list[str]) -> None:
    """Offsets, tokens, word ids and masks read before ids (a result that holds its ids
    alone computes the rest on that first read) match HF."""
    for text in texts:
        a, b = ours.encode(text), hf.encode(text)
        assert (a.offsets, a.tokens, a.word_ids, a.special_tokens_mask, a.ids) == (
            [tuple(o) for o in b.offsets],
            b.tokens,
            b.word_ids,
            b.special_tokens_mask,
            b.ids,
        ), text


def assert_batches_same(ours: Any, hf: Any, texts: list[str], pairs: list[tuple[str, str]]) -> None:
    """``encode_batch`` on 2 threads, of texts and of pairs, matches HF in every field."""
    for inputs in (texts, pairs):
        got = ours.encode_batch(inputs, num_threads=2)
        want = hf.encode_batch(inputs)
        assert [e.ids for e in got] == [e.ids for e in want]
        assert [fields(e) for e in got] == [fields(e) for e in want]


def assert_same_as_hf(path: Path, texts: list[str], n_pairs: int = 300) -> None:
    """Encode (single, pairs, with and without special tokens) and decode match HF."""
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    assert_texts_same(ours, hf, texts)
    pairs = list(zip(texts[:n_pairs], texts[n_pairs : 2 * n_pairs], strict=True))
    bad_pairs = [p for p in pairs if fields(ours.encode(*p)) != fields(hf.encode(*p))]
    assert bad_pairs == [], bad_pairs[:3]
    for text in texts:
        ids = hf.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == hf.decode(
                ids, skip_special_tokens=skip
            ), text


def with_truncation_and_padding(path: Path, out: Path, length: int) -> Path:
    """A copy of a tokenizer.json that truncates (LongestFirst) and pads to ``length``."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["truncation"] = {
        "max_length": length,
        "strategy": "LongestFirst",
        "stride": 0,
        "direction": "Right",
    }
    doc["padding"] = {
        "strategy": {"Fixed": length},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "<pad>",
    }
    target = out / f"padded-{path.name}"
    target.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return target


def code_point_texts() -> list[str]:
    """Every code point but the surrogates, between letters and alone, 1024 to a text."""
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    chunks = [points[i : i + 1024] for i in range(0, len(points), 1024)]
    return [" ".join(f"a{chr(cp)}b {chr(cp)}" for cp in chunk) for chunk in chunks]


def assert_code_points_same_as_hf(path: Path) -> None:
    """Encode gives HF's answers on every code point."""
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    texts = code_point_texts()
    got = ours.encode_batch(texts, add_special_tokens=False)
    expected = hf.encode_batch(texts, add_special_tokens=False)
    bad = [t for t, g, e in zip(texts, got, expected, strict=True) if fields(g) != fields(e)]
    assert [t[:120] for t in bad[:3]] == []
