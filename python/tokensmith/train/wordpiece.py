"""Train a WordPiece vocabulary (BERT's model), as HF ``WordPieceTrainer`` does.

HF trains WordPiece with its BPE trainer, every symbol that does not start a word carrying
the ``##`` prefix, and keeps the vocabulary (not the merges) as a WordPiece model. This does
the same with tokensmith's character-level merge loop: the corpus is normalized by the BERT
normalizer and cut by the BERT pre-tokenizer of the saved file (run by tokensmith's Rust
pipeline), so the result is an HF ``tokenizer.json`` (``Tokenizer.save`` writes it) that HF
``tokenizers``, ``transformers.PreTrainedTokenizerFast`` and tokensmith run alike.

>>> import tokensmith
>>> tok = tokensmith.train_wordpiece(["Low lower lowest, newer!"] * 10, vocab_size=40)
>>> tok.encode("lowest").tokens
['[CLS]', 'lowest', '[SEP]']
>>> tok.decode(tok.encode("Lower, newer!").ids)
'lower, newer!'

``scoring="likelihood"`` picks each merge by ``count(ab) / (count(a) * count(b))``, the
original WordPiece rule, instead of the raw count (HF has no such option). See
``docs/trainer.md``.

Not handled: Parquet input (see :mod:`tokensmith.corpus`), an ``end_of_word_suffix``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from tokensmith._core import train_bpe_chars
from tokensmith.corpus import Corpus, Inputs
from tokensmith.errors import ArgumentTypeError, InvalidTrainerOptionError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.train.bpe import resolve_texts, warn_replaced
from tokensmith.train.families import special_added_tokens

__all__ = ["BERT_SPECIAL_TOKENS", "train_wordpiece"]

#: BERT's special tokens, in BERT's id order.
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

Scoring = Literal["frequency", "likelihood"]


def bert_normalizer(lowercase: bool, strip_accents: bool | None) -> dict[str, Any]:
    """HF's ``BertNormalizer`` (``strip_accents=None``: strip them when lowercasing).

    >>> bert_normalizer(True, None)["type"]
    'BertNormalizer'
    """
    return {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
            "strip_accents": strip_accents, "lowercase": lowercase}


def _post_processor(vocab: Sequence[str]) -> dict[str, Any] | None:
    """``[CLS] $A [SEP]`` (and ``$B [SEP]``) when both tokens exist, else nothing."""
    if "[CLS]" not in vocab or "[SEP]" not in vocab:
        return None
    return {"type": "BertProcessing", "sep": ["[SEP]", vocab.index("[SEP]")],
            "cls": ["[CLS]", vocab.index("[CLS]")]}


def wordpiece_json(
    vocab: Sequence[str],
    *,
    specials: Sequence[str],
    unk_token: str,
    prefix: str,
    normalizer: dict[str, Any],
) -> str:
    """The text of an HF ``tokenizer.json`` for a WordPiece vocabulary (ids: positions)."""
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special_added_tokens(vocab, specials),
        "normalizer": normalizer,
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": _post_processor(vocab),
        "decoder": {"type": "WordPiece", "prefix": prefix, "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": unk_token,
                  "continuing_subword_prefix": prefix, "max_input_chars_per_word": 100,
                  "vocab": {t: i for i, t in enumerate(vocab)}},
    }
    return json.dumps(doc, ensure_ascii=False)


def train_wordpiece(
    texts: Iterable[str] | None = None,
    *,
    files: Inputs | Corpus | None = None,
    field: str = "text",
    errors: Literal["replace", "strict"] = "replace",
    vocab_size: int,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    unk_token: str = "[UNK]",
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    continuing_subword_prefix: str = "##",
    lowercase: bool = True,
    strip_accents: bool | None = None,
    scoring: Scoring = "frequency",
    variant_order: Sequence[str] = (),
    show_progress: bool = False,
    progress: Callable[[int], object] | None = None,
) -> Tokenizer:
    """Learns a WordPiece vocabulary of at most ``vocab_size`` tokens.

    Args:
        texts: Any iterable of strings, read once in chunks.
        files: Instead of ``texts``: paths or globs of text/JSONL files (plain, gzip, zstd),
            or a :class:`~tokensmith.corpus.Corpus`.
        field: The JSONL field that holds the text.
        errors: Invalid UTF-8 in ``files``: ``"replace"`` or ``"strict"``.
        vocab_size: The most tokens in all: specials, alphabet, ``##`` variants, learned.
        min_frequency: Pairs seen fewer times are never merged (HF's default is 0).
        special_tokens: The first ids, in order.
        unk_token: The token for words the vocabulary cannot spell (added first to the
            specials if missing).
        limit_alphabet: Keep at most this many characters (the most frequent).
        initial_alphabet: Characters kept whether the corpus has them or not.
        continuing_subword_prefix: Marks a piece that does not start its word.
        lowercase: The BERT normalizer lowercases.
        strip_accents: Strip accents (``None``: when lowercasing, as BERT does).
        scoring: ``"frequency"`` (HF's ``WordPieceTrainer``) or ``"likelihood"``
            (``count(ab) / (count(a) * count(b))``; scans every pair each merge, so slower).
        variant_order: Give the ``##x`` variants their ids in this order (the rest follow
            in string order). HF numbers them in random hash order; passing the order of
            one HF vocabulary reproduces that run exactly.
        show_progress: Draw a progress bar of the merges on stderr.
        progress: Called with the number of merges learned, every 100 merges.

    Raises:
        EmptyCorpusError: the texts hold no word.
        InvalidTrainerOptionError: an option cannot work (the message says which and why).
    """
    texts, corpus = resolve_texts(texts, files, field, errors, "train_wordpiece")
    if isinstance(special_tokens, str):
        raise ArgumentTypeError("special_tokens must be a sequence of strings, not one string")
    if not continuing_subword_prefix:
        raise InvalidTrainerOptionError(
            "continuing_subword_prefix must not be empty: WordPiece marks word-inner pieces"
        )
    if scoring not in ("frequency", "likelihood"):
        raise InvalidTrainerOptionError(
            f'scoring={scoring!r} is not known; use "frequency" or "likelihood"'
        )
    specials = list(special_tokens)
    if unk_token not in specials:
        specials.insert(0, unk_token)
    normalizer = bert_normalizer(lowercase, strip_accents)
    options: dict[str, Any] = dict(
        pre_tokenizer=json.dumps({"type": "BertPreTokenizer"}),
        normalizer=json.dumps(normalizer),
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials,
        limit_alphabet=limit_alphabet,
        initial_alphabet=[c for chunk in initial_alphabet for c in chunk],
        continuing_subword_prefix=continuing_subword_prefix,
        variant_order=list(variant_order),
        scoring=scoring,
    )
    if show_progress:
        from tokensmith.train.progress import merge_bar

        with merge_bar(vocab_size) as tick:
            def both(n: int) -> None:
                tick(n)
                if progress is not None:
                    progress(n)

            vocab, _ = train_bpe_chars(texts, progress=both, **options)
    else:
        vocab, _ = train_bpe_chars(texts, progress=progress, **options)
    warn_replaced(corpus)
    text = wordpiece_json(vocab, specials=specials, unk_token=unk_token,
                          prefix=continuing_subword_prefix, normalizer=normalizer)
    return Tokenizer.from_str(text)
