"""``EncodingResult.pad`` and ``EncodingResult.truncate`` compared with HF ``tokenizers``'
``Encoding.pad`` and ``Encoding.truncate``: the same calls, one after another, on the encodings
of the committed multilingual lines (single texts and pairs, with and without special tokens)
give the same fields, overflowing results included, on the BERT fixtures and GPT-2-,
RoBERTa-, Llama-2-, Llama-3- and T5-style files. Bad options raise tokensmith's typed errors
where HF raises ValueError or OverflowError, or panics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tokensmith
from family_fixture import Family, family_fixture
from hf_parity import fields
from test_add_tokens import LINES
from tokensmith.errors import PaddingError, TruncationError

# Call sequences: ("pad", length, kwargs) or ("truncate", max_length, kwargs). Lengths are
# relative to the encoding's own length when given as a float (0.5: half of it).
Call = tuple[str, float, dict[str, Any]]
SEQUENCES: list[list[Call]] = [
    [("pad", 1.5, {})],
    [("pad", 0.5, {"direction": "left"})],
    [("pad", 40, {"direction": "left", "pad_id": 3, "pad_type_id": 1, "pad_token": "<p>"})],
    [("truncate", 0.5, {})],
    [("truncate", 0.4, {"stride": 2, "direction": "left"})],
    [("truncate", 5, {"stride": 4})],
    [("truncate", 0, {})],
    [("truncate", 1.0, {})],
    # Overflowing results are padded too, and a second truncate drops the first's.
    [("truncate", 0.3, {"stride": 1}), ("pad", 0.5, {"pad_id": 7, "direction": "left"})],
    [("truncate", 0.6, {"stride": 3}), ("truncate", 0.3, {"direction": "left"})],
    [("pad", 1.2, {}), ("truncate", 0.5, {"stride": 2})],
    [("truncate", 0, {}), ("pad", 3, {}), ("truncate", 2, {"stride": 1})],
]


def deep(enc: Any) -> tuple[Any, ...]:
    """Every field, and the overflowing results' at every depth."""
    return (fields(enc), [deep(o) for o in enc.overflowing])


def run(enc: Any, calls: list[Call]) -> None:
    base = len(enc.ids)
    for method, size, kwargs in calls:
        n = max(int(size * base), 1) if isinstance(size, float) else int(size)
        if method == "pad":
            enc.pad(n, **kwargs)
        else:
            # HF panics unless the stride is below max_length (tested on its own below).
            stride = kwargs.get("stride", 0)
            enc.truncate(max(n, stride + 1) if n else 0, **kwargs)


def check(path: Path, truncation: int | None = None) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    hf.no_padding()
    ours.no_padding()
    if truncation is None:
        hf.no_truncation()
        ours.no_truncation()
    else:
        hf.enable_truncation(truncation, stride=2)
        ours.enable_truncation(truncation, stride=2)
    lines = LINES[:120]
    inputs: list[tuple[str, str | None, bool]] = [
        (t, None, i % 2 == 0) for i, t in enumerate(lines)
    ]
    inputs += [(a, b, True) for a, b in zip(lines[:40], lines[40:80], strict=True)]
    for text, pair, add in inputs:
        for calls in SEQUENCES:
            theirs = hf.encode(text, pair, add_special_tokens=add)
            mine = ours.encode(text, pair, add_special_tokens=add)
            assert deep(mine) == deep(theirs), (text, pair)
            run(theirs, calls)
            run(mine, calls)
            assert deep(mine) == deep(theirs), (text, pair, calls)


def test_bert(bert_json: Path) -> None:
    check(bert_json)


family_json = family_fixture(["gpt2", "roberta", "llama2", "llama3", "t5"])


def test_families(family_json: Family) -> None:
    check(family_json.path)


def test_after_the_tokenizers_truncation(family_json: Family) -> None:
    """Encodings that already have overflowing results (nested, for pairs)."""
    check(family_json.path, truncation=12)


def test_bad_options(bert_json: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    hf.no_padding()
    ours.no_padding()
    theirs, mine = hf.encode(LINES[0]), ours.encode(LINES[0])
    with pytest.raises(ValueError):
        theirs.pad(5, direction="up")
    with pytest.raises(PaddingError, match="direction"):
        mine.pad(5, direction="up")
    with pytest.raises(OverflowError):
        theirs.pad(-1)
    with pytest.raises(PaddingError, match="length"):
        mine.pad(-1)
    with pytest.raises(PaddingError, match="pad_id"):
        mine.pad(5, pad_id=-1)
    with pytest.raises(PaddingError, match="pad_type_id"):
        mine.pad(5, pad_type_id=2**32)
    with pytest.raises(ValueError):
        theirs.truncate(2, direction="up")
    with pytest.raises(TruncationError, match="direction"):
        mine.truncate(2, direction="up")
    with pytest.raises(TruncationError, match="max_length"):
        mine.truncate(-2)
    # HF panics (a BaseException) on a stride not below max_length.
    with pytest.raises(BaseException, match="stride"):
        theirs.truncate(2, stride=2)
    with pytest.raises(TruncationError, match="stride"):
        mine.truncate(2, stride=2)
    # Nothing was changed by the failed calls.
    assert fields(mine) == fields(ours.encode(LINES[0]))
