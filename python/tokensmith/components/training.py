"""``Tokenizer.train`` and ``Tokenizer.train_from_iterator``, as HF's: train the tokenizer's
own model on its own normalizer and pre-tokenizer with a :mod:`tokensmith.trainers` trainer.

A :class:`~tokensmith.trainers.WordLevelTrainer` on a ``WordLevel`` model keeps the
special tokens, then the words the pipeline cuts by falling count (ties in code point
order), those seen ``min_frequency`` times, up to ``vocab_size``: HF's rule (a word that is
also a special token takes the later id). A
:class:`~tokensmith.trainers.BpeTrainer` on a ``BPE`` model runs tokensmith's HF-exact
BPE trainer (``train_bpe_chars``, the one ``train_bpe(kind="char"/"metaspace")`` uses),
which counts the words the tokenizer's pipeline cuts in the Rust core: the vocabulary and
merges are HF's. As in HF, the trainer's prefix and suffix are set on the model and its
special tokens are added as special tokens; ``train`` reads each file line by line with
the line ending kept, as HF does. A :class:`~tokensmith.trainers.WordPieceTrainer` on a
``WordPiece`` model runs the same BPE training, as HF does, and keeps its vocabulary (see
the trainer for the ids of the ``##x`` tokens, which HF leaves to a hash map's order).
Either trainer's ``show_progress=True`` draws a bar on stderr over the merges; ``False``
draws nothing. Every trainer's ``show_progress=True`` first draws a bar over the texts read
(``train_from_iterator``'s ``length`` its total, as in HF).

>>> from tokensmith import Tokenizer, models, pre_tokenizers, trainers
>>> tok = Tokenizer(models.BPE())
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> tok.train_from_iterator(["low lower lowest"] * 5, trainers.BpeTrainer(vocab_size=12))
>>> tok.encode("lower").tokens
['lower']

A :class:`~tokensmith.trainers.UnigramTrainer` on a ``Unigram`` model runs HF's Unigram
training on the pipeline's word counts and lays the result out as HF does (see
:mod:`tokensmith.components.unigram_training`; its pieces and scores are HF's).

Not handled: a ``ParityBpeTrainer`` raises :class:`~tokensmith.errors.UnsupportedFeatureError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, cast

from tokensmith.components.models import BPE, Model, Unigram, WordLevel, WordPiece
from tokensmith.components.trainers import (
    BpeTrainer,
    Trainer,
    UnigramTrainer,
    WordLevelTrainer,
    WordPieceTrainer,
)
from tokensmith.components.unigram_training import train_unigram_model

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
        default the model's :meth:`~tokensmith.models.Model.get_trainer`); its
        ``show_progress`` draws a bar over the lines read, then one over the training.

        Raises:
            InputNotFoundError: a file is missing.
            UnsupportedFeatureError: a trainer other than BpeTrainer on a BPE model,
                WordPieceTrainer on a WordPiece model, UnigramTrainer on a Unigram model
                or WordLevelTrainer on a WordLevel model.
            InvalidTrainerOptionError: the trainer's options cannot work on this corpus.
        """
        self._train(_lines(files), trainer)

    def train_from_iterator(
        self, iterator: Iterable[Any], trainer: Trainer | None = None, length: int | None = None
    ) -> None:
        """Trains the model on the texts of ``iterator`` (str, or batches of str).

        ``length`` is, as in HF, only the total of the progress bar over the texts read
        (drawn when the trainer's ``show_progress`` is True): it never limits or changes
        the training. None leaves the bar's total unknown.

        Raises:
            UnsupportedFeatureError: a trainer other than BpeTrainer on a BPE model,
                WordPieceTrainer on a WordPiece model, UnigramTrainer on a Unigram model
                or WordLevelTrainer on a WordLevel model.
            InvalidTrainerOptionError: the trainer's options cannot work on this corpus.
        """
        self._train(_flatten(iterator), trainer, length)

    def _train(
        self, texts: Iterator[str], trainer: Trainer | None, length: int | None = None
    ) -> None:
        from tokensmith.errors import UnsupportedFeatureError
        from tokensmith.train import progress as bars

        tok = cast("Tokenizer", self)
        model = tok.model
        if trainer is None:
            trainer = model.get_trainer()
        texts = bars.read_bar(texts, length, enabled=bool(trainer.show_progress))
        if isinstance(model, BPE) and isinstance(trainer, BpeTrainer):
            trained = _train_bpe(tok, model, trainer, texts)
        elif isinstance(model, WordPiece) and isinstance(trainer, WordPieceTrainer):
            trained = _train_word_piece(tok, model, trainer, texts)
        elif isinstance(model, WordLevel) and isinstance(trainer, WordLevelTrainer):
            trained = _train_word_level(tok, model, trainer, texts)
        elif isinstance(model, Unigram) and isinstance(trainer, UnigramTrainer):
            trained = train_unigram_model(tok, model, trainer, texts)
        else:
            raise UnsupportedFeatureError(
                f"Tokenizer.train runs a BpeTrainer on a BPE model, a WordPieceTrainer on a "
                f"WordPiece model, a UnigramTrainer on a Unigram model or a WordLevelTrainer "
                f"on a WordLevel model; got a "
                f"{type(trainer).__name__} on a {type(model).__name__} model"
            )
        tok.model = trained
        tok.add_special_tokens(trainer.special_tokens)


def _with(model: Model, **fields: Any) -> Model:
    """A copy of ``model`` with ``fields`` replaced."""
    state = {k: v for k, v in model.to_json().items() if k != "type"}
    state.update(fields)
    copy = type(model).__new__(type(model))
    copy._init(**state)
    return copy


def _run_bpe(
    tok: Tokenizer, opts: dict[str, Any], texts: Iterator[str], variant_order: Sequence[str] = ()
) -> tuple[list[str], list[tuple[str, str]]]:
    """HF's BPE training with the options ``opts`` (a ``BpeTrainer``'s state) on the texts
    as ``tok``'s normalizer and pre-tokenizer cut them: the tokens by id, and the merges.
    With the trainer's ``show_progress`` a bar on stderr follows the merges (every 100, then
    the last); without it nothing is drawn."""
    from tokensmith._core import train_bpe_chars
    from tokensmith.train import progress as bars

    doc = json.loads(tok.to_str())
    with ExitStack() as stack:
        ticks: list[Callable[[int], None]] = []

        def tick(n: int) -> None:
            # Opened at the first merge, once the texts are read and their bar is closed.
            if not ticks:
                bar = bars.merge_bar(opts["vocab_size"], enabled=opts["show_progress"])
                ticks.append(stack.enter_context(bar))
            ticks[0](n)

        vocab, merges = train_bpe_chars(
            texts,
            pre_tokenizer=json.dumps(doc.get("pre_tokenizer")),
            normalizer=None if doc.get("normalizer") is None else json.dumps(doc["normalizer"]),
            vocab_size=opts["vocab_size"],
            min_frequency=opts["min_frequency"],
            special_tokens=[t["content"] for t in opts["special_tokens"]],
            limit_alphabet=opts["limit_alphabet"],
            initial_alphabet=opts["initial_alphabet"],
            max_token_length=opts["max_token_length"],
            continuing_subword_prefix=opts["continuing_subword_prefix"],
            end_of_word_suffix=opts["end_of_word_suffix"],
            variant_order=list(variant_order),
            compat="hf",
            keep_alphabet=True,
            progress=tick,
        )
        tick(len(merges))
    return vocab, merges


def _train_bpe(tok: Tokenizer, model: BPE, trainer: BpeTrainer, texts: Iterator[str]) -> Model:
    opts = trainer.to_json()["BpeTrainer"]
    vocab, merges = _run_bpe(tok, opts, texts)
    fields: dict[str, Any] = {
        "vocab": {t: i for i, t in enumerate(vocab)},
        "merges": [list(m) for m in merges],
    }
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if opts[key] is not None:
            fields[key] = opts[key]
    return _with(model, **fields)


def _train_word_piece(
    tok: Tokenizer, model: WordPiece, trainer: WordPieceTrainer, texts: Iterator[str]
) -> Model:
    """HF's rule: a BPE training with the trainer's options, whose vocabulary (not merges)
    becomes the model's, with the trainer's prefix (``"##"`` when it has none); the model
    keeps its ``unk_token`` and ``max_input_chars_per_word``."""
    opts = trainer.to_json()["WordPieceTrainer"]["bpe_trainer"]
    vocab, _ = _run_bpe(tok, opts, texts, trainer.variant_order)
    prefix = opts["continuing_subword_prefix"]
    return _with(
        model,
        vocab={t: i for i, t in enumerate(vocab)},
        continuing_subword_prefix="##" if prefix is None else prefix,
    )


def _train_word_level(
    tok: Tokenizer, model: WordLevel, trainer: WordLevelTrainer, texts: Iterator[str]
) -> Model:
    from tokensmith.components._run import word_counts

    opts = trainer.to_json()["WordLevelTrainer"]
    doc = json.loads(tok.to_str())
    counts = word_counts(
        texts, normalizer=doc.get("normalizer"), pre_tokenizer=doc.get("pre_tokenizer")
    )
    specials = [t["content"] for t in opts["special_tokens"]]
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    words = [w for w, n in ranked if n >= opts["min_frequency"]]
    words = words[: max(opts["vocab_size"] - len(specials), 0)]
    # Ids run over the special tokens, then the words; a word that is also a special token
    # takes its later id, leaving a gap, as in HF.
    vocab = {token: i for i, token in enumerate([*specials, *words])}
    return _with(model, vocab=vocab)
