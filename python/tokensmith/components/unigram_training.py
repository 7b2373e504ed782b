"""``Tokenizer.train`` with a ``UnigramTrainer``: HF's input and output around tokensmith's
Unigram trainer (sentencepiece's EM, ``trainers/unigram`` in the core).

HF's ``UnigramTrainer`` learns from the words the tokenizer's normalizer and pre-tokenizer
cut, with their counts, each word a sentence of its own, and lets a piece hold any
characters up to ``max_piece_length``. So the words are counted in the core with the
tokenizer's own pipeline, and the trainer runs on the ``(word, count)`` pairs told to leave
them as they are: no normalization, no whitespace rules, no split by script or digits,
every character kept (``character_coverage=1.0``), no sentence length limit, and seed
substrings counted once per distinct word, as HF counts them. The
characters sentencepiece reserves (space, ``▁``, tab, line ends, NUL, U+2585, and ``<``,
which starts its meta pieces) are swapped for private-use characters the words lack while
it trains, and swapped back in the pieces.

The vocabulary is then laid out as HF lays it out: the special tokens in order (the
``unk_token`` first when it is not one of them), then the pieces by falling score;
``unk_id`` is the ``unk_token``'s id (None without one) and ``byte_fallback`` is off.
Its size is ``vocab_size`` when the corpus yields that many pieces, else every piece the EM
keeps (HF too gives fewer then).

>>> from tokensmith import Tokenizer, models, pre_tokenizers, trainers
>>> tok = Tokenizer(models.Unigram())
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> trainer = trainers.UnigramTrainer(
...     vocab_size=12, special_tokens=["<pad>"], unk_token="<unk>", show_progress=False)
>>> tok.train_from_iterator(["low lower lowest newer newest"] * 20, trainer)
>>> [tok.id_to_token(i) for i in range(2)], tok.get_vocab_size()
(['<unk>', '<pad>'], 12)
>>> tok.encode("lowest newer").tokens
['low', 'e', 's', 't', 'newe', 'r']

Close to HF's vocabulary, not equal: the two EMs differ in their details, and HF's own ids
and scores change with its thread count (``docs/hf_tokenizer.md``, "HF's Unigram
training"). Not handled: ``shrinking_factor`` outside 0.5 to 0.95 and ``n_sub_iterations``
outside 1 to 10 (sentencepiece's ranges) raise
:class:`~tokensmith.errors.InvalidTrainerOptionError`, and an empty corpus
:class:`~tokensmith.errors.EmptyCorpusError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tokensmith.components.models import Model, Unigram
from tokensmith.components.trainers import UnigramTrainer

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["train_unigram_model"]

# Characters sentencepiece's trainer treats apart from the others (see the module docstring).
_RESERVED = frozenset(" \t\n\r\0\u2581\u2585<")
# The meta pieces the core's trainer puts first: <unk>, <s>, </s>.
_META = 3


def _swaps(chars: set[str]) -> dict[str, str]:
    """Each reserved character of ``chars`` -> a private-use character not in ``chars``.

    >>> _swaps({"a", " "})
    {' ': '\\U000f0000'}
    """
    free = (chr(cp) for cp in range(0xF0000, 0x10FFFE) if chr(cp) not in chars)
    return {c: next(free) for c in sorted(chars & _RESERVED)}


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
    tok: Tokenizer, model: Unigram, trainer: UnigramTrainer, texts: Iterator[str]
) -> Model:
    """A Unigram model trained on ``texts`` as ``tok``'s pipeline cuts them.

    Raises:
        InvalidTrainerOptionError: ``vocab_size`` cannot hold the special tokens or the
            characters of the words, or an option is outside sentencepiece's range.
        EmptyCorpusError: the texts hold no word.
    """
    from tokensmith._core import train_unigram
    from tokensmith.components._run import word_counts
    from tokensmith.errors import InvalidTrainerOptionError
    from tokensmith.train.unigram import _ProgressBar

    del model  # HF's trainer builds a new model; nothing of the old one is kept
    opts: dict[str, Any] = trainer.to_json()["UnigramTrainer"]
    doc = json.loads(tok.to_str())
    counts = word_counts(
        texts, normalizer=doc.get("normalizer"), pre_tokenizer=doc.get("pre_tokenizer")
    )
    head, unk_id = _layout(trainer)
    vocab_size: int = opts["vocab_size"]
    required = {c for word in counts for c in word} | set(opts["initial_alphabet"])
    if len(required) > vocab_size:
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size} cannot hold the {len(required)} characters of the words "
            f"(HF's trainer refuses it too); use vocab_size >= {len(required)}"
        )
    wanted = vocab_size - len(head)
    if wanted < 1:
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size} leaves no room for pieces after {len(head)} special tokens"
        )
    swaps = _swaps(required)
    into, back = str.maketrans(swaps), str.maketrans({v: k for k, v in swaps.items()})
    pairs = [(word.translate(into), n) for word, n in counts.items()]
    bar = _ProgressBar() if opts["show_progress"] else None
    try:
        # A vocabulary smaller than the alphabet plus one learned piece is HF's own corner
        # (it then keeps every piece); here it gets one learned piece.
        learned = train_unigram(
            iter(pairs),
            vocab_size=max(wanted, len(required) + 1) + _META,
            character_coverage=1.0,
            required_chars="".join(sorted(opts["initial_alphabet"])).translate(into),
            max_piece_length=opts["max_piece_length"],
            shrinking_factor=float(opts["shrinking_factor"]),
            num_sub_iterations=opts["n_sub_iterations"],
            seed_sentencepiece_size=opts["seed_size"],
            max_sentence_length=max((len(w.encode()) for w, _ in pairs), default=1),
            split_by_whitespace=False,
            split_by_unicode_script=False,
            split_by_number=False,
            add_dummy_prefix=False,
            remove_extra_whitespaces=False,
            normalization_rule_name="identity",
            progress=bar,
            weighted=True,
            hard_vocab_limit=False,
            seeds_per_distinct_word=True,
        )
    finally:
        if bar is not None:
            bar.close()
    pieces = [(p.translate(back), float(s)) for p, s, kind in learned.pieces() if kind == "normal"]
    vocab = [(t, 0.0) for t in head] + pieces
    return Unigram(vocab, unk_id=unk_id, byte_fallback=False)
