"""The sentencepiece-compatible face: ``tokensmith.SentencePieceProcessor``.

A drop-in for ``sentencepiece.SentencePieceProcessor``: existing code switches by changing its
import. It loads a ``.model`` file (Unigram, BPE, char or word), gives the same ids, pieces,
n-best lists and decoded text, samples segmentations (subword regularization, BPE dropout;
char and word models have neither n-best lists nor sampling, as in sentencepiece), and saves the
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

Every output type of sentencepiece 0.2 is there (``bytes``, ``"numpy"``, ``"proto"``,
``"serialized_proto"``, ``"offset_mapping"``, and 0.2.0's ``"immutable_proto"``), with the
``*AsProto``, ``*AsNumpy`` and ``Parallel*`` methods: see :mod:`tokensmith.sentencepiece_outputs`.
A bad id raises :class:`~tokensmith.errors.PieceIdOutOfRangeError`, an ``IndexError`` as in
sentencepiece.

Differences from sentencepiece: sampling draws from tokensmith's own seeded generator
(:func:`set_random_generator_seed`), so samples follow the same distribution but are not the
same draws; a proto result is tokensmith's own frozen object with sentencepiece's fields, not
a protobuf message (its ``SerializeToString()`` bytes are the message's). Not handled:
denormalization rules (loading a model with one raises
:class:`~tokensmith.errors.UnsupportedFeatureError`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from os import PathLike
from typing import Any, cast

from tokensmith._atomic import atomic_write
from tokensmith._core import CoreSentencePiece
from tokensmith.errors import ArgumentTypeError, InvalidArgumentError, ModelNotLoadedError
from tokensmith.sentencepiece_globals import (
    RANDOM,
    SetDataDir,
    SetMinLogLevel,
    SetNBestTimeout,
    SetRandomGeneratorSeed,
    ThreadPool,
    set_data_dir,
    set_min_log_level,
    set_nbest_timeout,
    set_random_generator_seed,
)
from tokensmith.sentencepiece_normalizer import SentencePieceNormalizer
from tokensmith.sentencepiece_outputs import (
    DECODE_OUT_TYPES,
    OUT_TYPES,
    ProcessorOutputs,
    as_text,
    convert_plain,
    normalize_any,
    refuse_rewrite_with_proto,
    resolve_out_type,
)
from tokensmith.sentencepiece_rewrite import Rewrite
from tokensmith.sentencepiece_trainer import SentencePieceTrainer
from tokensmith.sentencepiece_vocab import VocabularyQueries

_SAMPLING_HELP = (
    'When enable_sampling is True, give "nbest_size > 1" or "nbest_size = -1", and "alpha". '
    '"nbest_size" is used by Unigram models only (BPE dropout ignores it); nbest_size = -1 '
    "samples from all segmentations of the lattice."
)


def _threads(num_threads: int) -> int:
    return num_threads if num_threads > 0 else (os.cpu_count() or 1)


class SentencePieceProcessor(VocabularyQueries, ProcessorOutputs):
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
        out_type: Any = None,
        add_bos: bool = False,
        add_eos: bool = False,
        reverse: bool = False,
        emit_unk_piece: bool = False,
        enable_sampling: bool = False,
        nbest_size: int = -1,
        alpha: float = 0.1,
        num_threads: int = -1,
        return_type: Any = None,
    ) -> None:
        self._core: CoreSentencePiece | None = None
        self._fast: Any = None
        self.__dict__.pop("encode", None)
        self._out_type = resolve_out_type(int, out_type, return_type, OUT_TYPES)
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
        log-probabilities), ``"bpe"`` (a higher score merges first), ``"char"`` (each
        character is looked up) or ``"word"`` (each ``▁``-led word is looked up).

        >>> sp = SentencePieceProcessor.from_pieces(
        ...     [("<unk>", 0.0, "unknown"), ("▁the", -1.0, "normal")], model_type="word")
        >>> sp.encode("the cat the", out_type=str)
        ['▁the', '▁cat', '▁the']
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
            raise ArgumentTypeError("give exactly one of model_file=... or model_proto=...")
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
        """Writes the model to ``path`` (which must end in ``.model``) atomically;
        ``sentencepiece`` loads the file."""
        from tokensmith.io import check_extension

        check_extension(path, "sentencepiece")
        atomic_write(path, [self.serialized_model_proto()])

    def __getstate__(self) -> tuple[bytes | None, dict[str, Any]]:
        """The model as ``.model`` bytes (``None`` if none is loaded) and the options and
        instance attributes: what ``pickle`` keeps. The compiled encoder and its per-thread
        caches are rebuilt when loaded, never pickled.

        >>> import pickle
        >>> model = SentencePieceProcessor.from_pieces(
        ...     [("<unk>", 0.0, "unknown"), ("▁a", -1.0, "normal")]).serialized_model_proto()
        >>> sp = SentencePieceProcessor(model_proto=model, out_type=str)
        >>> pickle.loads(pickle.dumps(sp)).encode("a a")
        ['▁a', '▁a']
        """
        model = None if self._core is None else self._core.serialize()
        options = {name: getattr(self, name) for name in _OPTIONS}
        extra = {k: v for k, v in self.__dict__.items() if k != "encode"}
        return model, {**options, **extra}

    def __setstate__(self, state: bytes | tuple[bytes | None, dict[str, Any]]) -> None:
        # A bare ``bytes`` state is the model alone, as older versions pickled it.
        model, attributes = (state, {}) if isinstance(state, bytes) else state
        self.__init__()  # type: ignore[misc]
        for name, value in attributes.items():
            setattr(self, name, value)
        if model is not None:
            self._set_core(CoreSentencePiece.from_bytes(model))

    def __copy__(self) -> SentencePieceProcessor:
        """A copy with the same options that shares the (immutable) model."""
        twin = self._twin()
        if self._core is not None:
            twin._set_core(self._core)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> SentencePieceProcessor:
        """As :meth:`__copy__`, with the instance attributes deep-copied (the model is
        immutable, so sharing it is as good as copying it)."""
        import copy

        twin = self.__copy__()
        for name, value in self.__dict__.items():
            if name != "encode":
                twin.__dict__[name] = copy.deepcopy(value, memo)
        return twin

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
    ) -> Rewrite:
        """The post-encoding options of one call, defaults filled from ``__init__``."""
        return Rewrite(
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
        return_type: Any = None,
        thread_pool: Any = None,
        return_bytes: bool | None = None,
    ) -> Any:
        """Encodes a text (or a list of texts) into ids (``out_type=int``) or pieces (``str``),
        or any other output type of :mod:`tokensmith.sentencepiece_outputs`.

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
            and return_bytes is None
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
            thread_pool,
            return_bytes,
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
        return_type: Any,
        thread_pool: Any = None,
        return_bytes: bool | None = None,
    ) -> Any:
        """:meth:`encode` with any options."""
        model = self._model
        out_type = resolve_out_type(self._out_type, out_type, return_type, OUT_TYPES)
        if return_bytes is not None and out_type != "offset_mapping":
            raise InvalidArgumentError("return_bytes applies only to out_type='offset_mapping'")
        if num_threads is not None and not isinstance(num_threads, int):
            raise ArgumentTypeError("num_threads must be int")
        if num_threads is None and thread_pool is not None:
            num_threads = thread_pool.num_threads()
        sampling = self._enable_sampling if enable_sampling is None else enable_sampling
        nbest = self._nbest_size if nbest_size is None else nbest_size
        alpha = self._alpha if alpha is None else alpha
        if sampling and (nbest in (0, 1) or alpha is None):
            raise InvalidArgumentError(_SAMPLING_HELP)
        if sampling and not (isinstance(alpha, (int, float)) and 0 <= alpha < math.inf):
            # sentencepiece checks the same: std::isfinite(alpha) and alpha >= 0.
            raise InvalidArgumentError(f"alpha must be a finite number >= 0, not {alpha!r}")
        rewrite = self._rewrite(add_bos, add_eos, reverse, emit_unk_piece)
        bytes_in = isinstance(input, bytes) or (
            isinstance(input, list) and bool(input) and isinstance(input[0], bytes)
        )
        if return_bytes is None and out_type == "offset_mapping":
            return_bytes = bytes_in
        if isinstance(input, bytes) or (
            isinstance(input, list) and any(isinstance(t, bytes) for t in input)
        ):
            input = as_text(input) if isinstance(input, bytes) else [as_text(t) for t in input]
        if out_type not in (int, str):
            refuse_rewrite_with_proto(out_type, rewrite.is_noop)
            if out_type in (bytes, "numpy"):
                plain = self._encode(
                    input,
                    str if out_type is bytes else int,
                    add_bos,
                    add_eos,
                    reverse,
                    emit_unk_piece,
                    sampling,
                    nbest,
                    alpha,
                    num_threads,
                    None,
                )
                return convert_plain(plain, out_type, isinstance(input, list))
            if isinstance(input, str):
                return self._encode_proto(input, out_type, sampling, nbest, alpha, return_bytes)
            return [
                self._encode_proto(t, out_type, sampling, nbest, alpha, return_bytes) for t in input
            ]
        as_ids = out_type is int

        def one(text: str) -> list[int] | list[str]:
            if sampling:
                pieces, ids = model.sample(text, alpha, nbest, self._sampling_seed())
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
        self,
        input: str | list[str],
        nbest_size: int | None = None,
        alpha: float | None = None,
        **kwargs: Any,
    ) -> Any:
        return self.encode(
            input,
            out_type=int,
            enable_sampling=True,
            nbest_size=nbest_size,
            alpha=alpha,
            **kwargs,
        )

    def SampleEncodeAsPieces(  # noqa: N802
        self,
        input: str | list[str],
        nbest_size: int | None = None,
        alpha: float | None = None,
        **kwargs: Any,
    ) -> Any:
        return self.encode(
            input,
            out_type=str,
            enable_sampling=True,
            nbest_size=nbest_size,
            alpha=alpha,
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
        return_type: Any = None,
    ) -> Any:
        """The ``nbest_size`` best segmentations (Unigram models), best first."""
        model = self._model
        out_type = resolve_out_type(self._out_type, out_type, return_type, OUT_TYPES)
        if out_type == "offset_mapping":
            raise InvalidArgumentError("NBestEncode has no out_type='offset_mapping'")
        size = self._nbest_size if nbest_size is None else nbest_size
        size = max(size, 1)
        rewrite = self._rewrite(add_bos, add_eos, reverse, emit_unk_piece)
        refuse_rewrite_with_proto(out_type, rewrite.is_noop)
        as_ids = out_type in (int, "numpy")

        def one(text: str) -> Any:
            if not isinstance(out_type, type) and out_type != "numpy":
                return self._nbest_proto(text, out_type, size)
            return convert_plain(
                [rewrite.apply(pieces, ids, as_ids) for pieces, ids, _ in model.nbest(text, size)],
                out_type,
                True,
            )

        if isinstance(input, str | bytes):
            return one(as_text(input))
        return [one(as_text(text)) for text in input]

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

    def normalize(self, input: Any, with_offsets: bool | None = None) -> Any:
        """The normalized text the model segments (spaces shown as ``▁``); ``bytes`` give
        bytes, a list gives a list. ``with_offsets``: ``(normalized, offsets)``, where
        ``offsets[i]`` is the position in ``input`` that the normalized ``i``-th character
        came from (in bytes for a ``bytes`` input), with one more entry for the end."""
        return normalize_any(self._model, input, with_offsets)

    def _sampling_seed(self) -> int:
        return RANDOM.getrandbits(64)

    # Decoding.

    def decode(
        self,
        input: Any,
        out_type: Any = None,
        num_threads: int | None = None,
        thread_pool: Any = None,
        return_bytes: bool | None = None,
        return_type: Any = None,
    ) -> Any:
        """Decodes ids or pieces (or a list of either, or one id) back to text, or to any
        decode output type of :mod:`tokensmith.sentencepiece_outputs`."""
        out_type = resolve_out_type(str, out_type, return_type, DECODE_OUT_TYPES)
        if return_bytes is not None and out_type != "offset_mapping":
            raise InvalidArgumentError("return_bytes applies only to out_type='offset_mapping'")
        if num_threads is not None and not isinstance(num_threads, int):
            raise ArgumentTypeError("num_threads must be int")
        del thread_pool  # decoding is one pass per sequence
        model = self._model
        if out_type is not str or not isinstance(input, int | str | list):
            return self._decode_as(input, out_type, return_bytes)
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
        return self._decode_as(input, out_type, return_bytes)

    def DecodeIds(self, input: Any, out_type: Any = None, **kwargs: Any) -> Any:  # noqa: N802
        return self.decode(input, out_type, **kwargs)

    def DecodePieces(self, input: Any, out_type: Any = None, **kwargs: Any) -> Any:  # noqa: N802
        return self.decode(input, out_type, **kwargs)

    # sentencepiece's other spellings.
    Load = load
    Encode = encode
    Tokenize = encode
    tokenize = encode
    Decode = decode
    Detokenize = decode
    detokenize = decode
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
    load_from_file = LoadFromFile
    load_from_serialized_proto = LoadFromSerializedProto


# The per-instance state a twin copies (see ``SentencePieceProcessor._twin``).
_STATE = tuple(name for name in SentencePieceProcessor.__slots__ if name != "__dict__")
# The encoding defaults ``__init__`` takes, kept by pickling and copying.
_OPTIONS = tuple(name for name in _STATE if name not in ("_core", "_fast"))


__all__ = [
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "SetDataDir",
    "SetMinLogLevel",
    "SetNBestTimeout",
    "SetRandomGeneratorSeed",
    "ThreadPool",
    "set_data_dir",
    "set_min_log_level",
    "set_nbest_timeout",
    "set_random_generator_seed",
]
