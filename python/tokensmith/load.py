"""Loading vocabularies from files: tokensmith's twin of ``tiktoken.load``.

``from tokensmith.load import load_tiktoken_bpe, dump_tiktoken_bpe,
data_gym_to_mergeable_bpe_ranks`` works as tiktoken's does, on local files only: a URL raises
:class:`~tokensmith.errors.NetworkAccessError`, since tokensmith never uses the network.
(``tokensmith.load`` the attribute is the general :func:`tokensmith.io.load` function; this
module is ``sys.modules["tokensmith.load"]``, which ``from ... import`` reads.)

>>> import tokensmith, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
>>> dump_tiktoken_bpe({b"a": 0, b"b": 1, b"ab": 2}, path)
>>> open(path).read()
'YQ== 0\\nYg== 1\\nYWI= 2\\n'
>>> sorted(tokensmith.load_tiktoken_bpe(path).items())
[(b'a', 0), (b'ab', 2), (b'b', 1)]
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from os import PathLike

from tokensmith._atomic import atomic_write
from tokensmith._core import O200K_PATTERN, read_tiktoken
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    InputNotFoundError,
    NetworkAccessError,
    VocabFormatError,
    VocabHashError,
)
from tokensmith.io.data_gym import ranks_from_data_gym
from tokensmith.io.tiktoken_file import rank_lines

StrPath = str | PathLike[str]


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
    """
    return Encoding.from_tiktoken_file(
        name or os.path.basename(_local(path)),
        path,
        pat_str=pat_str,
        special_tokens=dict(special_tokens or {}),
    )
