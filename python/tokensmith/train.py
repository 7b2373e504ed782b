"""Train a byte-level BPE vocabulary (GPT-2 / tiktoken style) and get an :class:`Encoding`.

The texts are split by ``pat_str``, the pieces are counted in parallel by the Rust core
(with the GIL released), and merges are learned on the counts. The 256 bytes keep ranks
0..255, learned tokens follow in the order learned, and special tokens come last.

>>> import tokensmith
>>> enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, min_frequency=2)
>>> enc.n_vocab
262
>>> [enc.decode_single_token_bytes(t) for t in enc.encode(" lower")]
[b' lower']

Ties between pairs of equal count go, by default, the way Hugging Face ``BpeTrainer`` sends
them (``compat="hf"``), so with the same pre-tokenization the merges are HF's merges.

Files are read with ``files=`` (paths or globs; plain, gzip or zstd; text or JSONL, see
:mod:`tokensmith.corpus`), and the result is saved with ``Encoding.save``.

Not handled yet: the character-level and Metaspace families, Parquet input, progress bars
inside the trainer, and vocabulary extension (see issue 3).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Literal

from tokensmith._core import O200K_PATTERN
from tokensmith._core import train_bpe_bytes as _train_bpe_bytes
from tokensmith.corpus import Corpus, Inputs
from tokensmith.encoding import Encoding
from tokensmith.errors import InvalidTrainerOptionError

__all__ = ["InvalidUtf8Warning", "train_bpe"]


class InvalidUtf8Warning(UnicodeWarning):
    """Input files held invalid UTF-8, which was replaced with U+FFFD; the message counts it."""


_BYTES = 256


def train_bpe(
    texts: Iterable[str] | None = None,
    *,
    vocab_size: int,
    files: Inputs | Corpus | None = None,
    field: str = "text",
    errors: Literal["replace", "strict"] = "replace",
    pat_str: str = O200K_PATTERN,
    min_frequency: int = 2,
    special_tokens: Sequence[str] = (),
    max_token_length: int | None = None,
    compat: Literal["hf", "ranks"] = "hf",
    name: str = "trained",
) -> Encoding:
    """Learns a byte-level BPE vocabulary from ``texts``.

    Args:
        texts: Any iterable of strings (a list, a generator over a file's lines, ...). It is
            read once, in chunks; the corpus is never held in memory whole.
        files: Instead of ``texts``: a path or glob pattern (``"data/**/*.txt.gz"``), or a
            list of them, or a :class:`~tokensmith.corpus.Corpus`. Text files give one text
            per line; ``.jsonl``/``.ndjson`` files give ``field`` of each record; gzip and
            zstd are detected. Read lazily, line by line.
        field: The JSONL field that holds the text.
        errors: Invalid UTF-8 in ``files``: ``"replace"`` it with U+FFFD (an
            :class:`InvalidUtf8Warning` gives the count) or ``"strict"`` (raise
            :class:`~tokensmith.errors.CorpusFormatError` with the file and byte offset).
        vocab_size: The size of the result: 256 byte tokens, the learned tokens and the
            special tokens. Training stops earlier if no pair reaches ``min_frequency``.
        pat_str: The pre-tokenizer regex; merges never cross its pieces.
        min_frequency: A pair seen fewer times than this is never merged.
        special_tokens: Special tokens, given the ids after the last learned token.
        max_token_length: The longest learned token, in bytes (under ``compat="hf"`` HF's
            rule applies: learned tokens longer than 2 bytes stay strictly shorter than it).
        compat: ``"hf"`` breaks ties between pairs of equal count as HF ``BpeTrainer`` with a
            ``ByteLevel`` pre-tokenizer does; ``"ranks"`` breaks them by tokensmith rank.
        name: The name of the returned encoding.

    Raises:
        EmptyCorpusError: ``texts`` holds no text.
        InputNotFoundError: a file does not exist or a pattern matches nothing.
        InvalidTrainerOptionError: an option cannot work (the message says which and why).
        PatternError: ``pat_str`` does not compile.
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            "texts must be an iterable of strings, not a single string; "
            "pass [text] to train on one text, or files=path to read a file"
        )
    corpus: Corpus | None = None
    if files is not None:
        if texts is not None:
            raise TypeError("pass texts or files=, not both")
        corpus = files if isinstance(files, Corpus) else Corpus(files, field=field, errors=errors)
        texts = corpus
    elif texts is None:
        raise TypeError("train_bpe needs texts (an iterable of strings) or files=...")
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a sequence of strings, not one string")
    specials = list(special_tokens)
    if not isinstance(vocab_size, int) or vocab_size < _BYTES + len(specials):
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size!r} is smaller than the {_BYTES} byte tokens plus "
            f"{len(specials)} special tokens; use vocab_size >= {_BYTES + len(specials)}"
        )
    if not isinstance(min_frequency, int) or min_frequency < 0:
        raise InvalidTrainerOptionError(f"min_frequency={min_frequency!r} must be an int >= 0")
    if max_token_length is not None and max_token_length < 1:
        raise InvalidTrainerOptionError(
            f"max_token_length={max_token_length!r} must be None or an int >= 1"
        )
    if compat not in ("hf", "ranks"):
        raise InvalidTrainerOptionError(f'compat={compat!r} is not known; use "hf" or "ranks"')
    ranks, special_ids, merges = _train_bpe_bytes(
        texts,
        pattern=pat_str,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials,
        max_token_length=max_token_length,
        compat=compat,
    )
    encoding = Encoding(
        name,
        pat_str=pat_str,
        mergeable_ranks=dict(ranks),
        special_tokens=dict(special_ids),
    )
    encoding._bpe_merges = list(merges)
    if corpus is not None and corpus.stats.replaced:
        warnings.warn(
            f"{corpus.stats.replaced} invalid UTF-8 sequences in {corpus.stats.files} files "
            "were replaced with U+FFFD; pass errors='strict' to stop at the first one",
            InvalidUtf8Warning,
            stacklevel=2,
        )
    return encoding
