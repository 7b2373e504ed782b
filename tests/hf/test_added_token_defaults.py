"""``normalized`` left unset, compared with HF ``tokenizers``: it means "not special", decided
when the token is added. Checked for tokensmith's and HF's own ``AddedToken`` objects given to
``add_tokens`` and ``add_special_tokens`` (which makes the object special, and so, unless
``normalized`` was set, not normalized), and for a ``tokenizer.json`` whose ``added_tokens``
entries leave the field out: HF refuses such a file; tokensmith reads the field as HF's
``AddedToken`` constructor defaults it.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from test_add_tokens import assert_same

# Every combination of the flags that decide the default, ``normalized`` unset or set.
KWARGS = [
    {k: v for k, v in (("special", special), ("normalized", normalized)) if v is not None}
    for special, normalized in itertools.product([None, False, True], [None, False, True])
]


@pytest.mark.parametrize("method", ["add_tokens", "add_special_tokens"])
@pytest.mark.parametrize("maker", ["tokensmith", "tokenizers"])
def test_unset_normalized_follows_special(bert_json: Path, method: str, maker: str) -> None:
    """The same tokens, flags and encodings as HF, whichever AddedToken class is given; the
    objects given end up with the same flags too."""
    from tokenizers import AddedToken as HfAddedToken
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(bert_json))
    ours = tokensmith.Tokenizer.from_file(bert_json)
    contents = [f"Zq{i}" for i in range(len(KWARGS))]
    kind: Any = tokensmith.AddedToken if maker == "tokensmith" else HfAddedToken
    mine = [kind(c, **kw) for c, kw in zip(contents, KWARGS, strict=True)]
    theirs = [HfAddedToken(c, **kw) for c, kw in zip(contents, KWARGS, strict=True)]
    assert getattr(ours, method)(mine) == getattr(hf, method)(theirs)
    assert [repr(t) for t in mine] == [repr(t) for t in theirs]
    # Lower-case spellings match only the normalized ones (BERT uncased lowercases).
    assert_same(hf, ours, [*contents, *(c.lower() for c in contents)])


def test_file_without_normalized(bert_json: Path, tmp_path: Path) -> None:
    """Entries without ``normalized`` load as ``normalized = not special``: the same as HF
    loading the file with the field written as its constructor would default it."""
    from tokenizers import AddedToken as HfAddedToken
    from tokenizers import Tokenizer as HfTokenizer

    doc = json.loads(bert_json.read_text(encoding="utf-8"))
    doc["padding"] = doc["truncation"] = None
    top = max(doc["model"]["vocab"].values())
    for i, special in enumerate([True, False, True, False]):
        doc["added_tokens"].append(
            {
                "id": top + 1 + i,
                "content": f"Zq{i}",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "special": special,
            }
        )
    for entry in doc["added_tokens"]:
        entry.pop("normalized", None)
    unset = tmp_path / "unset.json"
    unset.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(Exception, match="normalized"):
        HfTokenizer.from_file(str(unset))
    for entry in doc["added_tokens"]:
        entry["normalized"] = HfAddedToken(entry["content"], special=entry["special"]).normalized
    filled = tmp_path / "filled.json"
    filled.write_text(json.dumps(doc), encoding="utf-8")
    ours = tokensmith.Tokenizer.from_file(unset)
    hf = HfTokenizer.from_file(str(filled))
    # Adding nothing makes to_str() write the added tokens as loaded, flags included.
    assert ours.add_tokens([]) == 0
    assert_same(hf, ours, [f"Zq{i}" for i in range(4)] + ["zq0", "zq1"])


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"content": 3}, "content"),
        ({"content": "a", "lstrip": 1}, "lstrip"),
        ({"content": "a", "rstrip": "no"}, "rstrip"),
        ({"content": "a", "single_word": None}, "single_word"),
        ({"content": "a", "special": "yes"}, "special"),
        ({"content": "a", "normalized": 0}, "normalized"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict[str, Any], option: str) -> None:
    """HF's constructor raises TypeError; tokensmith's AddedTokenError (a TypeError) names
    the argument."""
    from tokenizers import AddedToken as HfAddedToken
    from tokensmith.errors import AddedTokenError

    with pytest.raises(TypeError):
        HfAddedToken(**kwargs)
    with pytest.raises(AddedTokenError, match=option):
        tokensmith.AddedToken(**kwargs)
