"""``tokensmith.SentencePieceNormalizer``: sentencepiece's text normalizer on its own.

A drop-in for ``sentencepiece.SentencePieceNormalizer`` (0.2): it normalizes text exactly as
a ``.model`` does before segmenting it (the charsmap's longest match, whitespace rules, the
``▁`` dummy prefix), from one of

- ``model_file`` / ``model_proto``: a ``.model`` (its normalizer spec; the model's pieces and
  user-defined symbols play no part, as in sentencepiece);
- ``normalizer_spec``: the bytes of a ``NormalizerSpec`` message;
- ``rule_name``: ``identity``, ``nmt_nfkc``, ``nfkc``, ``nmt_nfkc_cf`` or ``nfkc_cf``;
- ``rule_tsv``: a file of rules, one a line: source and replacement as space-separated hex
  code points, tab-separated (``41 301<TAB>C1``), more columns ignored;
- ``norm_map``: ``(source, replacement)`` string pairs.

``add_dummy_prefix``, ``escape_whitespaces`` and ``remove_extra_whitespaces`` override the
spec's flags when given.

>>> n = SentencePieceNormalizer(norm_map=[("ab", "X")], add_dummy_prefix=False)
>>> n.normalize("  ab  c ")
'X▁c'
>>> n.normalize("ab c", with_offsets=True)
('X▁c', [0, 2, 3, 4])

The charsmaps of the named rules are tokensmith's own build of sentencepiece's rules
(``normalizers/charsmap_builder.rs``), so ``serialized_normalizer_spec()`` of a named rule
is not byte for byte sentencepiece's, though it normalizes the same.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tokensmith._core import (
    spm_compile_charsmap,
    spm_decompile_charsmap,
    spm_normalizer,
    spm_rule_charsmap,
)
from tokensmith.errors import (
    CorpusFormatError,
    InputNotFoundError,
    InvalidArgumentError,
    SentencePieceOptionError,
)
from tokensmith.sentencepiece_outputs import normalize_any
from tokensmith.sentencepiece_proto import bytes_field, read_fields

# A ModelProto piece field: "<unk>" of type UNKNOWN (2).
_UNK_PIECE = bytes_field(1, bytes_field(1, b"<unk>") + b"\x18\x02")


class SentencePieceNormalizer:
    """Normalizes text as a SentencePiece model does (see the module documentation)."""

    __slots__ = ("_core", "_model_bytes")

    def __init__(
        self,
        model_file: str | os.PathLike[str] | None = None,
        model_proto: Any = None,
        normalizer_spec: Any = None,
        rule_tsv: str | os.PathLike[str] | None = None,
        rule_name: str | None = None,
        norm_map: Iterable[tuple[str, str]] | None = None,
        add_dummy_prefix: bool | None = None,
        escape_whitespaces: bool | None = None,
        remove_extra_whitespaces: bool | None = None,
    ) -> None:
        if model_file:
            model = _read(model_file)
        elif model_proto:
            model = _serialized(model_proto)
        elif normalizer_spec:
            model = bytes_field(3, _serialized(normalizer_spec))
        elif rule_tsv:
            model = _spec_model(None, spm_compile_charsmap(_read_rule_tsv(rule_tsv)))
        elif rule_name:
            model = _spec_model(rule_name, spm_rule_charsmap(rule_name))
        elif norm_map:
            model = _spec_model(None, spm_compile_charsmap(list(norm_map)))
        else:
            raise InvalidArgumentError(
                "no model is specified: give model_file, model_proto, normalizer_spec, "
                "rule_tsv, rule_name or norm_map"
            )
        self._load(model, add_dummy_prefix, escape_whitespaces, remove_extra_whitespaces)

    def _load(
        self,
        model: bytes,
        add_dummy_prefix: bool | None = None,
        escape_whitespaces: bool | None = None,
        remove_extra_whitespaces: bool | None = None,
    ) -> None:
        # The reader wants at least one piece; only the specs are used.
        self._core, self._model_bytes = spm_normalizer(
            _UNK_PIECE + model, add_dummy_prefix, escape_whitespaces, remove_extra_whitespaces
        )

    def Normalize(self, input: Any, with_offsets: bool | None = None) -> Any:  # noqa: N802
        """The normalized text (``bytes`` give bytes, a list gives a list). ``with_offsets``:
        ``(normalized, offsets)``, ``offsets[i]`` being where in ``input`` the ``i``-th
        normalized character (byte, for ``bytes``) came from, plus one entry for the end."""
        return normalize_any(self._core, input, with_offsets)

    def Decompile(self) -> list[tuple[str, str]]:  # noqa: N802
        """The charsmap's ``(source, replacement)`` rules, sorted by source."""
        charsmap = _field(self.serialized_normalizer_spec(), 2)
        if not charsmap:
            raise SentencePieceOptionError(
                "this normalizer has no charsmap to decompile (identity normalization)"
            )
        return spm_decompile_charsmap(charsmap)

    def serialized_model_proto(self) -> bytes:
        """A ``ModelProto`` holding only this normalizer's spec."""
        return self._model_bytes

    def serialized_normalizer_spec(self) -> bytes:
        """The bytes of this normalizer's ``NormalizerSpec`` message."""
        return _field(self._model_bytes, 3)

    def __getstate__(self) -> bytes:
        return self._model_bytes

    def __setstate__(self, state: bytes) -> None:
        self._load(state)

    normalize = Normalize
    decompile = Decompile


def _field(message: bytes, number: int) -> bytes:
    """The last length-delimited field ``number`` of ``message``, or ``b""``."""
    found = b""
    for field_number, value in read_fields(message):
        if field_number == number and isinstance(value, bytes):
            found = value
    return found


def _spec_model(name: str | None, charsmap: bytes) -> bytes:
    spec = (bytes_field(1, name.encode("utf-8")) if name else b"") + bytes_field(2, charsmap)
    return bytes_field(3, spec)


def _serialized(message: Any) -> bytes:
    """Bytes as they are; a protobuf message (``sentencepiece_model_pb2``) serialized."""
    if hasattr(message, "SerializeToString"):
        return bytes(message.SerializeToString())
    return bytes(message)


def _read(path: str | os.PathLike[str]) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError as e:
        raise InputNotFoundError(f"{os.fspath(path)}: no such file") from e


def _read_rule_tsv(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The ``(source, replacement)`` rules of a TSV file (see the module documentation)."""
    rules = []
    text = _read(path).decode("utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        columns = line.split("\t")
        try:
            source, target = (
                "".join(chr(int(code, 16)) for code in column.split())
                for column in (columns[0], columns[1] if len(columns) > 1 else "")
            )
        except ValueError as e:
            raise CorpusFormatError(
                f"{os.fspath(path)}:{number}: a rule is hex code points, tab, hex code points ({e})"
            ) from e
        if not source:
            raise CorpusFormatError(f"{os.fspath(path)}:{number}: the rule's source is empty")
        rules.append((source, target))
    return rules


__all__ = ["SentencePieceNormalizer"]
