"""Truncation with a stride, every strategy and direction, and the ``overflowing`` encodings,
compared with HF ``tokenizers`` field by field (nested overflowing parts included) on lines
and pairs of the committed multilingual text, for every BERT-style file of conftest.py and for
the byte-level BPE (GPT-2, RoBERTa, Llama 3), Llama-2 BPE and T5 Unigram files of
hf_families.py (offsets trimmed window by window, RoBERTa's type ids, Sequence post-processor).

Where HF fails (an unsatisfiable strategy, a stride too large for what a pair leaves), tokensmith
must fail too: with :class:`~tokensmith.errors.TruncationError` (HF raises an exception, or for a
stride too large for a pair, panics).
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from hf_families import OVERFLOW_FAMILIES, build
from hf_parity import fields
from tokensmith.errors import TruncationError

DATA = Path(__file__).parent.parent / "data"
LINES = [
    line.rstrip("\n")
    for line in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:240]
    if line.strip()
]
SINGLES = LINES[:50] + ["", "a"]
PAIRS = list(zip(LINES[50:80], LINES[80:110], strict=True)) + [("", LINES[0]), (LINES[1], "")]
# (max_length, stride): a stride of 0, a small and a large one (that a pair's share of the
# room is below, so HF panics on long pairs), and max_length 1 (no room beside the specials).
SETTINGS = [(8, 0), (10, 3), (16, 7), (12, 9), (1, 0)]
STRATEGIES = ["longest_first", "only_first", "only_second"]
LONGEST = sorted(LINES, key=len)[-2:]


def tree(enc: Any) -> tuple[Any, ...]:
    """Every field of an encoding and, recursively, of its overflowing encodings."""
    return (fields(enc), [tree(o) for o in enc.overflowing])


def outcome(encode: Any, *args: Any, **kwargs: Any) -> Any:
    """The encoding's tree, or "error" when encoding fails (HF's panics included)."""
    try:
        return tree(encode(*args, **kwargs))
    except BaseException as e:  # HF's PanicException derives from BaseException.
        if isinstance(e, KeyboardInterrupt):
            raise
        return "error"


def pair_of_tokenizers(path: Path, max_length: int, **options: Any) -> tuple[Any, Any] | None:
    """HF's and tokensmith's tokenizers with the same truncation, or None when both refuse it
    (the test fails if only one does)."""
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    try:
        hf.enable_truncation(max_length, **options)
    except Exception:
        with pytest.raises(TruncationError):
            ours.enable_truncation(max_length, **options)
        return None
    ours.enable_truncation(max_length, **options)
    assert ours.truncation == hf.truncation
    return hf, ours


@pytest.fixture(scope="module", params=OVERFLOW_FAMILIES)
def family_json(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A byte-level, Llama-2 or Unigram tokenizer.json (hf_families.py)."""
    return build(request.param, multilingual_lines, tmp_path_factory.mktemp(request.param))


@pytest.mark.parametrize("direction", ["right", "left"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_overflowing_matches_hf(bert_json: Path, strategy: str, direction: str) -> None:
    assert_overflowing_matches_hf(bert_json, strategy, direction)


@pytest.mark.parametrize("direction", ["right", "left"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_other_families_overflow_as_hf(family_json: Path, strategy: str, direction: str) -> None:
    assert_overflowing_matches_hf(family_json, strategy, direction)


def test_other_families_do_overflow(family_json: Path) -> None:
    """Those files do give windows, and nested ones for pairs, equal to HF's."""
    assert_windows_as_hf(family_json, 20, 5)


def assert_windows_as_hf(path: Path, max_length: int, stride: int) -> None:
    """The longest line gives several windows, and the two longest lines nested ones for the
    pair, all equal to HF's."""
    both = pair_of_tokenizers(path, max_length, stride=stride)
    assert both is not None
    hf, ours = both
    enc = ours.encode(LONGEST[0])
    assert len(enc.overflowing) >= 2
    assert tree(enc) == tree(hf.encode(LONGEST[0]))
    pair = ours.encode(*LONGEST)
    assert any(o.overflowing for o in pair.overflowing)
    assert tree(pair) == tree(hf.encode(*LONGEST))


def assert_overflowing_matches_hf(path: Path, strategy: str, direction: str) -> None:
    """Every setting of SETTINGS gives HF's encodings (or HF's failures) on SINGLES, with and
    without special tokens, and on PAIRS."""
    for max_length, stride in SETTINGS:
        both = pair_of_tokenizers(
            path, max_length, stride=stride, strategy=strategy, direction=direction
        )
        if both is None:
            continue
        hf, ours = both
        setting = (max_length, stride, strategy, direction)
        for add in (True, False):
            bad = [
                t
                for t in SINGLES
                if outcome(ours.encode, t, add_special_tokens=add)
                != outcome(hf.encode, t, add_special_tokens=add)
            ]
            assert bad == [], (setting, add, bad[:2])
        bad_pairs = [p for p in PAIRS if outcome(ours.encode, *p) != outcome(hf.encode, *p)]
        assert bad_pairs == [], (setting, bad_pairs[:2])


def test_overflowing_is_exercised(bert_json: Path) -> None:
    """The settings above do produce windows, nested ones for pairs, and HF errors."""
    assert_windows_as_hf(bert_json, 20, 3)
    only_second = pair_of_tokenizers(bert_json, 10, strategy="only_second")
    assert only_second is not None
    assert outcome(only_second[0].encode, LINES[0]) == "error"
    with pytest.raises(TruncationError):
        only_second[1].encode(LINES[0])


def test_truncation_read_from_the_file(bert_json: Path, tmp_path: Path) -> None:
    """The "truncation" object of tokenizer.json: stride, strategy and direction."""
    from tokenizers import Tokenizer as HfTokenizer

    doc = json.loads(bert_json.read_text(encoding="utf-8"))
    doc["truncation"] = {
        "max_length": 14,
        "strategy": "OnlySecond",
        "stride": 4,
        "direction": "Left",
    }
    path = tmp_path / "truncating.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    assert ours.truncation == hf.truncation
    for p in PAIRS:
        assert outcome(ours.encode, *p) == outcome(hf.encode, *p), p
    # The setting survives save() and loads in HF.
    saved = tmp_path / "saved.json"
    ours.no_truncation()
    ours.enable_truncation(9, stride=2, strategy="only_first", direction="left")
    ours.save(saved)
    assert HfTokenizer.from_file(str(saved)).truncation == ours.truncation


def test_overflowing_survives_pickle(bert_json: Path) -> None:
    ours = tokensmith.Tokenizer.from_file(bert_json)
    ours.enable_truncation(16, stride=2)
    enc = ours.encode(LINES[4], LINES[5])
    copy = pickle.loads(pickle.dumps(enc))
    assert copy == enc
    assert tree(copy) == tree(enc)
    assert len(copy.overflowing) == len(enc.overflowing) > 0


def test_bad_options_are_refused() -> None:
    ours = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}}}'
    )
    with pytest.raises(TruncationError, match="strategy"):
        ours.enable_truncation(8, strategy="shortest_first")
    with pytest.raises(TruncationError, match="direction"):
        ours.enable_truncation(8, direction="up")
    with pytest.raises(TruncationError, match="stride"):
        ours.enable_truncation(4, stride=5)
