"""Padding set by ``enable_padding``, compared with HF ``tokenizers`` field by field (overflowing
parts included) on the committed multilingual text, for five families (hf_families.py):
``encode_batch`` pads every result to the batch's longest (or a fixed length), rounded up to
``pad_to_multiple_of``, on either side, alone and combined with truncation and a stride;
``encode`` pads one result. The ``padding`` property, ``to_str``/``save``, the transformers
tokenizer of ``to_transformers()``, and the errors for bad options are checked too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from family_fixture import Family, family_fixture
from hf_families import FAMILIES, PAD_TOKENS, build, pad_id
from test_truncation_overflowing import outcome as one_outcome
from test_truncation_overflowing import tree
from tokensmith.errors import PaddingError

DATA = Path(__file__).parent.parent / "data"
TEXTS = [
    line
    for line in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:900]
    if line.strip()
][:600]
PAIRS = list(zip(TEXTS[:200], TEXTS[200:400], strict=True))
# Batches of every size from 1 up, so that the longest differs from batch to batch.
SIZES = [1, 2, 3, 5, 8, 13, 21, 34]

# (padding options, truncation options or None); the pad id and token are the family's.
SETTINGS: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
    ({}, None),
    ({"direction": "left", "pad_to_multiple_of": 8}, None),
    ({"length": 40, "pad_to_multiple_of": 6, "pad_type_id": 1}, None),
    ({"direction": "left", "pad_to_multiple_of": 5}, {"max_length": 24, "stride": 6}),
    ({}, {"max_length": 18, "stride": 4, "direction": "left"}),
    ({"length": 30, "direction": "left"}, {"max_length": 20, "strategy": "only_first"}),
]


family_json = family_fixture(FAMILIES)


def batches(items: list[Any]) -> list[list[Any]]:
    """``items`` cut into batches of the sizes in SIZES, round and round."""
    out, i, k = [], 0, 0
    while i < len(items):
        size = SIZES[k % len(SIZES)]
        out.append(items[i : i + size])
        i, k = i + size, k + 1
    return out


def configured(family: str, path: Path, padding: dict[str, Any], trunc: dict[str, Any] | None):
    """HF's and tokensmith's tokenizers with the same padding (and truncation)."""
    from tokenizers import Tokenizer as HfTokenizer

    options = {"pad_id": pad_id(path, family), "pad_token": PAD_TOKENS[family], **padding}
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    for tok in (hf, ours):
        tok.enable_padding(**options)
        if trunc is not None:
            tok.enable_truncation(**trunc)
    assert ours.padding == hf.padding
    return hf, ours


def outcome(encode_batch: Any, batch: list[Any], add: bool) -> Any:
    """Every encoding's tree, or "error" when the batch fails (HF's panics included)."""
    try:
        return [tree(e) for e in encode_batch(batch, add_special_tokens=add)]
    except BaseException as e:  # HF's PanicException derives from BaseException.
        if isinstance(e, KeyboardInterrupt):
            raise
        return "error"


@pytest.mark.parametrize(("padding", "trunc"), SETTINGS)
def test_batches_match_hf(
    family_json: Family, padding: dict[str, Any], trunc: dict[str, Any] | None
) -> None:
    family, path = family_json
    hf, ours = configured(family, path, padding, trunc)
    inputs: list[Any] = [*TEXTS, *PAIRS, "", ("", TEXTS[0])]
    for add in (True, False):
        bad = [
            b[:2]
            for b in batches(inputs)
            if outcome(ours.encode_batch, b, add) != outcome(hf.encode_batch, b, add)
        ]
        assert bad == [], (family, padding, trunc, add, bad[:2])
    # Alone, an encoding is padded to its own length (or the fixed one).
    for text in TEXTS[:100]:
        assert one_outcome(ours.encode, text) == one_outcome(hf.encode, text), text
    for a, b in PAIRS[:50]:
        assert one_outcome(ours.encode, a, b) == one_outcome(hf.encode, a, b), (a, b)


def test_every_line_in_batches(family_json: Family, multilingual_lines: list[str]) -> None:
    """Every line of the multilingual text, in batches, with the busiest setting: left padding
    to a multiple, truncation with a stride."""
    family, path = family_json
    hf, ours = configured(family, path, *SETTINGS[3])
    lines = [line.rstrip("\n") for line in multilingual_lines]
    bad = [
        b[:2]
        for b in batches(lines)
        if outcome(ours.encode_batch, b, True) != outcome(hf.encode_batch, b, True)
    ]
    assert bad == [], (family, bad[:2])


def test_batches_are_padded_to_their_longest(family_json: Family) -> None:
    """The settings above do pad: batches of different lengths, overflowing parts padded."""
    family, path = family_json
    _, ours = configured(family, path, {"pad_to_multiple_of": 8}, {"max_length": 24, "stride": 6})
    batch = [TEXTS[0], max(TEXTS, key=len), ("", TEXTS[1])]
    encs = ours.encode_batch(batch)
    assert len({len(e.ids) for e in encs}) == 1
    assert len(encs[0].ids) % 8 == 0
    assert 0 in encs[0].attention_mask
    assert encs[1].overflowing
    assert all(len(o.ids) == len(encs[0].ids) for o in encs[1].overflowing)
    alone = ours.encode(TEXTS[0])
    assert len(alone.ids) <= len(encs[0].ids)


@pytest.mark.parametrize("side", ["right", "left"])
def test_to_transformers_pads_the_same(family_json: Family, side: str) -> None:
    """transformers reads the padding of to_str(): its side and pad token; its padded batch
    is ours."""
    family, path = family_json
    ours = tokensmith.Tokenizer.from_file(path)
    token = PAD_TOKENS[family]
    if ours.token_to_id(token) is None:
        # transformers would give a pad token missing from the vocabulary a new id.
        token = "</s>"
    ours.enable_padding(direction=side, pad_id=ours.token_to_id(token), pad_token=token)
    fast = ours.to_transformers()
    assert fast.padding_side == side
    assert fast.pad_token == token
    for batch in batches(TEXTS[:120]):
        got = ours.encode_batch(batch)
        expected = fast(batch, padding=True, pad_to_multiple_of=None)
        assert [e.ids for e in got] == expected["input_ids"]
        assert [e.attention_mask for e in got] == expected["attention_mask"]


def test_padding_property_and_saved_json(tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    path = build("bert", [], tmp_path)
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    assert ours.padding is None is hf.padding
    for options in (
        {},
        {"direction": "left", "length": 12, "pad_to_multiple_of": 5},
        {"pad_id": 7, "pad_type_id": 2, "pad_token": "not-in-the-vocab"},
    ):
        hf.enable_padding(**options)
        ours.enable_padding(**options)
        assert ours.padding == hf.padding
        assert json.loads(ours.to_str())["padding"] == json.loads(hf.to_str())["padding"]
        ours.save(tmp_path / "saved.json")
        again = HfTokenizer.from_file(str(tmp_path / "saved.json"))
        assert again.padding == hf.padding
        assert tokensmith.Tokenizer.from_file(tmp_path / "saved.json").padding == hf.padding
    ours.no_padding()
    hf.no_padding()
    assert ours.padding is None
    assert json.loads(ours.to_str())["padding"] is None
    # The file's own padding (the real BERT file pads to 128) is reported as HF does.
    real = tmp_path / "real.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["padding"] = {
        "strategy": {"Fixed": 128},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    real.write_text(json.dumps(doc), encoding="utf-8")
    assert tokensmith.Tokenizer.from_file(real).padding == HfTokenizer.from_file(str(real)).padding


def test_bad_options_name_the_option() -> None:
    ours = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}'
    )
    for options, name in [
        ({"direction": "up"}, "direction"),
        ({"length": -1}, "length"),
        ({"pad_to_multiple_of": -8}, "pad_to_multiple_of"),
        ({"pad_id": -1}, "pad_id"),
        ({"pad_type_id": 2**32}, "pad_type_id"),
    ]:
        with pytest.raises(PaddingError, match=name):
            ours.enable_padding(**options)
    assert ours.padding is None
    with pytest.raises(TypeError, match="max_len"):
        ours.enable_padding(max_len=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ours.enable_padding(pad_token=None)  # type: ignore[arg-type]
