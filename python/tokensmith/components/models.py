"""HF ``tokenizers.models``: BPE, Unigram, WordLevel and WordPiece, with HF's constructors
and JSON. A model given to :class:`~tokensmith.Tokenizer` becomes its ``model`` fragment.

>>> from tokensmith import models
>>> wp = models.WordPiece({"[UNK]": 0, "hi": 1, "##s": 2})
>>> [t.value for t in wp.tokenize("his")], wp.token_to_id("##s")
(['hi', '##s'], 2)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from tokensmith._args import NOT_GIVEN, NotGiven, text, text_if_given, text_or_none
from tokensmith.components import _run
from tokensmith.components._base import Component, dumps

__all__ = ["BPE", "Model", "Token", "Unigram", "WordLevel", "WordPiece"]


@dataclass(frozen=True)
class Token:
    """One token of :meth:`Model.tokenize` (HF's ``tokenizers.Token``)."""

    id: int
    value: str
    offsets: tuple[int, int]


class Model(Component):
    """Base class of the models."""

    __slots__ = ()

    def _ids(self) -> dict[str, int]:
        vocab = self._state["vocab"]
        if isinstance(vocab, dict):
            return dict(vocab)
        return {piece: i for i, (piece, _score) in reversed(list(enumerate(vocab)))}

    def token_to_id(self, tokens: str) -> int | None:
        """The id of a token of the vocabulary, or None."""
        return self._ids().get(tokens)

    def id_to_token(self, id: int) -> str | None:
        """The token of an id, or None."""
        for token, i in self._ids().items():
            if i == id:
                return token
        return None

    def tokenize(self, sequence: str) -> list[Token]:
        """The tokens of ``sequence`` taken as one word (run by the Rust core).

        Raises:
            TokenizerJsonError: the core cannot run this model's settings.
        """
        enc = _run.tokenize(self.to_json(), sequence, self._sampling())
        return [Token(i, t, o) for i, t, o in zip(enc.ids, enc.tokens, enc.offsets, strict=True)]

    def _sampling(self) -> tuple[float | None, int | None]:
        """HF's subword sampling options (Unigram's ``alpha``, ``nbest_size``); none here."""
        return None, None

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """Writes the model's files into ``folder`` as HF's ``save`` does (BPE:
        ``vocab.json`` and ``merges.txt``; WordPiece: ``vocab.txt``; WordLevel:
        ``vocab.json``; Unigram: ``unigram.json``; each name after ``prefix-``), atomically,
        and returns their paths."""
        from tokensmith._atomic import write_text_atomic

        state = self._state
        files: dict[str, str] = {}
        if state["type"] == "Unigram":
            files["unigram.json"] = json.dumps(self.to_json(), ensure_ascii=False, indent=2)
        elif state["type"] == "WordPiece":
            by_id = sorted(state["vocab"].items(), key=lambda kv: kv[1])
            files["vocab.txt"] = "".join(f"{token}\n" for token, _ in by_id)
        else:
            by_id = sorted(state["vocab"].items(), key=lambda kv: kv[1])
            files["vocab.json"] = dumps(dict(by_id))
            if state["type"] == "BPE":
                merges = "".join(f"{a} {b}\n" for a, b in state["merges"])
                files["merges.txt"] = "#version: 0.2\n" + merges
        paths = []
        for name, content in files.items():
            path = os.path.join(os.fspath(folder), f"{prefix}-{name}" if prefix else name)
            write_text_atomic(path, content)
            paths.append(path)
        return paths

    def get_trainer(self) -> Any:
        """A trainer, with HF's defaults, for this kind of model."""
        from tokensmith.components import trainers

        kinds = {
            "BPE": trainers.BpeTrainer,
            "Unigram": trainers.UnigramTrainer,
            "WordLevel": trainers.WordLevelTrainer,
            "WordPiece": trainers.WordPieceTrainer,
        }
        return kinds[self._state["type"]]()


def _read_vocab_json(path: str | os.PathLike[str]) -> dict[str, int]:
    from tokensmith.errors import InputNotFoundError, VocabFormatError

    try:
        with open(path, encoding="utf-8") as f:
            vocab = json.load(f)
    except FileNotFoundError as e:
        raise InputNotFoundError(f"{os.fspath(path)}: no such vocabulary file") from e
    except json.JSONDecodeError as e:
        raise VocabFormatError(f"{os.fspath(path)}: not JSON ({e})") from e
    if not isinstance(vocab, dict) or not all(isinstance(v, int) for v in vocab.values()):
        raise VocabFormatError(f"{os.fspath(path)}: expected an object of token -> id")
    return vocab


def _read_merges(path: str | os.PathLike[str]) -> list[list[str]]:
    from tokensmith.errors import InputNotFoundError, VocabFormatError

    merges: list[list[str]] = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if line.startswith("#version") or not line:
                    continue
                parts = line.split(" ")
                if len(parts) != 2:
                    raise VocabFormatError(
                        f"{os.fspath(path)}:{number}: a merge is two tokens and a space"
                    )
                merges.append(parts)
    except FileNotFoundError as e:
        raise InputNotFoundError(f"{os.fspath(path)}: no such merges file") from e
    return merges


class BPE(Model):
    """Byte-pair encoding: ``vocab`` (token -> id) and ``merges`` (pairs, by rank)."""

    __slots__ = ()
    _type = "BPE"

    def __init__(
        self,
        vocab: dict[str, int] | None = None,
        merges: list[tuple[str, str]] | None = None,
        *,
        cache_capacity: int | None = None,
        dropout: float | None = None,
        unk_token: str | None = None,
        continuing_subword_prefix: str | NotGiven = NOT_GIVEN,
        end_of_word_suffix: str | NotGiven = NOT_GIVEN,
        fuse_unk: bool | None = None,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
    ) -> None:
        # cache_capacity sizes HF's word cache and is not saved; tokensmith's is fixed.
        del cache_capacity
        self._init(
            dropout=dropout,
            unk_token=text_or_none("unk_token", unk_token),
            continuing_subword_prefix=text_if_given(
                "continuing_subword_prefix", continuing_subword_prefix
            ),
            end_of_word_suffix=text_if_given("end_of_word_suffix", end_of_word_suffix),
            fuse_unk=bool(fuse_unk),
            byte_fallback=byte_fallback,
            ignore_merges=ignore_merges,
            vocab=dict(vocab or {}),
            merges=[[a, b] for a, b in merges or []],
        )

    @staticmethod
    def read_file(
        vocab: str | os.PathLike[str], merges: str | os.PathLike[str]
    ) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Reads a ``vocab.json`` and a ``merges.txt``."""
        pairs = [(a, b) for a, b in _read_merges(merges)]
        return _read_vocab_json(vocab), pairs

    @classmethod
    def from_file(
        cls, vocab: str | os.PathLike[str], merges: str | os.PathLike[str], **kwargs: Any
    ) -> BPE:
        """A BPE model from a ``vocab.json`` and a ``merges.txt``."""
        v, m = cls.read_file(vocab, merges)
        return cls(v, m, **kwargs)


def _alpha(value: Any) -> float | None:
    from tokensmith.errors import ArgumentTypeError

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(f"alpha must be a float or None, not {type(value).__name__}")
    return float(value)


def _nbest_size(value: Any) -> int | None:
    from tokensmith._args import check_count
    from tokensmith.errors import IndexRangeError

    if value is None:
        return None
    check_count("nbest_size", value, IndexRangeError)
    return int(value)


class Unigram(Model):
    """Unigram: ``vocab`` is (piece, score) pairs by id; ``unk_id`` the unknown piece's.

    ``alpha`` and ``nbest_size`` are HF's subword sampling: with ``alpha`` set (and not 0)
    each word's segmentation is drawn at random, among all of them or, with ``nbest_size``
    above 0, among that many best ones, as HF draws it (``hf/unigram/sample.rs``). As in
    HF they are not saved in the JSON, so a pickled or saved tokenizer does not sample.
    """

    __slots__ = ("_options",)
    _type = "Unigram"

    def __init__(
        self,
        vocab: list[tuple[str, float]] | None = None,
        unk_id: int | None = None,
        byte_fallback: bool | None = None,
        alpha: float | None = None,
        nbest_size: int | None = None,
    ) -> None:
        pieces = [[p, float(s)] for p, s in vocab] if vocab is not None else [["<unk>", 0.0]]
        self._init(
            unk_id=0 if vocab is None else unk_id, vocab=pieces, byte_fallback=bool(byte_fallback)
        )
        self._set_sampling(alpha, nbest_size)

    def _sampling(self) -> tuple[float | None, int | None]:
        try:
            options: tuple[float | None, int | None] = object.__getattribute__(self, "_options")
        except AttributeError:  # built from JSON, which holds no sampling
            return None, None
        return options

    def _set_sampling(self, alpha: float | None, nbest_size: int | None) -> None:
        """Checks and keeps HF's sampling options (not part of the JSON state)."""
        object.__setattr__(self, "_options", (_alpha(alpha), _nbest_size(nbest_size)))

    @property
    def alpha(self) -> float | None:
        """HF's sampling smoothing (None: the best segmentation); settable."""
        return self._sampling()[0]

    @property
    def nbest_size(self) -> int | None:
        """HF's sampling n-best size (None or 0: sample among all); settable."""
        return self._sampling()[1]

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "alpha":
            self._set_sampling(value, self.nbest_size)
        elif name == "nbest_size":
            self._set_sampling(self.alpha, value)
        else:
            super().__setattr__(name, value)
            return
        self._changed()


class WordLevel(Model):
    """One token per word: ``vocab`` (token -> id) and the ``unk_token``."""

    __slots__ = ()
    _type = "WordLevel"

    def __init__(self, vocab: dict[str, int] | None = None, unk_token: str | None = None) -> None:
        self._init(vocab=dict(vocab or {}), unk_token="<unk>" if unk_token is None else unk_token)

    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """Reads a ``vocab.json``."""
        return _read_vocab_json(vocab)

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], unk_token: str | None = None) -> WordLevel:
        """A WordLevel model from a ``vocab.json``."""
        return cls(cls.read_file(vocab), unk_token=unk_token)


class WordPiece(Model):
    """Greedy longest-match WordPiece: ``vocab`` (token -> id), ``unk_token`` for a word it
    cannot spell or longer than ``max_input_chars_per_word``."""

    __slots__ = ()
    _type = "WordPiece"
    # HF's WordPiece refuses None for these where its BPE takes it.
    _setters = {
        "unk_token": lambda v: text("unk_token", v),
        "continuing_subword_prefix": lambda v: text("continuing_subword_prefix", v),
    }

    def __init__(
        self,
        vocab: dict[str, int] | None = None,
        *,
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
        continuing_subword_prefix: str = "##",
    ) -> None:
        self._init(
            unk_token=text("unk_token", unk_token),
            continuing_subword_prefix=text("continuing_subword_prefix", continuing_subword_prefix),
            max_input_chars_per_word=max_input_chars_per_word,
            vocab=dict(vocab or {}),
        )

    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """Reads a ``vocab.txt`` (one token a line; its id is its line number from 0)."""
        from tokensmith.errors import InputNotFoundError

        try:
            with open(vocab, encoding="utf-8") as f:
                return {line.rstrip("\r\n"): i for i, line in enumerate(f)}
        except FileNotFoundError as e:
            raise InputNotFoundError(f"{os.fspath(vocab)}: no such vocabulary file") from e

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], **kwargs: Any) -> WordPiece:
        """A WordPiece model from a ``vocab.txt``."""
        return cls(cls.read_file(vocab), **kwargs)
