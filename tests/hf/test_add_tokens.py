"""``add_tokens`` and ``add_special_tokens`` compared with HF ``tokenizers`` on the committed
multilingual text: the count each call returns, then every encoding field (single texts with the
added tokens written into them at varying spacing, pairs, with and without special tokens),
``decode`` with and without ``skip_special_tokens``, ``get_vocab``, ``get_vocab_size``,
``token_to_id``, ``id_to_token`` and the saved ``added_tokens``, for the BERT fixtures, a
RoBERTa-style byte-level BPE and a T5-style Unigram. The scenarios cover each flag, re-adding
with other flags, tokens the vocabulary already holds, the family's pad token re-added as a
normalized token, and special versus plain tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from family_fixture import Family, family_fixture
from hf_families import PAD_TOKENS
from hf_parity import assert_texts_same, fields
from tokensmith.errors import AddedTokenError

DATA = Path(__file__).parent.parent / "data"
LINES = [
    line
    for line in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    if line.strip()
][:700]

# A step: (method, tokens); a token is a str or the keyword arguments of an AddedToken.
Step = tuple[str, list[Any]]


def scenarios(pad: str, in_vocab: list[str]) -> dict[str, list[Step]]:
    """The add calls of each scenario; ``pad`` is the family's pad token, ``in_vocab`` tokens
    its model already holds."""
    return {
        "plain": [
            ("add_tokens", ["the", "Zzqx", "中文", "", "the", "qu'", "ПРИВЕТ"]),
            ("add_tokens", ["Zzqx", "née"]),
        ],
        "flags": [
            (
                "add_tokens",
                [
                    {"content": "<m>", "lstrip": True, "rstrip": True},
                    {"content": "and", "single_word": True},
                    {"content": "Straße", "normalized": False},
                    {"content": "de", "lstrip": True, "single_word": True, "normalized": False},
                    {"content": "ing", "rstrip": True, "special": True},
                ],
            ),
            # Re-added with other flags: updated in place, and counted.
            ("add_tokens", [{"content": "<m>", "lstrip": True}, "and", "Straße"]),
        ],
        "special": [
            ("add_special_tokens", ["<extra_0>", {"content": "<sys>", "rstrip": True}, "the"]),
            ("add_tokens", [{"content": "<extra_0>", "lstrip": True}, "<sys>", "zz"]),
            # A special token re-added as plain stays special for decoding, as in HF.
            ("add_tokens", [{"content": "the", "special": False}]),
            ("add_special_tokens", [{"content": "zz", "normalized": True}]),
        ],
        "in-vocab": [
            ("add_tokens", in_vocab[:4]),
            ("add_special_tokens", in_vocab[4:6]),
            ("add_tokens", [{"content": pad, "normalized": True}, "fresh-token"]),
            ("add_tokens", [{"content": in_vocab[0], "single_word": True}]),
        ],
    }


def contents(steps: list[Step]) -> list[str]:
    return [t if isinstance(t, str) else t["content"] for _, tokens in steps for t in tokens]


def texts_with(tokens: list[str]) -> list[str]:
    """Each line, then each line with an added token written into it (round and round, at
    varying places and spacing)."""
    tokens = [t for t in tokens if t]
    spacing = ["{}", " {} ", "  {}", "{}  ", "\t{}\n"]
    out = list(LINES)
    for i, line in enumerate(LINES):
        at = (i * 7) % (len(line) + 1)
        token = spacing[i % len(spacing)].format(tokens[i % len(tokens)])
        out.append(line[:at] + token + line[at:])
    return out


def apply(hf: Any, ours: tokensmith.Tokenizer, steps: list[Step]) -> None:
    """Runs ``steps`` on both; each call returns the same count."""
    from tokenizers import AddedToken as HfAddedToken

    for method, tokens in steps:
        theirs = [t if isinstance(t, str) else HfAddedToken(**t) for t in tokens]
        mine = [t if isinstance(t, str) else tokensmith.AddedToken(**t) for t in tokens]
        assert getattr(ours, method)(mine) == getattr(hf, method)(theirs), (method, tokens)


def assert_same(hf: Any, ours: tokensmith.Tokenizer, added: list[str]) -> None:
    """Every output after adding matches HF."""
    assert ours.get_vocab() == hf.get_vocab()
    assert ours.get_vocab(with_added_tokens=False) == hf.get_vocab(with_added_tokens=False)
    for with_added in (True, False):
        assert ours.get_vocab_size(with_added) == hf.get_vocab_size(with_added)
    for token in added:
        assert ours.token_to_id(token) == hf.token_to_id(token), token
    top = max(hf.get_vocab().values())
    for i in [*range(top - 12, top + 3), *(hf.token_to_id(t) or 0 for t in added)]:
        assert ours.id_to_token(i) == hf.id_to_token(i), i
    saved = json.loads(ours.to_str())["added_tokens"]
    assert saved == json.loads(hf.to_str())["added_tokens"]
    texts = texts_with(added)
    assert_texts_same(ours, hf, texts)
    half = len(texts) // 2
    pairs = list(zip(texts[half : half + 200], texts[:200], strict=True))
    assert [fields(ours.encode(*p)) for p in pairs] == [fields(hf.encode(*p)) for p in pairs]
    for text in texts[half:]:
        ids = hf.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip) == hf.decode(ids, skip), (text, skip)


def in_vocab_tokens(hf: Any) -> list[str]:
    """Six tokens of the model's vocabulary, taken from encoding the first lines."""
    seen: list[str] = []
    special = set(hf.get_added_tokens_decoder().values())
    for line in LINES[:20]:
        for token in hf.encode(line, add_special_tokens=False).tokens:
            if token not in seen and token not in {str(s) for s in special} and len(token) > 1:
                seen.append(token)
    return seen[:6]


def check(path: Path, family: str, scenario: str, tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    steps = scenarios(PAD_TOKENS[family], in_vocab_tokens(hf))[scenario]
    check_steps(path, steps, tmp_path)


def check_steps(path: Path, steps: list[Step], tmp_path: Path) -> None:
    """Runs ``steps`` on HF and on tokensmith, then compares every output, before and after
    a save and reload."""
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    apply(hf, ours, steps)
    added = contents(steps)
    assert_same(hf, ours, added)
    # What save() writes loads back the same in HF and in tokensmith.
    ours.save(tmp_path / "added.json")
    reloaded = HfTokenizer.from_file(str(tmp_path / "added.json"))
    assert_same(reloaded, tokensmith.Tokenizer.from_file(tmp_path / "added.json"), added)
    assert reloaded.get_vocab() == hf.get_vocab()


SCENARIOS = ["plain", "flags", "special", "in-vocab"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_bert(bert_json: Path, scenario: str, tmp_path: Path) -> None:
    check(bert_json, "bert", scenario, tmp_path)


family_json = family_fixture(["roberta", "t5"])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_families(family_json: Family, scenario: str, tmp_path: Path) -> None:
    family, path = family_json
    check(path, family, scenario, tmp_path)


def test_hf_added_token_objects_are_accepted(bert_json: Path) -> None:
    """HF's own AddedToken objects work as tokensmith's do."""
    from tokenizers import AddedToken as HfAddedToken
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    tokens = [HfAddedToken("<m>", lstrip=True), HfAddedToken("Zz", single_word=True), "x"]
    assert ours.add_tokens(tokens) == hf.add_tokens(tokens)
    assert_same(hf, ours, ["<m>", "Zz", "x"])


def test_added_token_defaults_match_hf() -> None:
    from tokenizers import AddedToken as HfAddedToken

    for kwargs in ({}, {"special": True}, {"special": True, "normalized": True}, {"lstrip": True}):
        assert repr(tokensmith.AddedToken("<t>", **kwargs)) == repr(HfAddedToken("<t>", **kwargs))


def test_add_special_tokens_makes_the_token_special(bert_json: Path) -> None:
    """As HF's does, ``add_special_tokens`` sets ``special`` (and so, unless it was set,
    ``normalized``) on the AddedToken given."""
    from tokenizers import AddedToken as HfAddedToken
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    mine, theirs = tokensmith.AddedToken("Qq"), HfAddedToken("Qq")
    assert ours.add_special_tokens([mine]) == hf.add_special_tokens([theirs])
    assert repr(mine) == repr(theirs)
    assert_same(hf, ours, ["Qq"])


@pytest.mark.parametrize("bad", [[3], [None], "abc", [b"<x>"], [["<x>"]]])
def test_bad_input_is_a_type_error(bert_json: Path, bad: Any) -> None:
    """HF raises TypeError for each of these; tokensmith raises its AddedTokenError (a
    TypeError) and leaves the tokenizer unchanged."""
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    before = ours.to_str()
    for method in ("add_tokens", "add_special_tokens"):
        with pytest.raises(TypeError):
            getattr(hf, method)(bad)
        with pytest.raises(AddedTokenError):
            getattr(ours, method)(bad)
    assert ours.get_vocab() == hf.get_vocab()
    assert ours.to_str() == before


def test_empty_strings_are_ignored(bert_json: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    assert ours.add_tokens(["", ""]) == hf.add_tokens(["", ""]) == 0
    assert ours.add_special_tokens([""]) == hf.add_special_tokens([""]) == 0
    assert ours.get_vocab_size() == hf.get_vocab_size()
