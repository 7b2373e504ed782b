"""``Tokenizer.train`` and ``Tokenizer.train_from_iterator``, as HF's: train the tokenizer's
own model on its own normalizer and pre-tokenizer with a :mod:`tokensmith.trainers` trainer.

A :class:`~tokensmith.trainers.BpeTrainer` on a ``BPE`` model runs tokensmith's HF-exact
BPE trainer (``train_bpe_chars``, the one ``train_bpe(kind="char"/"metaspace")`` uses),
which counts the words the tokenizer's pipeline cuts in the Rust core: the vocabulary and
merges are HF's. As in HF, the trainer's prefix and suffix are set on the model and its
special tokens are added as special tokens; ``train`` reads each file line by line with
the line ending kept, as HF does.

>>> from tokensmith import Tokenizer, models, pre_tokenizers, trainers
>>> tok = Tokenizer(models.BPE())
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> tok.train_from_iterator(["low lower lowest"] * 5, trainers.BpeTrainer(vocab_size=12))
>>> tok.encode("lower").tokens
['lower']

Not handled yet: the other trainers (WordPiece, WordLevel, Unigram, parity-aware BPE)
raise :class:`~tokensmith.errors.UnsupportedFeatureError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from tokensmith.components.models import BPE
from tokensmith.components.trainers import BpeTrainer, Trainer

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["TokenizerTraining"]


def _lines(files: Sequence[str | os.PathLike[str]]) -> Iterator[str]:
    from tokensmith.errors import InputNotFoundError

    for path in files:
        try:
            f = open(path, encoding="utf-8", newline="")
        except FileNotFoundError as e:
            raise InputNotFoundError(f"{os.fspath(path)}: no such training file") from e
        with f:
            yield from f


def _flatten(iterator: Iterable[Any]) -> Iterator[str]:
    """Texts from an iterator of str or of batches (lists) of str, as HF accepts."""
    for item in iterator:
        if isinstance(item, str):
            yield item
        else:
            yield from item


class TokenizerTraining:
    """``train`` and ``train_from_iterator`` (mixed into ``Tokenizer``)."""

    __slots__ = ()

    def train(
        self, files: Sequence[str | os.PathLike[str]], trainer: Trainer | None = None
    ) -> None:
        """Trains the model on ``files`` (every line, ending kept) with ``trainer`` (by
        default the model's :meth:`~tokensmith.models.Model.get_trainer`).

        Raises:
            InputNotFoundError: a file is missing.
            UnsupportedFeatureError: a trainer other than BpeTrainer on a BPE model.
        """
        self._train(_lines(files), trainer)

    def train_from_iterator(
        self, iterator: Iterable[Any], trainer: Trainer | None = None, length: int | None = None
    ) -> None:
        """Trains the model on the texts of ``iterator`` (str, or batches of str).
        ``length`` is HF's progress-bar total and changes nothing here.

        Raises:
            UnsupportedFeatureError: a trainer other than BpeTrainer on a BPE model.
        """
        del length
        self._train(_flatten(iterator), trainer)

    def _train(self, texts: Iterator[str], trainer: Trainer | None) -> None:
        from tokensmith._core import train_bpe_chars
        from tokensmith.errors import UnsupportedFeatureError

        tok = cast("Tokenizer", self)
        model = tok.model
        if trainer is None:
            trainer = model.get_trainer()
        if not isinstance(model, BPE) or not isinstance(trainer, BpeTrainer):
            raise UnsupportedFeatureError(
                f"Tokenizer.train runs a BpeTrainer on a BPE model; got a "
                f"{type(trainer).__name__} on a {type(model).__name__} model"
            )
        opts = trainer.to_json()["BpeTrainer"]
        doc = json.loads(tok.to_str())
        specials = [t["content"] for t in opts["special_tokens"]]
        vocab, merges = train_bpe_chars(
            texts,
            pre_tokenizer=json.dumps(doc.get("pre_tokenizer")),
            normalizer=None if doc.get("normalizer") is None else json.dumps(doc["normalizer"]),
            vocab_size=opts["vocab_size"],
            min_frequency=opts["min_frequency"],
            special_tokens=specials,
            limit_alphabet=opts["limit_alphabet"],
            initial_alphabet=opts["initial_alphabet"],
            max_token_length=opts["max_token_length"],
            continuing_subword_prefix=opts["continuing_subword_prefix"],
            end_of_word_suffix=opts["end_of_word_suffix"],
            compat="hf",
        )
        fields = model.to_json()
        fields["vocab"] = {t: i for i, t in enumerate(vocab)}
        fields["merges"] = [list(m) for m in merges]
        for key in ("continuing_subword_prefix", "end_of_word_suffix"):
            if opts[key] is not None:
                fields[key] = opts[key]
        trained = BPE.__new__(BPE)
        trained._init(**{k: v for k, v in fields.items() if k != "type"})
        tok.model = trained
        tok.add_special_tokens(trainer.special_tokens)
