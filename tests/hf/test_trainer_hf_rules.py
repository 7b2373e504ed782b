"""Two of HF's trainer and model rules, against HF on the committed multilingual text:

- a ``BpeTrainer`` or ``WordPieceTrainer`` whose ``vocab_size`` is below the special tokens
  plus the alphabet keeps them all and learns no merge;
- a ``None`` where HF's constructor takes only a str (``WordPiece``'s ``unk_token`` and
  prefix, ``WordPieceTrainer``'s prefix, and the prefix and suffix of ``BPE`` and
  ``BpeTrainer`` and ``WordPieceTrainer``'s suffix, though HF documents their default as None)
  or any non-str prefix or suffix raises a ``TypeError`` (tokensmith's
  ``ArgumentTypeError``), while a trainer's prefix may be set to None afterwards, as in HF;
- left out, that prefix and suffix are None in both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith
import tokensmith.errors

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()[:400]


def trained(lib: Any, kind: str, vocab_size: int) -> Any:
    model, trainer = (
        (lib.models.BPE, lib.trainers.BpeTrainer)
        if kind == "bpe"
        else (lib.models.WordPiece, lib.trainers.WordPieceTrainer)
    )
    tok = lib.Tokenizer(model())
    tok.normalizer = lib.normalizers.NFKC()
    tok.pre_tokenizer = lib.pre_tokenizers.Whitespace()
    specials = ["<s>", "</s>", "[UNK]"]
    tok.train_from_iterator(
        LINES, trainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    )
    return tok


@pytest.mark.parametrize("kind", ["bpe", "wordpiece"])
@pytest.mark.parametrize("vocab_size", [1, 10, 150])
def test_a_small_vocab_size_keeps_the_alphabet(kind: str, vocab_size: int) -> None:
    ours, hf = trained(tokensmith, kind, vocab_size), trained(tokenizers, kind, vocab_size)
    mine, theirs = ours.get_vocab(), hf.get_vocab()
    assert ours.get_vocab_size() == hf.get_vocab_size() > vocab_size
    # HF numbers the ##x variants in a hash map's order; the set and the rest are fixed.
    assert set(mine) == set(theirs)
    assert {t: i for t, i in mine.items() if not t.startswith("##")} == {
        t: i for t, i in theirs.items() if not t.startswith("##")
    }
    if kind == "bpe":
        assert json.loads(ours.to_str())["model"]["merges"] == []
        assert json.loads(hf.to_str())["model"]["merges"] == []
    for line in LINES[::9]:
        assert ours.encode(line).tokens == hf.encode(line).tokens, line


CONSTRUCTORS: dict[str, Callable[[Any], Any]] = {
    "WordPiece unk_token": lambda lib: lib.models.WordPiece(unk_token=None),
    "WordPiece prefix": lambda lib: lib.models.WordPiece(continuing_subword_prefix=None),
    "WordPieceTrainer prefix": lambda lib: lib.trainers.WordPieceTrainer(
        continuing_subword_prefix=None
    ),
    "BPE prefix None": lambda lib: lib.models.BPE(continuing_subword_prefix=None),
    "BPE suffix None": lambda lib: lib.models.BPE(end_of_word_suffix=None),
    "BpeTrainer prefix None": lambda lib: lib.trainers.BpeTrainer(continuing_subword_prefix=None),
    "BpeTrainer suffix None": lambda lib: lib.trainers.BpeTrainer(end_of_word_suffix=None),
    "WordPieceTrainer suffix None": lambda lib: lib.trainers.WordPieceTrainer(
        end_of_word_suffix=None
    ),
    "BPE prefix int": lambda lib: lib.models.BPE(continuing_subword_prefix=1),
    "BPE suffix int": lambda lib: lib.models.BPE(end_of_word_suffix=2),
    "BpeTrainer prefix int": lambda lib: lib.trainers.BpeTrainer(continuing_subword_prefix=1),
    "BpeTrainer suffix int": lambda lib: lib.trainers.BpeTrainer(end_of_word_suffix=1),
}


@pytest.mark.parametrize("call", sorted(CONSTRUCTORS))
def test_a_missing_str_raises_type_error(call: str) -> None:
    with pytest.raises(TypeError):
        CONSTRUCTORS[call](tokenizers)
    with pytest.raises(tokensmith.errors.ArgumentTypeError, match="must be a str"):
        CONSTRUCTORS[call](tokensmith)


@pytest.mark.parametrize("make", ["models.BPE", "trainers.BpeTrainer", "trainers.WordPieceTrainer"])
def test_a_left_out_suffix_is_none(make: str) -> None:
    module, name = make.split(".")
    for lib in (tokenizers, tokensmith):
        built = getattr(getattr(lib, module), name)()
        assert built.end_of_word_suffix is None, lib
        if name != "WordPieceTrainer":
            assert built.continuing_subword_prefix is None, lib


def test_setting_none_follows_hf() -> None:
    for lib in (tokenizers, tokensmith):
        trainer = lib.trainers.WordPieceTrainer()
        trainer.continuing_subword_prefix = None
        assert trainer.continuing_subword_prefix is None
        model = lib.models.BPE()
        model.continuing_subword_prefix = None
        assert model.continuing_subword_prefix is None
        with pytest.raises(TypeError):
            lib.models.WordPiece().continuing_subword_prefix = None
