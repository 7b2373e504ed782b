"""``Tokenizer.train`` with a ``UnigramTrainer``: HF's Unigram training, step for step
(``trainers/unigram/hf_*.rs`` in the core), on the words the tokenizer's pipeline cuts.

HF's ``UnigramTrainer`` learns from the words the tokenizer's normalizer and pre-tokenizer
cut, with their counts. They are counted in the core with the tokenizer's own pipeline and
handed to the core's HF trainer: seeds from the suffix tree of the distinct words, EM with
HF's lattice arithmetic, HF's pruning and ``finalize`` (``docs/hf_tokenizer.md``, "HF's
Unigram training").

The vocabulary is then laid out as HF lays it out: the special tokens in order (the
``unk_token`` first when it is not one of them), then the pieces by falling score;
``unk_id`` is the ``unk_token``'s id (None without one) and ``byte_fallback`` is off.

>>> from tokensmith import Tokenizer, models, pre_tokenizers, trainers
>>> tok = Tokenizer(models.Unigram())
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> trainer = trainers.UnigramTrainer(
...     vocab_size=14, special_tokens=["<pad>"], unk_token="<unk>", show_progress=False)
>>> tok.train_from_iterator(["low lower lowest newer newest"] * 20, trainer)  # 13: HF's too
>>> [tok.id_to_token(i) for i in range(2)], tok.get_vocab_size()
(['<unk>', '<pad>'], 13)
>>> tok.encode("lowest newer").tokens
['lowe', 's', 't', 'newe', 'r']

The pieces and scores are HF's (scores to the last bits of a float sum), with two things
HF leaves to its hash maps, which change from run to run: the order of the required
characters the model lost (each scored 0.0001 above the one before it; here in code point
order) and the order among pieces of exactly equal score.

``show_progress=True`` draws a bar on stderr over the rounds of EM and pruning (its total
an estimate refined each round, reached at the end); ``False`` draws nothing.

Not handled: an empty corpus raises :class:`~tokensmith.errors.EmptyCorpusError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from tokensmith.components.models import Model, Unigram
from tokensmith.components.trainers import UnigramTrainer

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["RoundProgress", "train_unigram_model"]

RoundProgress = Callable[[int, int], object]
"""Called as ``progress(done, total)`` after each round of EM and pruning."""


def _layout(trainer: UnigramTrainer) -> tuple[list[str], int | None]:
    """The tokens before the pieces (specials, and the unk_token first when it is not one)
    and the unk_id, as HF's trainer sets them."""
    specials = [t.content for t in trainer.special_tokens]
    unk = trainer.unk_token
    if unk is None:
        return specials, None
    if unk in specials:
        return specials, specials.index(unk)
    return [unk, *specials], 0


def train_unigram_model(
    tok: Tokenizer,
    model: Unigram,
    trainer: UnigramTrainer,
    texts: Iterator[str],
    progress: RoundProgress | None = None,
) -> Model:
    """A Unigram model trained on ``texts`` as ``tok``'s pipeline cuts them; ``progress``
    (and the bar the trainer's ``show_progress`` draws) gets ``(done, total)`` after each
    round, ``total`` an estimate that ``done`` reaches at the end.

    Raises:
        InvalidTrainerOptionError: ``vocab_size`` cannot hold the special tokens or the
            characters of the words.
        EmptyCorpusError: the texts hold no word.
    """
    from tokensmith._core import train_unigram_hf
    from tokensmith.components._run import word_counts
    from tokensmith.errors import EmptyCorpusError, InvalidTrainerOptionError
    from tokensmith.train import progress as bars

    del model  # HF's trainer builds a new model; nothing of the old one is kept
    opts: dict[str, Any] = trainer.to_json()["UnigramTrainer"]
    doc = json.loads(tok.to_str())
    counts = word_counts(
        texts, normalizer=doc.get("normalizer"), pre_tokenizer=doc.get("pre_tokenizer")
    )
    words = [(word, n) for word, n in counts.items() if word]
    if not words:
        raise EmptyCorpusError("the texts hold no word to train on")
    head, unk_id = _layout(trainer)
    vocab_size: int = opts["vocab_size"]
    required = {c for word, _ in words for c in word} | set(opts["initial_alphabet"])
    if len(required) > vocab_size:
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size} cannot hold the {len(required)} characters of the words "
            f"(HF's trainer refuses it too); use vocab_size >= {len(required)}"
        )
    keep = vocab_size - len(head)
    if keep < 0:
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size} cannot hold the {len(head)} special tokens"
        )
    with bars.round_bar(enabled=opts["show_progress"]) as tick:

        def report(done: int, total: int) -> None:
            tick(done, total)
            if progress is not None:
                progress(done, total)

        pieces = train_unigram_hf(
            words,
            vocab_size=vocab_size,
            keep=keep,
            required="".join(sorted(required)),
            n_sub_iterations=opts["n_sub_iterations"],
            shrinking_factor=float(opts["shrinking_factor"]),
            max_piece_length=opts["max_piece_length"],
            seed_size=opts["seed_size"],
            progress=report,
        )
    vocab = [(t, 0.0) for t in head] + pieces
    return Unigram(vocab, unk_id=unk_id, byte_fallback=False)
