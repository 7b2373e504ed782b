"""Train a BPE vocabulary: byte-level (GPT-2 / tiktoken style, an :class:`Encoding`), or
character-level (``kind="char"``: Sennrich ``</w>`` words; ``kind="metaspace"``:
SentencePiece-style ``▁`` words with optional byte fallback), a :class:`Tokenizer` over an HF
``tokenizer.json`` (see :mod:`tokensmith.train.families`).

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

Files are read with ``files=`` (paths or globs; plain, gzip or zstd; text, JSONL or Parquet,
or an HF ``datasets`` object; see :mod:`tokensmith.corpus`), and the result is saved with
``Encoding.save``.

``progress=`` is called every 100 merges with the number learned so far (the Rust loop
takes the GIL only for that moment), and Ctrl-C stops training there with
``KeyboardInterrupt``; ``show_progress=True`` draws a rich progress bar on stderr.

Not handled yet: normalizers for the character-level families, ``base=`` (vocabulary
extension) and ``max_memory=`` for them, and parallel merging within one merge step.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, overload

from tokensmith._core import O200K_PATTERN
from tokensmith._core import train_bpe_bytes as _train_bpe_bytes
from tokensmith.corpus import Corpus, Inputs
from tokensmith.encoding import Encoding
from tokensmith.errors import ArgumentTypeError, InvalidTrainerOptionError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.train.bounded_counts import CountMode, count_bounded
from tokensmith.train.families import Digits, PrependScheme, train_char_family

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["InvalidUtf8Warning", "VocabSizeWarning", "train_bpe"]


class InvalidUtf8Warning(UnicodeWarning):
    """Input files held invalid UTF-8, which was replaced with U+FFFD; the message counts it."""


class VocabSizeWarning(UserWarning):
    """Training stopped short of ``vocab_size``: the corpus has no more pairs that reach
    ``min_frequency``. The message gives the size reached."""


def warn_short_vocab(reached: int, vocab_size: int) -> None:
    """Warns when a trained vocabulary of ``reached`` tokens is smaller than asked."""
    if reached < vocab_size:
        warnings.warn(
            f"the vocabulary reached {reached} tokens, not vocab_size={vocab_size}: the corpus "
            "has no more pairs seen min_frequency times (train on more text, or lower "
            "min_frequency)",
            VocabSizeWarning,
            stacklevel=3,
        )


_BYTES = 256


class _Options(TypedDict, total=False):
    """The keyword options of :func:`train_bpe` other than ``vocab_size`` and ``kind`` (for
    its overloads; the implementation lists and documents them)."""

    files: Inputs | Corpus | None
    field: str
    errors: Literal["replace", "strict"]
    pat_str: str | None
    min_frequency: int
    special_tokens: Sequence[str]
    max_token_length: int | None
    compat: Literal["hf", "ranks"]
    base: Encoding | None
    engine: Literal["local", "ray"]
    address: str | None
    max_memory: int | str | None
    count_mode: CountMode
    name: str
    split_digits: Digits | None
    limit_alphabet: int | None
    initial_alphabet: Iterable[str]
    unk_token: str | None
    fuse_unk: bool
    end_of_word_suffix: str | None
    continuing_subword_prefix: str | None
    pre_tokenizer: Literal["whitespace", "whitespace_split"]
    replacement: str
    prepend_scheme: PrependScheme
    byte_fallback: bool
    progress: Callable[[int], object] | None
    show_progress: bool


@overload
def train_bpe(
    texts: Iterable[str] | None = None,
    *,
    vocab_size: int,
    kind: Literal["byte"] = "byte",
    **options: Unpack[_Options],
) -> Encoding: ...


@overload
def train_bpe(
    texts: Iterable[str] | None = None,
    *,
    vocab_size: int,
    kind: Literal["char", "metaspace"],
    **options: Unpack[_Options],
) -> Tokenizer: ...


def train_bpe(
    texts: Iterable[str] | None = None,
    *,
    vocab_size: int,
    files: Inputs | Corpus | None = None,
    field: str = "text",
    errors: Literal["replace", "strict"] = "replace",
    pat_str: str | None = None,
    min_frequency: int = 2,
    special_tokens: Sequence[str] = (),
    max_token_length: int | None = None,
    compat: Literal["hf", "ranks"] = "hf",
    base: Encoding | None = None,
    engine: Literal["local", "ray"] = "local",
    address: str | None = None,
    max_memory: int | str | None = None,
    count_mode: CountMode = "exact",
    name: str = "trained",
    split_digits: Digits | None = None,
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    unk_token: str | None = "<unk>",
    fuse_unk: bool = False,
    end_of_word_suffix: str | None = None,
    continuing_subword_prefix: str | None = None,
    pre_tokenizer: Literal["whitespace", "whitespace_split"] = "whitespace",
    replacement: str = "\u2581",
    prepend_scheme: PrependScheme = "always",
    byte_fallback: bool = False,
    progress: Callable[[int], object] | None = None,
    show_progress: bool = False,
    kind: Literal["byte", "char", "metaspace"] = "byte",
) -> Encoding | Tokenizer:
    """Learns a BPE vocabulary from ``texts``: byte-level by default, or of ``kind``.

    Args:
        texts: Any iterable of strings (a list, a generator over a file's lines, ...). It is
            read once, in chunks; the corpus is never held in memory whole.
        files: Instead of ``texts``: a path or glob pattern (``"data/**/*.txt.gz"``), or a
            list of them, or a :class:`~tokensmith.corpus.Corpus`, or an HF
            ``datasets.Dataset``/``IterableDataset``. Text files give one text per line;
            ``.jsonl``/``.ndjson`` files give ``field`` of each record, ``.parquet`` files and
            datasets their ``field`` column; gzip and zstd are detected. Read lazily.
        field: The JSONL field, Parquet column or dataset column that holds the text.
        errors: Invalid UTF-8 in ``files``: ``"replace"`` it with U+FFFD (an
            :class:`InvalidUtf8Warning` gives the count) or ``"strict"`` (raise
            :class:`~tokensmith.errors.CorpusFormatError` with the file and byte offset).
        vocab_size: The size of the result: 256 byte tokens, the learned tokens and the
            special tokens. Training stops earlier if no pair reaches ``min_frequency``.
        pat_str: The pre-tokenizer regex; merges never cross its pieces. Defaults to
            o200k_base's pattern, or to ``base``'s.
        min_frequency: A pair seen fewer times than this is never merged.
        special_tokens: Special tokens, given the ids after the last learned token.
        max_token_length: The longest learned token, in bytes (under ``compat="hf"`` HF's
            rule applies: learned tokens longer than 2 bytes stay strictly shorter than it).
        compat: ``"hf"`` breaks ties between pairs of equal count as HF ``BpeTrainer`` with a
            ``ByteLevel`` pre-tokenizer does; ``"ranks"`` breaks them by tokensmith rank.
        base: Extend this vocabulary instead of starting from bytes: every token, rank and
            special id of ``base`` is kept, and new merges learned on ``texts`` (each word
            first encoded with ``base``) fill the ids up to ``vocab_size``. New tokens rank
            after every base token, so the base's merges keep their priority.
        engine: ``"local"`` counts words on this machine's threads; ``"ray"`` counts chunks
            of texts as Ray tasks and sums the counts in a tree of merge tasks, then learns
            the merges here. The counts, and so the merges, are the same.
        address: The Ray cluster to join with ``engine="ray"``; default: start a local one.
        max_memory: Bound the counting stage's table to this many bytes (an int, or a string
            such as ``"2GB"``); see :mod:`tokensmith.train.bounded_counts`.
        count_mode: With ``max_memory``: ``"exact"`` spills sorted counts to disk and merges
            them (the same merges as unbounded), ``"approximate"`` prunes rare pre-tokens
            with a stated error bound.
        name: The name of the returned encoding.
        kind: ``"byte"`` (the default) returns an :class:`Encoding`; ``"char"`` (characters,
            the last one of a word marked with ``end_of_word_suffix``) and ``"metaspace"``
            (spaces become ``replacement``, SentencePiece-style) return a
            :class:`~tokensmith.Tokenizer`. With the equivalent HF settings (``Whitespace``
            or ``WhitespaceSplit`` + ``end_of_word_suffix``, or ``Metaspace``;
            ``limit_alphabet``, ``initial_alphabet``, ``Digits``) the merges are HF
            ``BpeTrainer``'s. For these kinds ``vocab_size`` counts every token (specials,
            the 256 byte tokens with ``byte_fallback``, the alphabet, its suffixed or
            prefixed variants, and learned tokens), ``max_token_length`` counts
            characters, and ``special_tokens`` take the first ids.
        split_digits: ``"individual"`` puts every digit in its own piece; ``"groups"`` cuts
            runs of digits into groups of at most 3 (as cl100k and o200k do). For
            ``kind="byte"`` this adds a branch in front of ``pat_str``.
        limit_alphabet: (char, metaspace) Keep at most this many characters, the most
            frequent ones; the others are dropped from words (they encode as ``unk_token``,
            or as bytes with ``byte_fallback``).
        initial_alphabet: (char, metaspace) Characters kept whether the corpus has them or
            not (a string or strings).
        unk_token: (char, metaspace) The unknown token, added as the first special token;
            None for none (unknown characters are then dropped).
        fuse_unk: (char, metaspace) Consecutive unknown characters give one ``unk_token``.
        end_of_word_suffix: (char) The suffix of the last symbol of a word; None means
            ``"</w>"``, ``""`` means no suffix.
        continuing_subword_prefix: (char) The prefix of every symbol but a word's first.
        pre_tokenizer: (char) ``"whitespace"`` (HF ``Whitespace``: runs of word characters
            and runs of other non-space characters) or ``"whitespace_split"``.
        replacement: (metaspace) The character that stands for a space.
        prepend_scheme: (metaspace) Put a ``replacement`` before the text ``"always"``,
            before the ``"first"`` piece only, or ``"never"``.
        byte_fallback: (metaspace) Reserve ``<0x00>``..``<0xFF>`` (after the specials), so
            that characters outside the vocabulary encode as their UTF-8 bytes.
        progress: Called with the number of merges learned, every 100 merges.
        show_progress: Draw a progress bar of the merges on stderr.

    Raises:
        EmptyCorpusError: ``texts`` holds no text.
        InputNotFoundError: a file does not exist or a pattern matches nothing.
        InvalidTrainerOptionError: an option cannot work (the message says which and why).
        PatternError: ``pat_str`` does not compile.
    """
    texts, corpus = resolve_texts(texts, files, field, errors, "train_bpe")
    if isinstance(special_tokens, str):
        raise ArgumentTypeError("special_tokens must be a sequence of strings, not one string")
    if show_progress:
        from tokensmith.train.progress import merge_bar

        # The overloads cannot take a kind that is any of the three; the result is the same.
        untyped: Any = train_bpe
        with merge_bar(vocab_size) as tick:
            return untyped(  # type: ignore[no-any-return]
                texts if corpus is None else None, files=corpus, vocab_size=vocab_size,
                pat_str=pat_str,
                min_frequency=min_frequency, special_tokens=special_tokens,
                max_token_length=max_token_length, compat=compat, base=base, engine=engine,
                address=address, max_memory=max_memory, count_mode=count_mode, name=name,
                split_digits=split_digits,
                limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet,
                unk_token=unk_token, fuse_unk=fuse_unk, end_of_word_suffix=end_of_word_suffix,
                continuing_subword_prefix=continuing_subword_prefix,
                pre_tokenizer=pre_tokenizer, replacement=replacement,
                prepend_scheme=prepend_scheme, byte_fallback=byte_fallback,
                progress=_both(tick, progress), kind=kind,
            )
    if kind in ("char", "metaspace"):
        if base is not None or engine != "local" or pat_str is not None or max_memory is not None:
            raise InvalidTrainerOptionError(
                f"kind={kind!r} takes no base=, engine=, pat_str= or max_memory= "
                '(they are for kind="byte")'
            )
        if compat not in ("hf", "ranks"):
            raise InvalidTrainerOptionError(
                f'compat={compat!r} is not known; use "hf" or "ranks"'
            )
        tokenizer = train_char_family(
            texts, kind=kind, vocab_size=vocab_size, min_frequency=min_frequency,
            special_tokens=special_tokens, max_token_length=max_token_length, compat=compat,
            limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet,
            split_digits=split_digits, unk_token=unk_token, fuse_unk=fuse_unk,
            end_of_word_suffix=end_of_word_suffix,
            continuing_subword_prefix=continuing_subword_prefix, pre_tokenizer=pre_tokenizer,
            replacement=replacement, prepend_scheme=prepend_scheme,
            byte_fallback=byte_fallback, progress=progress,
        )
        warn_replaced(corpus)
        warn_short_vocab(tokenizer.get_vocab_size(), vocab_size)
        return tokenizer
    if kind != "byte":
        raise InvalidTrainerOptionError(
            f'kind={kind!r} is not known; use "byte", "char" or "metaspace"'
        )
    if limit_alphabet is not None or tuple(initial_alphabet) or byte_fallback:
        raise InvalidTrainerOptionError(
            "limit_alphabet, initial_alphabet and byte_fallback are for kind=\"char\" or "
            "\"metaspace\"; the byte-level alphabet is always the 256 bytes"
        )
    if split_digits is not None:
        plain = pat_str or (base._pat_str if base is not None else O200K_PATTERN)
        pat_str = _digits_branch(split_digits) + plain
    if base is not None:
        if max_memory is not None:
            raise InvalidTrainerOptionError("max_memory is not supported with base= yet")
        return _extend(
            base,
            texts,
            corpus,
            vocab_size,
            pat_str,
            min_frequency,
            special_tokens,
            max_token_length,
            name,
        )
    if pat_str is None:
        pat_str = O200K_PATTERN
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
    if engine not in ("local", "ray"):
        raise InvalidTrainerOptionError(f'engine={engine!r} is not known; use "local" or "ray"')
    if max_memory is not None and engine == "ray":
        raise InvalidTrainerOptionError("max_memory bounds local counting; drop engine='ray'")
    counts = _count_with_ray(texts, pat_str, address) if engine == "ray" else None
    if max_memory is not None:
        counts = count_bounded(texts, pattern=pat_str, max_memory=max_memory, mode=count_mode).blob
    ranks, special_ids, merges = _train_bpe_bytes(
        None if counts is not None else texts,
        counts=counts,
        pattern=pat_str,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials,
        max_token_length=max_token_length,
        compat=compat,
        progress=progress,
    )
    encoding = Encoding(
        name,
        pat_str=pat_str,
        mergeable_ranks=dict(ranks),
        special_tokens=dict(special_ids),
    )
    encoding._bpe_merges = list(merges)
    warn_replaced(corpus)
    warn_short_vocab(encoding.n_vocab, vocab_size)
    return encoding


def _digits_branch(split_digits: Digits) -> str:
    """The regex branch put in front of a byte-level pattern to cut digits."""
    if split_digits == "individual":
        return r"\p{N}|"
    if split_digits == "groups":
        return r"\p{N}{1,3}|"
    raise InvalidTrainerOptionError(
        f'split_digits={split_digits!r} is not known; use None, "individual" or "groups"'
    )


def _both(
    first: Callable[[int], object], second: Callable[[int], object] | None
) -> Callable[[int], object]:
    if second is None:
        return first

    def call(n: int) -> None:
        first(n)
        second(n)

    return call


def resolve_texts(
    texts: Iterable[str] | None,
    files: Inputs | Corpus | None,
    field: str,
    errors: Literal["replace", "strict"],
    caller: str,
) -> tuple[Iterable[str], Corpus | None]:
    """The texts a trainer reads: ``texts``, or a :class:`Corpus` over ``files`` (returned
    too, for its statistics). Exactly one of them must be given."""
    if isinstance(texts, (str, bytes)):
        raise ArgumentTypeError(
            "texts must be an iterable of strings, not a single string; "
            "pass [text] to train on one text, or files=path to read a file"
        )
    if files is not None:
        if texts is not None:
            raise ArgumentTypeError("pass texts or files=, not both")
        corpus = files if isinstance(files, Corpus) else Corpus(files, field=field, errors=errors)
        return corpus, corpus
    if texts is None:
        raise ArgumentTypeError(f"{caller} needs texts (an iterable of strings) or files=...")
    _refuse_paths_as_texts(texts, caller)
    return texts, None


def _refuse_paths_as_texts(texts: Iterable[str], caller: str) -> None:
    """``train_bpe(["corpus.txt"])`` would learn from the string ``"corpus.txt"``: a short
    list whose strings are all existing files is surely meant as ``files=``."""
    if not isinstance(texts, (list, tuple)) or not 0 < len(texts) <= 1000:
        return
    for text in texts:
        if not isinstance(text, str) or len(text) > 4096 or "\n" in text:
            return
        if not os.path.isfile(text):
            return
    raise InvalidTrainerOptionError(
        f"texts holds file paths ({texts[0]!r} is a file), and {caller} would learn from "
        f"those strings, not the files; pass them as files={list(texts)[:3]!r} to read them"
    )


# Texts per Ray counting task, and how many partial counts one merge task sums.
_RAY_CHUNK_TEXTS = 50_000
_RAY_FAN_IN = 4


def _count_with_ray(texts: Iterable[str], pattern: str, address: str | None) -> bytes:
    """Word counts of ``texts`` made by Ray tasks and summed in a tree of merge tasks."""
    from tokensmith._core import count_words, merge_word_counts
    from tokensmith._ray import ray_module

    ray = ray_module(address)
    count = ray.remote(num_cpus=1)(lambda chunk: count_words(chunk, pattern=pattern))
    merge = ray.remote(num_cpus=1)(lambda *blobs: merge_word_counts(list(blobs)))
    refs, chunk = [], []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ArgumentTypeError(f"texts[{i}] is a {type(text).__name__}, not a str")
        chunk.append(text)
        if len(chunk) == _RAY_CHUNK_TEXTS:
            refs.append(count.remote(chunk))
            chunk = []
    if chunk or not refs:
        refs.append(count.remote(chunk))
    while len(refs) > 1:
        refs = [merge.remote(*refs[i : i + _RAY_FAN_IN]) for i in range(0, len(refs), _RAY_FAN_IN)]
    blob: bytes = ray.get(refs[0])
    return blob


def warn_replaced(corpus: Corpus | None) -> None:
    """Warns (for the trainer's caller) about invalid UTF-8 replaced while reading files."""
    if corpus is not None and corpus.stats.replaced:
        warnings.warn(
            f"{corpus.stats.replaced} invalid UTF-8 sequences in {corpus.stats.files} files "
            "were replaced with U+FFFD; pass errors='strict' to stop at the first one",
            InvalidUtf8Warning,
            stacklevel=3,
        )


def _extend(
    base: Encoding,
    texts: Iterable[str],
    corpus: Corpus | None,
    vocab_size: int,
    pat_str: str | None,
    min_frequency: int,
    special_tokens: Sequence[str],
    max_token_length: int | None,
    name: str,
) -> Encoding:
    """``train_bpe(..., base=...)``: new merges on top of ``base``, keeping its ids."""
    if not isinstance(base, Encoding):
        raise ArgumentTypeError(f"base must be a tokensmith.Encoding, not {type(base).__name__}")
    if pat_str is not None and pat_str != base._pat_str:
        raise InvalidTrainerOptionError(
            "pat_str differs from base's pattern; an extension pre-tokenizes as its base does, "
            "so leave pat_str out"
        )
    if special_tokens:
        raise InvalidTrainerOptionError(
            "special_tokens cannot be added while extending; the base's are kept as they are"
        )
    if max_token_length is not None:
        raise InvalidTrainerOptionError("max_token_length is not supported with base=")
    n_base = base._core.n_mergeable + len(base._special_tokens)
    if not isinstance(vocab_size, int) or vocab_size <= n_base:
        raise InvalidTrainerOptionError(
            f"vocab_size={vocab_size!r} must exceed the base vocabulary's {n_base} tokens"
        )
    if not isinstance(min_frequency, int) or min_frequency < 0:
        raise InvalidTrainerOptionError(f"min_frequency={min_frequency!r} must be an int >= 0")
    from tokensmith._core import extend_bpe_bytes

    ranks, special_ids, merges = extend_bpe_bytes(
        texts, base=base._core, vocab_size=vocab_size, min_frequency=min_frequency
    )
    encoding = Encoding(
        name,
        pat_str=base._pat_str,
        mergeable_ranks=dict(ranks),
        special_tokens=dict(special_ids),
    )
    base_merges = base._bpe_merges
    if base_merges is not None:
        encoding._bpe_merges = [*base_merges, *merges]
    warn_replaced(corpus)
    return encoding
