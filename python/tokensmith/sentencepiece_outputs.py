"""The output types of :class:`~tokensmith.SentencePieceProcessor` beyond ids and pieces.

sentencepiece 0.2 lets every encode and decode call choose what it returns (``out_type`` or
its other name ``return_type``):

============================ =================================================================
``int`` / ``str``            ids / pieces (the processor's own fast paths)
``bytes``                    pieces as UTF-8 ``bytes``; ``decode`` gives the text as bytes
``"numpy"``                  ids as a ``numpy.int32`` array (needs numpy)
``"proto"``                  a :class:`~tokensmith.sentencepiece_proto.SentencePieceText`
``"immutable_proto"``        the same object (sentencepiece 0.2.0's name for it; 0.2.3 refuses
                             the name, tokensmith keeps it for code written against 0.2.0)
``"serialized_proto"``       its protobuf bytes, which ``sentencepiece_pb2`` parses
``"offset_mapping"``         ``{"ids", "pieces", "offsets"}`` (``decode`` adds ``"text"``);
                             offsets in characters, or bytes with ``return_bytes=True``
============================ =================================================================

Inputs may be ``bytes`` (UTF-8; an invalid byte reads as U+FFFD) as well as ``str``; as in
sentencepiece, ``normalize`` and ``decode`` of bytes give bytes back. This module also holds the
``*AsProto``, ``*AsNumpy``, ``*AsOffsetMapping`` and ``Parallel*`` methods.

The proto outputs do not combine with ``add_bos``, ``add_eos``, ``reverse`` or
``emit_unk_piece`` (sentencepiece raises the same refusal, as a ``RuntimeError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tokensmith.errors import (
    ArgumentTypeError,
    InvalidArgumentError,
    MissingDependencyError,
    SentencePieceOptionError,
)
from tokensmith.sentencepiece_proto import (
    NBestSentencePieceText,
    SentencePieceText,
    decoded_text,
    encoded_text,
)

if TYPE_CHECKING:
    from tokensmith._core import CoreSentencePiece

OUT_TYPES: tuple[Any, ...] = (
    int,
    str,
    bytes,
    "numpy",
    "proto",
    "immutable_proto",
    "serialized_proto",
    "offset_mapping",
)
DECODE_OUT_TYPES: tuple[Any, ...] = (
    str,
    bytes,
    "proto",
    "immutable_proto",
    "serialized_proto",
    "offset_mapping",
)
_PROTOS = ("proto", "immutable_proto", "serialized_proto")

# (piece, id, begin, end, has_surface) with byte offsets, as the core gives them.
ProtoPieces = list[tuple[str, int, int, int, bool]]


def resolve_out_type(
    default: Any, out_type: Any, return_type: Any, allowed: tuple[Any, ...]
) -> Any:
    """The output type of one call: ``out_type`` or ``return_type`` (not both), else ``default``."""
    if out_type is not None and return_type is not None:
        raise InvalidArgumentError("give out_type or return_type, not both")
    chosen = out_type if out_type is not None else return_type
    if chosen is None:
        chosen = default
    if not any(chosen is kind or (isinstance(kind, str) and chosen == kind) for kind in allowed):
        names = ", ".join(k.__name__ if isinstance(k, type) else repr(k) for k in allowed)
        raise InvalidArgumentError(f"out_type must be one of {names}; got {chosen!r}")
    return chosen


def as_text(value: str | bytes) -> str:
    """A ``str`` input as it is; a ``bytes`` input read as UTF-8."""
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else value


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is a test dependency
        raise MissingDependencyError('out_type="numpy" needs numpy: pip install numpy') from e
    return numpy


def _as_array(ids: Sequence[int]) -> Any:
    np = _numpy()
    return np.asarray(ids, dtype=np.int32)


def _char_offsets(text: str) -> list[int]:
    """For each byte offset of ``text``'s UTF-8 (and its end), the character it falls in."""
    out: list[int] = []
    for i, c in enumerate(text):
        out.extend([i] * len(c.encode("utf-8")))
    out.append(len(text))
    return out


def offset_mapping(
    text: str, pieces: ProtoPieces, return_bytes: bool, *, with_text: bool
) -> dict[str, Any]:
    """sentencepiece's ``offset_mapping`` dict of ``(piece, id, begin, end)`` in ``text``."""
    chars = None if return_bytes else _char_offsets(text)
    out: dict[str, Any] = {}
    if with_text:
        out["text"] = text.encode("utf-8") if return_bytes else text
    out["ids"] = [p[1] for p in pieces]
    out["pieces"] = [p[0].encode("utf-8") if return_bytes else p[0] for p in pieces]
    if chars is None:
        out["offsets"] = [(p[2], p[3]) for p in pieces]
    else:
        out["offsets"] = [(chars[p[2]], chars[p[3]]) for p in pieces]
    return out


def normalized_with_offsets(
    model: CoreSentencePiece | Any, text: str | bytes
) -> tuple[str | bytes, list[int]]:
    """``Normalize(text, with_offsets=True)``: the normalized text and, for each of its
    characters (bytes, for a ``bytes`` input) and its end, where it came from in ``text``."""
    source = as_text(text)
    normalized, origins = model.normalize_offsets(source)
    if isinstance(text, bytes):
        return normalized.encode("utf-8"), origins
    if not origins:  # sentencepiece: no byte offsets at all, and one character offset, 0
        return normalized, [0]
    chars = _char_offsets(source)
    out: list[int] = []
    at = 0
    for c in normalized:
        out.append(chars[origins[at]])
        at += len(c.encode("utf-8"))
    out.append(chars[origins[at]])
    return normalized, out


def normalize_any(model: CoreSentencePiece | Any, input: Any, with_offsets: bool | None) -> Any:
    """``Normalize`` of a text (``bytes`` give bytes) or a list of them, with offsets or not."""
    if isinstance(input, list):
        return [normalize_any(model, text, with_offsets) for text in input]
    if with_offsets:
        return normalized_with_offsets(model, input)
    normalized = model.normalize(as_text(input))
    return normalized.encode("utf-8") if isinstance(input, bytes) else normalized


class ProcessorOutputs:
    """The methods of :class:`~tokensmith.SentencePieceProcessor` that this module adds."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def _model(self) -> CoreSentencePiece: ...

        def encode(self, *args: Any, **kwargs: Any) -> Any: ...
        def NBestEncode(self, *args: Any, **kwargs: Any) -> Any: ...  # noqa: N802
        def decode(self, *args: Any, **kwargs: Any) -> Any: ...
        def _sampling_seed(self) -> int: ...

    # The general paths behind encode, NBestEncode and decode.

    def _encode_proto(
        self,
        text: str,
        out_type: Any,
        sampling: bool,
        nbest_size: int,
        alpha: float,
        return_bytes: bool | None,
    ) -> Any:
        """One text with a proto or offset-mapping output."""
        model = self._model
        if sampling:
            pieces = model.sample_proto(text, alpha, nbest_size, self._sampling_seed())
        else:
            pieces = model.encode_proto(text)
        if out_type == "offset_mapping":
            return offset_mapping(text, pieces, bool(return_bytes), with_text=False)
        spt = encoded_text(text, pieces)
        return spt.SerializeToString() if out_type == "serialized_proto" else spt

    def _nbest_proto(self, text: str, out_type: Any, nbest_size: int) -> Any:
        nbests = tuple(
            SentencePieceText(
                text=text, pieces=encoded_text(text, pieces).pieces, score=score, has_score=True
            )
            for pieces, score in self._model.nbest_proto(text, nbest_size)
        )
        result = NBestSentencePieceText(nbests=nbests)
        return result.SerializeToString() if out_type == "serialized_proto" else result

    def _decode_as(self, input: Any, out_type: Any, return_bytes: bool | None) -> Any:
        """``decode`` of a sequence (or a batch of them) into ``out_type``."""
        if hasattr(input, "tolist"):  # a numpy array
            input = input.tolist()
        if input is None or (isinstance(input, str | bytes) and not input):
            input = []
        if isinstance(input, int | str | bytes):
            input = [input]
        batch = any(isinstance(x, Sequence) and not isinstance(x, str | bytes) for x in input[:1])
        if batch:
            # A batch of bytes pieces gives bytes, for its empty sequences too.
            first = next((x[0] for x in input if len(x)), None)
            bytes_in = isinstance(first, bytes)
            return [self._decode_one(list(x), out_type, return_bytes, bytes_in) for x in input]
        seq = list(input)
        bytes_in = bool(seq) and isinstance(seq[0], bytes)
        return self._decode_one(seq, out_type, return_bytes, bytes_in)

    def _decode_one(
        self, seq: list[Any], out_type: Any, return_bytes: bool | None, bytes_in: bool
    ) -> Any:
        model = self._model
        is_pieces = bool(seq) and isinstance(seq[0], str | bytes)
        pieces = [as_text(p) for p in seq] if is_pieces else []
        if out_type is str or out_type is bytes:
            text = model.decode_pieces(pieces) if is_pieces else model.decode(seq)
            return text.encode("utf-8") if out_type is bytes or bytes_in else text
        if is_pieces:
            text, spans = model.decode_pieces_spans(pieces)
            ids = [model.piece_to_id(p) for p in pieces]
        else:
            text, spans = model.decode_spans(seq)
            ids = list(seq)
            pieces = [model.id_to_piece(i) for i in ids]
        if out_type == "offset_mapping":
            found = [(p, i, b, e, True) for p, i, (b, e) in zip(pieces, ids, spans, strict=True)]
            out = offset_mapping(text, found, bool(return_bytes) or bytes_in, with_text=True)
            if bytes_in and not return_bytes:
                out["offsets"] = offset_mapping(text, found, False, with_text=False)["offsets"]
            return out
        spt = decoded_text(text, pieces, ids, spans)
        return spt.SerializeToString() if out_type == "serialized_proto" else spt

    # sentencepiece's methods for these outputs.

    def EncodeAsProto(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        """:meth:`encode` into ``SentencePieceText`` objects (pieces with offsets)."""
        return self.encode(input, out_type="proto", **kwargs)

    def EncodeAsNumpy(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        """:meth:`encode` into ``numpy.int32`` arrays."""
        return self.encode(input, out_type="numpy", **kwargs)

    def EncodeAsOffsetMapping(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        """:meth:`encode` into ``{"ids", "pieces", "offsets"}``."""
        return self.encode(input, out_type="offset_mapping", **kwargs)

    def SampleEncodeAsProto(  # noqa: N802
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **kwargs: Any
    ) -> Any:
        """One sampled segmentation as a ``SentencePieceText``."""
        return self.encode(
            input,
            out_type="proto",
            enable_sampling=True,
            nbest_size=nbest_size,
            alpha=alpha,
            **kwargs,
        )

    def SampleEncodeAsNumpy(  # noqa: N802
        self, input: Any, nbest_size: int | None = None, alpha: float | None = None, **kwargs: Any
    ) -> Any:
        """One sampled segmentation as a ``numpy.int32`` array."""
        return self.encode(
            input,
            out_type="numpy",
            enable_sampling=True,
            nbest_size=nbest_size,
            alpha=alpha,
            **kwargs,
        )

    def NBestEncodeAsProto(  # noqa: N802
        self, input: Any, nbest_size: int | None = None, **kwargs: Any
    ) -> Any:
        """The n best segmentations as an ``NBestSentencePieceText`` (each with its score)."""
        return self.NBestEncode(input, out_type="proto", nbest_size=nbest_size, **kwargs)

    def NBestEncodeAsNumpy(  # noqa: N802
        self, input: Any, nbest_size: int | None = None, **kwargs: Any
    ) -> Any:
        """The n best segmentations as ``numpy.int32`` arrays."""
        return self.NBestEncode(input, out_type="numpy", nbest_size=nbest_size, **kwargs)

    def ParallelEncode(  # noqa: N802
        self,
        input: Any,
        add_bos: bool | None = None,
        add_eos: bool | None = None,
        reverse: bool | None = None,
        emit_unk_piece: bool | None = None,
        chunk_len: int | None = None,
        num_threads: int | None = None,
        thread_pool: Any = None,
        return_type: Any = None,
        out_type: Any = None,
    ) -> Any:
        """sentencepiece's ``ParallelEncode``: encodes each text (a long one in sentencepiece
        is cut into chunks of about ``chunk_len`` bytes at piece boundaries, encoded on several
        threads, with :meth:`encode`'s result). tokensmith encodes each text in one pass, which
        gives that result; ``chunk_len`` (a positive int) and ``num_threads`` are checked."""
        if not isinstance(chunk_len, int) or isinstance(chunk_len, bool) or chunk_len <= 0:
            raise InvalidArgumentError("chunk_len must be positive.")
        if num_threads is not None and not isinstance(num_threads, int):
            raise ArgumentTypeError("num_threads must be int")
        if out_type == "offset_mapping" or return_type == "offset_mapping":
            raise InvalidArgumentError("unknown return_type='offset_mapping' for ParallelEncode")

        def one(text: Any) -> Any:
            return self.encode(
                text,
                out_type=out_type,
                return_type=return_type,
                add_bos=add_bos,
                add_eos=add_eos,
                reverse=reverse,
                emit_unk_piece=emit_unk_piece,
                enable_sampling=False,
            )

        if isinstance(input, list):
            return [one(text) for text in input]
        return one(input)

    def ParallelEncodeAsIds(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        return self.ParallelEncode(input, return_type=int, **kwargs)

    def ParallelEncodeAsPieces(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        return self.ParallelEncode(input, return_type=str, **kwargs)

    def ParallelEncodeAsNumpy(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        return self.ParallelEncode(input, return_type="numpy", **kwargs)

    def ParallelEncodeAsProto(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        return self.ParallelEncode(input, return_type="proto", **kwargs)

    def DecodeIdsAsProto(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        """Decodes ids into a ``SentencePieceText`` (each piece's ``surface`` in the text)."""
        return self.decode(input, out_type="proto", **kwargs)

    def DecodePiecesAsProto(self, input: Any, **kwargs: Any) -> Any:  # noqa: N802
        """Decodes pieces into a ``SentencePieceText``."""
        return self.decode(input, out_type="proto", **kwargs)

    encode_as_proto = EncodeAsProto
    encode_as_numpy = EncodeAsNumpy
    encode_as_offset_mapping = EncodeAsOffsetMapping
    sample_encode_as_proto = SampleEncodeAsProto
    sample_encode_as_numpy = SampleEncodeAsNumpy
    nbest_encode_as_proto = NBestEncodeAsProto
    nbest_encode_as_numpy = NBestEncodeAsNumpy
    parallel_encode = ParallelEncode
    parallel_encode_as_ids = ParallelEncodeAsIds
    parallel_encode_as_pieces = ParallelEncodeAsPieces
    parallel_encode_as_numpy = ParallelEncodeAsNumpy
    parallel_encode_as_proto = ParallelEncodeAsProto
    decode_ids_as_proto = DecodeIdsAsProto
    decode_pieces_as_proto = DecodePiecesAsProto


def refuse_rewrite_with_proto(out_type: Any, rewrite_is_noop: bool) -> None:
    """sentencepiece's refusal of ``add_bos``/``add_eos``/``reverse``/``emit_unk_piece`` with
    a proto or offset-mapping output."""
    if not rewrite_is_noop and (out_type in _PROTOS or out_type == "offset_mapping"):
        raise SentencePieceOptionError(
            f"add_bos, add_eos, reverse and emit_unk_piece do not apply to out_type={out_type!r}: "
            "drop them, or ask for ids or pieces"
        )


def convert_plain(result: Any, out_type: Any, batch: bool) -> Any:
    """Ids or pieces (of one text, or a batch when ``batch``) as ``out_type``: ``numpy``
    arrays of ids, or ``bytes`` pieces."""

    def one(items: list[Any]) -> Any:
        if out_type == "numpy":
            return _as_array(items)
        if out_type is bytes:
            return [p.encode("utf-8") for p in items]
        return items

    return [one(r) for r in result] if batch else one(result)


__all__ = [
    "DECODE_OUT_TYPES",
    "OUT_TYPES",
    "ProcessorOutputs",
    "convert_plain",
    "normalize_any",
    "normalized_with_offsets",
    "offset_mapping",
    "refuse_rewrite_with_proto",
    "resolve_out_type",
]
