"""The sentencepiece-compatible face: ``tokensmith.SentencePieceProcessor``.

A drop-in for ``sentencepiece.SentencePieceProcessor``: existing code switches by changing its
import. It loads a ``.model`` file (Unigram or BPE), gives the same ids, pieces, n-best lists
and decoded text, samples segmentations (subword regularization, BPE dropout), and saves the
model back as a ``.model`` that sentencepiece loads. It does not depend on the ``sentencepiece``
package.

>>> import tokensmith
>>> sp = tokensmith.SentencePieceProcessor.from_pieces(
...     [("<unk>", 0.0, "unknown"), ("ab", -0.9, "normal"), ("a", -1.2, "normal"),
...      ("b", -1.6, "normal"), ("c", -2.3, "normal")], add_dummy_prefix=False)
>>> sp.encode("abc", out_type=str)
['ab', 'c']
>>> sp.nbest_encode_as_pieces("abc", 3)
[['ab', 'c'], ['a', 'b', 'c']]

Every CamelCase method has its snake_case twin (``EncodeAsPieces`` / ``encode_as_pieces``,
``NBestEncodeAsIds`` / ``nbest_encode_as_ids``), as in sentencepiece.

Differences from sentencepiece: sampling draws from tokensmith's own seeded generator
(:func:`set_random_generator_seed`), so samples follow the same distribution but are not the
same draws; a bad id raises :class:`~tokensmith.errors.UnknownTokenIdError` (a ``KeyError``)
rather than ``IndexError``. Not handled: ``word``/``char`` models (loading one raises
:class:`~tokensmith.errors.UnsupportedFeatureError`), the proto output types
(``out_type="immutable_proto"``), ``SampleEncodeAndScore`` and ``OverrideNormalizerSpec``.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from os import PathLike
from typing import Any, cast

from tokensmith._atomic import atomic_write
from tokensmith._core import CoreSentencePiece
from tokensmith.errors import ModelNotLoadedError

_RANDOM = random.Random()

_SAMPLING_HELP = (
    'When enable_sampling is True, give "nbest_size > 1" or "nbest_size = -1", and "alpha". '
    '"nbest_size" is used by Unigram models only (BPE dropout ignores it); nbest_size = -1 '
    "samples from all segmentations of the lattice."
)


def set_random_generator_seed(seed: int) -> None:
    """Seeds the generator behind every sampling call, so that runs repeat."""
    _RANDOM.seed(seed)


def _resolve_out_type(
    default: type[int] | type[str], out_type: Any, return_type: Any
) -> type[int] | type[str]:
    if out_type is not None and return_type is not None:
        raise ValueError("give out_type or return_type, not both")
    chosen = out_type if out_type is not None else return_type
    if chosen is None:
        return default
    if chosen is not int and chosen is not str:
        raise ValueError(f"out_type must be int or str, not {chosen!r}")
    return chosen


def _threads(num_threads: int) -> int:
    return num_threads if num_threads > 0 else (os.cpu_count() or 1)


class SentencePieceProcessor:
    """A SentencePiece model. The model itself is immutable and safe to share between threads.

    The keyword defaults (``out_type``, ``add_bos``, ``enable_sampling``, ...) are those of
    ``sentencepiece.SentencePieceProcessor`` and apply to every :meth:`encode` call that does
    not override them.
    """

    __slots__ = (
        "_core",
        "_fast",
        "_out_type",
        "_add_bos",
        "_add_eos",
        "_reverse",
        "_emit_unk_piece",
        "_enable_sampling",
        "_nbest_size",
        "_alpha",
        "_num_threads",
        # Holds only ``encode``, when it is the compiled fast method (see ``_set_core``).
        "__dict__",
    )

    def __init__(
        self,
        model_file: str | PathLike[str] | None = None,
        model_proto: bytes | None = None,
        out_type: type[int] | type[str] = int,
        add_bos: bool = False,
        add_eos: bool = False,
        reverse: bool = False,
        emit_unk_piece: bool = False,
        enable_sampling: bool = False,
        nbest_size: int = -1,
        alpha: float = 0.1,
        num_threads: int = -1,
    ) -> None:
        self._core: CoreSentencePiece | None = None
        self._fast: Any = None
        self.__dict__.pop("encode", None)
        self._out_type = out_type
        self._add_bos = add_bos
        self._add_eos = add_eos
        self._reverse = reverse
        self._emit_unk_piece = emit_unk_piece
        self._enable_sampling = enable_sampling
        self._nbest_size = nbest_size
        self._alpha = alpha
        self._num_threads = num_threads
        if model_file is not None or model_proto is not None:
            self.load(model_file=model_file, model_proto=model_proto)

    def _set_core(self, core: CoreSentencePiece) -> None:
        self._core = core
        plain = not (
            self._add_bos
            or self._add_eos
            or self._reverse
            or self._emit_unk_piece
            or self._enable_sampling
        )
        # The one-call path for encode(text) with every option at its default.
        self._fast = None
        if plain and self._out_type is int:
            self._fast = core.encode_ids
        elif plain and self._out_type is str:
            self._fast = core.encode_pieces
        # With plain defaults, ``encode`` itself is a compiled method: it encodes a text with
        # no options without a Python frame, and hands any other call to ``_encode``. An
        # instance attribute wins over the class's method; a subclass that overrides
        # ``encode`` keeps its own.
        self.__dict__.pop("encode", None)
        if self._fast is not None and type(self).encode is SentencePieceProcessor.encode:
            self.__dict__["encode"] = core.plain_encode(
                self._twin()._encode, self._out_type is int, _threads(self._num_threads)
            ).method()

    def _twin(self) -> SentencePieceProcessor:
        """A copy of this processor (the same model, options and instance attributes) without
        the compiled ``encode``, whose ``_encode`` that method calls for calls with options.

        The compiled method is held by this processor, so it must not hold this processor:
        the two would form a reference cycle, which only the cyclic garbage collector frees,
        and loading one model after another (which makes few objects that start a collection)
        would keep every dropped one until it runs: about 10 MB each for a 32k model. The twin
        holds nothing that holds this processor, so a dropped processor is freed at once, and a
        kept ``sp.encode`` still encodes with any option after ``sp`` is gone.
        """
        twin = object.__new__(type(self))
        for name in _STATE:
            setattr(twin, name, getattr(self, name))
        twin.__dict__.update((k, v) for k, v in self.__dict__.items() if k != "encode")
        return twin

    @classmethod
    def _wrap(cls, core: CoreSentencePiece) -> SentencePieceProcessor:
        sp = cls()
        sp._set_core(core)
        return sp

    @classmethod
    def from_file(cls, model_file: str | PathLike[str], **kwargs: Any) -> SentencePieceProcessor:
        """Loads a ``.model`` file; ``kwargs`` are the encoding defaults of ``__init__``."""
        return cls(model_file=model_file, **kwargs)

    @classmethod
    def from_proto(cls, model_proto: bytes, **kwargs: Any) -> SentencePieceProcessor:
        """Loads the bytes of a ``.model`` file; ``kwargs`` as for :meth:`from_file`."""
        return cls(model_proto=model_proto, **kwargs)

    @classmethod
    def from_pieces(
        cls,
        pieces: Sequence[tuple[str, float, str]],
        *,
        model_type: str = "unigram",
        byte_fallback: bool = False,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
    ) -> SentencePieceProcessor:
        """A new model from ``(piece, score, type)`` triples, with identity normalization.

        ``type`` is one of ``normal``, ``unknown`` (exactly one piece), ``control``,
        ``user_defined``, ``unused``, ``byte``. ``model_type`` is ``"unigram"`` (scores are
        log-probabilities) or ``"bpe"`` (a higher score merges first).
        """
        return cls._wrap(
            CoreSentencePiece.from_pieces(
                list(pieces),
                model_type,
                byte_fallback,
                add_dummy_prefix,
                remove_extra_whitespaces,
                treat_whitespace_as_suffix,
            )
        )

    def with_pieces(self, pieces: Sequence[tuple[str, float, str]]) -> SentencePieceProcessor:
        """The same model (normalizer, options) with another vocabulary, e.g. new scores."""
        return self._wrap(self._model.with_pieces(list(pieces)))

    def pieces(self) -> list[tuple[str, float, str]]:
        """Every piece as ``(piece, score, type)``, in id order."""
        return self._model.pieces()

    # Loading and saving.

    def load(
        self, model_file: str | PathLike[str] | None = None, model_proto: bytes | None = None
    ) -> bool:
        """Loads a ``.model`` file or its bytes (exactly one of the two)."""
        if (model_file is None) == (model_proto is None):
            raise TypeError("give exactly one of model_file=... or model_proto=...")
        if model_proto is not None:
            self._set_core(CoreSentencePiece.from_bytes(model_proto))
        else:
            assert model_file is not None
            self._set_core(CoreSentencePiece.from_file(model_file))
        return True

    def LoadFromFile(self, arg: str | PathLike[str]) -> bool:  # noqa: N802
        return self.load(model_file=arg)

    def LoadFromSerializedProto(self, serialized: bytes) -> bool:  # noqa: N802
        return self.load(model_proto=serialized)

    def serialized_model_proto(self) -> bytes:
        """The model as the bytes of a ``.model`` file (the loaded bytes, if unmodified)."""
        return self._model.serialize()

    def save(self, path: str | PathLike[str]) -> None:
        """Writes the model to ``path`` atomically; ``sentencepiece`` loads the file."""
        atomic_write(path, [self.serialized_model_proto()])

    def __getstate__(self) -> bytes:
        return self.serialized_model_proto()

    def __setstate__(self, state: bytes) -> None:
        self.__init__()  # type: ignore[misc]
        self.load(model_proto=state)

    @property
    def _model(self) -> CoreSentencePiece:
        if self._core is None:
            raise ModelNotLoadedError(
                "no model is loaded: pass model_file=... or model_proto=..., or call load()"
            )
        return self._core

    # Encoding.

    def _rewrite(
        self,
        add_bos: bool | None,
        add_eos: bool | None,
        reverse: bool | None,
        emit_unk_piece: bool | None,
    ) -> _Rewrite:
        """The post-encoding options of one call, defaults filled from ``__init__``."""
        return _Rewrite(
            self,
            self._add_bos if add_bos is None else add_bos,
            self._add_eos if add_eos is None else add_eos,
            self._reverse if reverse is None else reverse,
            self._emit_unk_piece if emit_unk_piece is None else emit_unk_piece,
        )

    def encode(
        self,
        input: str | list[str],
        out_type: type[int] | type[str] | None = None,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        enable_sampling: bool | None = None,
        nbest_size: int | None = None,
        alpha: float | None = None,
        num_threads: int | None = None,
        return_type: type[int] | type[str] | None = None,
    ) -> Any:
        """Encodes a text (or a list of texts) into ids (``out_type=int``) or pieces (``str``).

        With ``enable_sampling``, each call draws a segmentation: Unigram models sample among
        the ``nbest_size`` best (all of them with ``-1``) with probability proportional to
        ``exp(alpha * score)``; BPE models drop each merge with probability ``alpha``.
        ``reverse`` reverses the pieces; ``add_bos``/``add_eos`` then add ``<s>``/``</s>``;
        ``emit_unk_piece`` shows unknown pieces as the unknown piece (``<unk>``).
        """
        # The one-call path; this method holds no closure, so a call allocates nothing here.
        fast = self._fast
        if (
            fast is not None
            and out_type is None
            and return_type is None
            and enable_sampling is None
            and add_bos is None
            and add_eos is None
            and reverse is None
            and emit_unk_piece is None
            and type(input) is str
        ):
            return fast(input)
        return self._encode(
            input,
            out_type,
            add_bos,
            add_eos,
            reverse,
            emit_unk_piece,
            enable_sampling,
            nbest_size,
            alpha,
            num_threads,
            return_type,
        )

    def _encode(
        self,
        input: str | list[str],
        out_type: type[int] | type[str] | None,
        add_bos: bool | None,
        add_eos: bool | None,
        reverse: bool | None,
        emit_unk_piece: bool | None,
        enable_sampling: bool | None,
        nbest_size: int | None,
        alpha: float | None,
        num_threads: int | None,
        return_type: type[int] | type[str] | None,
    ) -> Any:
        """:meth:`encode` with any options."""
        model = self._model
        out_type = _resolve_out_type(self._out_type, out_type, return_type)
        if out_type is not int and out_type is not str:
            raise ValueError(f"out_type must be int or str, not {out_type!r}")
        sampling = self._enable_sampling if enable_sampling is None else enable_sampling
        nbest = self._nbest_size if nbest_size is None else nbest_size
        alpha = self._alpha if alpha is None else alpha
        if sampling and (nbest in (0, 1) or alpha is None):
            raise ValueError(_SAMPLING_HELP)
        rewrite = self._rewrite(add_bos, add_eos, reverse, emit_unk_piece)
        as_ids = out_type is int

        def one(text: str) -> list[int] | list[str]:
            if sampling:
                pieces, ids = model.sample(text, alpha, nbest, _RANDOM.getrandbits(64))
            elif rewrite.is_noop:
                return model.encode_ids(text) if as_ids else model.encode_pieces(text)
            else:
                pieces, ids = model.encode(text)
            return rewrite.apply(pieces, ids, as_ids)

        if isinstance(input, str):
            return one(input)
        if not sampling and rewrite.is_noop:
            threads = _threads(self._num_threads if num_threads is None else num_threads)
            # The core takes any iterable of str (into a private list of its own).
            if as_ids:
                return model.encode_ids_batch(input, threads)
            return model.encode_pieces_batch(input, threads)
        return [one(text) for text in input]

    def EncodeAsIds(self, input: str | list[str], **kwargs: Any) -> Any:  # noqa: N802
        return self.encode(input, out_type=int, **kwargs)

    def EncodeAsPieces(self, input: str | list[str], **kwargs: Any) -> Any:  # noqa: N802
        return self.encode(input, out_type=str, **kwargs)

    def SampleEncodeAsIds(  # noqa: N802
        self, input: str | list[str], nbest_size: int | None = None, alpha: float | None = None,
        **kwargs: Any,
    ) -> Any:
        return self.encode(
            input, out_type=int, enable_sampling=True, nbest_size=nbest_size, alpha=alpha,
            **kwargs,
        )

    def SampleEncodeAsPieces(  # noqa: N802
        self, input: str | list[str], nbest_size: int | None = None, alpha: float | None = None,
        **kwargs: Any,
    ) -> Any:
        return self.encode(
            input, out_type=str, enable_sampling=True, nbest_size=nbest_size, alpha=alpha,
            **kwargs,
        )

    def NBestEncode(  # noqa: N802
        self,
        input: str | list[str],
        out_type: type[int] | type[str] | None = None,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        nbest_size: int | None = None,
        return_type: type[int] | type[str] | None = None,
    ) -> Any:
        """The ``nbest_size`` best segmentations (Unigram models), best first."""
        model = self._model
        out_type = _resolve_out_type(self._out_type, out_type, return_type)
        size = self._nbest_size if nbest_size is None else nbest_size
        size = max(size, 1)
        rewrite = self._rewrite(add_bos, add_eos, reverse, emit_unk_piece)

        def one(text: str) -> list[list[int] | list[str]]:
            return [
                rewrite.apply(pieces, ids, out_type is int)
                for pieces, ids, _ in model.nbest(text, size)
            ]

        if isinstance(input, str):
            return one(input)
        return [one(text) for text in input]

    def NBestEncodeAsIds(  # noqa: N802
        self, input: str | list[str], nbest_size: int | None = None, **kwargs: Any
    ) -> Any:
        return self.NBestEncode(input, out_type=int, nbest_size=nbest_size, **kwargs)

    def NBestEncodeAsPieces(  # noqa: N802
        self, input: str | list[str], nbest_size: int | None = None, **kwargs: Any
    ) -> Any:
        return self.NBestEncode(input, out_type=str, nbest_size=nbest_size, **kwargs)

    def nbest_with_scores(self, text: str, nbest_size: int) -> list[tuple[list[str], float]]:
        """The n-best pieces with their scores (the sum of the pieces' log-probabilities)."""
        return [(pieces, score) for pieces, _, score in self._model.nbest(text, nbest_size)]

    def CalculateEntropy(self, input: str | list[str], alpha: float) -> Any:  # noqa: N802
        """The entropy of the distribution over segmentations at inverse temperature alpha."""
        if isinstance(input, str):
            return self._model.entropy(input, alpha)
        return [self._model.entropy(text, alpha) for text in input]

    def normalize(self, text: str) -> str:
        """The normalized text the model segments (spaces shown as ``▁``)."""
        return self._model.normalize(text)

    # Decoding.

    def decode(self, input: int | str | Sequence[Any], out_type: type[str] = str) -> Any:
        """Decodes ids or pieces (or a list of either, or one id) back to text."""
        if out_type is not str:
            raise ValueError(f"out_type must be str, not {out_type!r}")
        model = self._model
        if isinstance(input, int):
            return model.decode([input])
        if isinstance(input, str):
            return model.decode_pieces([input]) if input else ""
        if len(input) == 0:
            return ""
        first = input[0]
        if isinstance(first, int):
            return model.decode(list(cast(Sequence[int], input)))
        if isinstance(first, str):
            return model.decode_pieces(list(input))
        return [self.decode(item) for item in input]

    def DecodeIds(self, input: Sequence[Any]) -> Any:  # noqa: N802
        return self.decode(input)

    def DecodePieces(self, input: Sequence[Any]) -> Any:  # noqa: N802
        return self.decode(input)

    # The vocabulary.

    def GetPieceSize(self) -> int:  # noqa: N802
        return self._model.piece_size()

    def piece_size(self) -> int:
        return self._model.piece_size()

    def vocab_size(self) -> int:
        return self._model.piece_size()

    def __len__(self) -> int:
        return self._model.piece_size()

    def __getitem__(self, piece: str) -> int:
        return self._model.piece_to_id(piece)

    def IdToPiece(self, id: int | list[int]) -> Any:  # noqa: N802
        if isinstance(id, list):
            return [self._model.id_to_piece(i) for i in id]
        return self._model.id_to_piece(id)

    def PieceToId(self, piece: str | list[str]) -> Any:  # noqa: N802
        if isinstance(piece, list):
            return [self._model.piece_to_id(p) for p in piece]
        return self._model.piece_to_id(piece)

    def GetScore(self, id: int | list[int]) -> Any:  # noqa: N802
        if isinstance(id, list):
            return [self._model.get_score(i) for i in id]
        return self._model.get_score(id)

    def _is(self, id: int | list[int], kind: str) -> Any:
        if isinstance(id, list):
            return [self._model.piece_type(i) == kind for i in id]
        return self._model.piece_type(id) == kind

    def IsUnknown(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "unknown")

    def IsControl(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "control")

    def IsUnused(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "unused")

    def IsByte(self, id: int | list[int]) -> Any:  # noqa: N802
        return self._is(id, "byte")

    def unk_id(self) -> int:
        return self._model.special_ids()[0]

    def bos_id(self) -> int:
        return self._model.special_ids()[1]

    def eos_id(self) -> int:
        return self._model.special_ids()[2]

    def pad_id(self) -> int:
        return self._model.special_ids()[3]

    # sentencepiece's other spellings.
    Load = load
    Encode = encode
    Tokenize = encode
    Decode = decode
    Detokenize = decode
    Normalize = normalize
    encode_as_ids = EncodeAsIds
    encode_as_pieces = EncodeAsPieces
    sample_encode_as_ids = SampleEncodeAsIds
    sample_encode_as_pieces = SampleEncodeAsPieces
    nbest_encode = NBestEncode
    nbest_encode_as_ids = NBestEncodeAsIds
    nbest_encode_as_pieces = NBestEncodeAsPieces
    calculate_entropy = CalculateEntropy
    decode_ids = DecodeIds
    decode_pieces = DecodePieces
    get_piece_size = GetPieceSize
    id_to_piece = IdToPiece
    piece_to_id = PieceToId
    get_score = GetScore
    is_unknown = IsUnknown
    is_control = IsControl
    is_unused = IsUnused
    is_byte = IsByte
    load_from_file = LoadFromFile
    load_from_serialized_proto = LoadFromSerializedProto


# The per-instance state a twin copies (see ``SentencePieceProcessor._twin``).
_STATE = tuple(name for name in SentencePieceProcessor.__slots__ if name != "__dict__")


class _Rewrite:
    """sentencepiece's post-encoding options: reverse, then BOS/EOS, then unknown pieces."""

    __slots__ = ("sp", "add_bos", "add_eos", "reverse", "emit_unk_piece")

    def __init__(
        self,
        sp: SentencePieceProcessor,
        add_bos: bool,
        add_eos: bool,
        reverse: bool,
        emit_unk_piece: bool,
    ) -> None:
        self.sp = sp
        self.add_bos = add_bos
        self.add_eos = add_eos
        self.reverse = reverse
        self.emit_unk_piece = emit_unk_piece

    @property
    def is_noop(self) -> bool:
        return not (self.add_bos or self.add_eos or self.reverse or self.emit_unk_piece)

    def apply(self, pieces: list[str], ids: list[int], as_ids: bool) -> list[int] | list[str]:
        if self.reverse:
            pieces, ids = pieces[::-1], ids[::-1]
        if as_ids:
            out_ids = list(ids)
            if self.add_bos:
                out_ids.insert(0, self.sp.bos_id())
            if self.add_eos:
                out_ids.append(self.sp.eos_id())
            return out_ids
        out = list(pieces)
        if self.add_bos:
            out.insert(0, self.sp.id_to_piece(self.sp.bos_id()))
        if self.add_eos:
            out.append(self.sp.id_to_piece(self.sp.eos_id()))
        if self.emit_unk_piece:
            unk = self.sp.unk_id()
            unk_piece = self.sp.id_to_piece(unk)
            out = [unk_piece if self.sp.piece_to_id(p) == unk else p for p in out]
        return out


__all__ = ["SentencePieceProcessor", "set_random_generator_seed"]
