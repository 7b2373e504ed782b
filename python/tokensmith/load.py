"""One loader for every tokenizer source, and tokensmith's twin of ``tiktoken.load``.

:func:`load` takes a bundled name, a file or folder (see :func:`tokensmith.io.load`), or a
tokenizer object of tiktoken, HF ``tokenizers``, ``sentencepiece`` or transformers, and gives
the tokensmith object that keeps everything the source defines: an :class:`Encoding` when the
source is exactly a tiktoken-style byte-level BPE, else a :class:`~tokensmith.Tokenizer` (a
:class:`~tokensmith.SentencePieceTokenizer` for SentencePiece models).

``from tokensmith.load import load_tiktoken_bpe, dump_tiktoken_bpe,
data_gym_to_mergeable_bpe_ranks`` works as tiktoken's does, on local files only: a URL raises
:class:`~tokensmith.errors.NetworkAccessError`, since tokensmith never uses the network.
(``tokensmith.load`` the attribute is the :func:`load` function; this module is
``sys.modules["tokensmith.load"]``, which ``from ... import`` reads.)

>>> import tokensmith, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
>>> dump_tiktoken_bpe({b"a": 0, b"b": 1, b"ab": 2}, path)
>>> open(path).read()
'YQ== 0\\nYg== 1\\nYWI= 2\\n'
>>> sorted(tokensmith.load_tiktoken_bpe(path).items())
[(b'a', 0), (b'ab', 2), (b'b', 1)]
>>> tokensmith.load("cl100k_base").encode("<|endoftext|>", allowed_special="all")
[100257]

Not handled: transformers' slow (Python) tokenizers, which hold no ``tokenizer.json``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from os import PathLike
from typing import TYPE_CHECKING, Any

from tokensmith._atomic import atomic_write
from tokensmith._core import O200K_PATTERN, read_tiktoken
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    InputNotFoundError,
    NetworkAccessError,
    UnknownTokenizerError,
    VocabFormatError,
    VocabHashError,
)
from tokensmith.io.data_gym import ranks_from_data_gym
from tokensmith.io.tiktoken_file import rank_lines

StrPath = str | PathLike[str]

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer
    from tokensmith.io import Format

__all__ = [
    "check_hash",
    "data_gym_to_mergeable_bpe_ranks",
    "dump_tiktoken_bpe",
    "load",
    "load_tiktoken",
    "load_tiktoken_bpe",
    "read_file",
    "read_file_cached",
]

_FORMS = (
    "a bundled name (o200k_base, cl100k_base, ...), a .tiktoken file (with its .tiktoken.json "
    "sidecar), a tokenizer.json, a model folder, a .model, vocab.json (+ merges.txt), a "
    "vocab.txt, or a tiktoken, tokenizers, sentencepiece or transformers tokenizer object"
)


def _local(path: StrPath) -> str:
    """``path`` as a string, refusing URLs (``https://...``, ``gs://...``, ``az://...``)."""
    text = os.fspath(path)
    if "://" in text:
        raise NetworkAccessError(
            f"{text}: tokensmith reads local files only and never uses the network; "
            "download the file yourself and pass its path"
        )
    return text


def check_hash(data: bytes, expected_hash: str) -> bool:
    """Whether ``data``'s sha256 hex digest is ``expected_hash``."""
    return hashlib.sha256(data).hexdigest() == expected_hash


def read_file(blobpath: StrPath) -> bytes:
    """A local file's bytes, gunzipped if it is gzipped.

    Raises :class:`~tokensmith.errors.InputNotFoundError` if it does not exist and
    :class:`~tokensmith.errors.NetworkAccessError` for a URL.
    """
    path = _local(blobpath)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputNotFoundError(f"{path}: no such file") from None
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def read_file_cached(blobpath: StrPath, expected_hash: str | None = None) -> bytes:
    """:func:`read_file`, checked against ``expected_hash`` (the sha256 of the uncompressed
    content) when given. Files are local, so there is nothing to cache; the name is tiktoken's.

    Raises :class:`~tokensmith.errors.VocabHashError` (a ``ValueError``) on a mismatch.
    """
    data = read_file(blobpath)
    if expected_hash is not None and not check_hash(data, expected_hash):
        raise VocabHashError(
            f"{os.fspath(blobpath)}: sha256 is {hashlib.sha256(data).hexdigest()}, "
            f"expected {expected_hash}"
        )
    return data


def load_tiktoken_bpe(
    tiktoken_bpe_file: StrPath, expected_hash: str | None = None
) -> dict[bytes, int]:
    """Reads a ``.tiktoken`` file (plain or gzipped) into ``{token bytes: rank}``.

    With ``expected_hash``, the uncompressed content's sha256 must equal it
    (:class:`~tokensmith.errors.VocabHashError`). Errors name the file and the 1-based line at
    fault (:class:`~tokensmith.errors.VocabFormatError`).
    """
    path = _local(tiktoken_bpe_file)
    if expected_hash is not None:
        read_file_cached(path, expected_hash)
    return dict(read_tiktoken(path))


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: StrPath) -> None:
    """Writes ``{token bytes: rank}`` as a ``.tiktoken`` file, in rank order, atomically.

    The bytes are tiktoken's: one ``base64(token) rank`` line per token.
    """
    atomic_write(_local(tiktoken_bpe_file), rank_lines(bpe_ranks))


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: StrPath,
    encoder_json_file: StrPath,
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """GPT-2's ``vocab.bpe`` + ``encoder.json`` (plain or gzipped) as ``{token bytes: rank}``.

    The hashes, when given, are checked as in :func:`read_file_cached`. See
    :mod:`tokensmith.io.data_gym` for the format and the errors.
    """
    vocab_bpe = read_file_cached(vocab_bpe_file, vocab_bpe_hash)
    encoder_raw = read_file_cached(encoder_json_file, encoder_json_hash)
    where = f"{os.fspath(vocab_bpe_file)} / {os.fspath(encoder_json_file)}: "
    try:
        encoder = json.loads(encoder_raw)
        text = vocab_bpe.decode("utf-8")
    except ValueError as e:
        raise VocabFormatError(f"{where}{e}") from None
    if not isinstance(encoder, dict) or not all(isinstance(v, int) for v in encoder.values()):
        raise VocabFormatError(f"{where}encoder.json must be one {{token: id}} object")
    return ranks_from_data_gym(
        text, encoder, clobber_one_byte_tokens=clobber_one_byte_tokens, where=where
    )


def load_tiktoken(
    path: StrPath,
    *,
    name: str | None = None,
    pat_str: str = O200K_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Encoding:
    """Loads any ``.tiktoken`` file as an :class:`Encoding` (parsed in Rust).

    Args:
        path: The file, plain or gzipped.
        name: The encoding's name; defaults to the file name.
        pat_str: The split pattern; defaults to o200k_base's.
        special_tokens: Special-token text to id.

    Raises:
        VocabFormatError: the file is malformed or holds no token.
    """
    enc = Encoding.from_tiktoken_file(
        name or os.path.basename(_local(path)),
        path,
        pat_str=pat_str,
        special_tokens=dict(special_tokens or {}),
    )
    if not enc._mergeable_ranks:
        err = VocabFormatError(f"{os.fspath(path)}: the file holds no token")
        err.path = os.fspath(path)
        raise err
    return enc


def load(
    source: Any, *, format: Format | None = None, name: str | None = None
) -> Encoding | Tokenizer:
    """The tokensmith tokenizer for ``source``, keeping everything it defines.

    Args:
        source: A bundled encoding name, a path (a ``.tiktoken`` file with its sidecar, a
            ``tokenizer.json``, a model folder, a ``.model``, ``vocab.json`` with
            ``merges.txt`` beside it, a ``vocab.txt``), or an object: a tokensmith
            tokenizer (returned as is), ``tiktoken.Encoding``, ``tokenizers.Tokenizer``,
            ``sentencepiece.SentencePieceProcessor``, ``tokensmith.SentencePieceProcessor``
            or a transformers fast tokenizer (its chat template and special tokens kept).
        format: For a path, the format instead of the guess from its name and content.
        name: The encoding's name (byte-level BPE sources).

    Raises:
        InputNotFoundError: a path that does not exist.
        UnknownTokenizerError: ``source`` is none of the accepted forms.
        VocabFormatError, TokenizerJsonError, ModelFormatError: the source is malformed.
    """
    from tokensmith.hf_tokenizer import Tokenizer
    from tokensmith.io import load as load_path
    from tokensmith.sentencepiece import SentencePieceProcessor
    from tokensmith.sentencepiece_backend import SentencePieceTokenizer

    if isinstance(source, (Encoding, Tokenizer)):
        return source
    if isinstance(source, (str, PathLike)):
        text = os.fspath(source)
        if os.path.exists(text) or format is not None:
            return load_path(text, format=format, name=name)
        if isinstance(source, str) and os.sep not in text and "." not in text:
            from tokensmith.errors import UnknownEncodingError
            from tokensmith.registry import get_encoding

            try:
                return get_encoding(text)
            except UnknownEncodingError as e:
                raise UnknownTokenizerError(f"{e} A tokenizer may be {_FORMS}.") from e
        raise InputNotFoundError(f"no such tokenizer file: {text}")
    if isinstance(source, SentencePieceProcessor):
        return SentencePieceTokenizer(source)
    return _from_object(source, name=name)


def _from_object(obj: Any, *, name: str | None) -> Encoding | Tokenizer:
    """A tokenizer object of another library, by its module and methods."""
    from tokensmith.hf_tokenizer import Tokenizer

    module = type(obj).__module__.split(".")[0]
    if module == "tiktoken" and hasattr(obj, "_mergeable_ranks"):
        return Encoding(
            name or obj.name,
            pat_str=obj._pat_str,
            mergeable_ranks=dict(obj._mergeable_ranks),
            special_tokens=dict(obj._special_tokens),
        )
    if module == "sentencepiece" and hasattr(obj, "serialized_model_proto"):
        from tokensmith.sentencepiece_backend import SentencePieceTokenizer

        return SentencePieceTokenizer.from_bytes(obj.serialized_model_proto())
    if module == "tokenizers" and hasattr(obj, "to_str"):
        return _plain_or(Tokenizer.from_str(obj.to_str()), name)
    if module == "transformers" and hasattr(obj, "backend_tokenizer"):
        return _from_transformers(obj, name=name)
    raise UnknownTokenizerError(f"cannot load a {type(obj).__name__}; a tokenizer may be {_FORMS}")


def _plain_or(tok: Tokenizer, name: str | None) -> Encoding | Tokenizer:
    from tokensmith.io import _plain_or as plain_or

    return plain_or(tok, name or "loaded", name)


def _from_transformers(fast: Any, *, name: str | None) -> Encoding | Tokenizer:
    """A transformers fast tokenizer: its ``tokenizer.json``, and, when it has any, its chat
    template, special tokens and maximum length as the :class:`Tokenizer`'s config."""
    from tokensmith.hf_tokenizer import Tokenizer
    from tokensmith.pretrained import SPECIAL_TOKEN_KEYS, TokenizerConfig

    tok = Tokenizer.from_str(fast.backend_tokenizer.to_str())
    specials = {}
    for key in SPECIAL_TOKEN_KEYS:
        value = getattr(fast, key, None)
        if isinstance(value, str):
            specials[key] = value
    template = getattr(fast, "chat_template", None)
    templates = template if isinstance(template, dict) else {}
    if isinstance(template, str):
        templates = {"default": template}
    max_length = getattr(fast, "model_max_length", None)
    config = TokenizerConfig(
        special_tokens=specials,
        chat_template=templates.get("default"),
        chat_templates=templates,
        model_max_length=max_length if isinstance(max_length, int) and max_length < 10**9 else None,
    )
    if config == TokenizerConfig():
        return _plain_or(tok, name)
    tok._config = config
    return tok
