"""One loader for every tokenizer source: :func:`load`, and the ``.tiktoken`` readers.

:func:`load` takes a bundled name, a file or folder (see :func:`tokensmith.io.load`), or a
tokenizer object of tiktoken, HF ``tokenizers``, ``sentencepiece`` or transformers, and gives
the tokensmith object that keeps everything the source defines: an :class:`Encoding` when the
source is exactly a tiktoken-style byte-level BPE, else a :class:`~tokensmith.Tokenizer` (a
:class:`~tokensmith.SentencePieceTokenizer` for SentencePiece models).

>>> import tokensmith, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
>>> _ = open(path, "w").write("YQ== 0\\nYg== 1\\nYWI= 2\\n")
>>> sorted(tokensmith.load_tiktoken_bpe(path).items())
[(b'a', 0), (b'ab', 2), (b'b', 1)]
>>> tokensmith.load("cl100k_base").encode("<|endoftext|>", allowed_special="all")
[100257]

Not handled: transformers' slow (Python) tokenizers, which hold no ``tokenizer.json``.
"""

from __future__ import annotations

import os
from os import PathLike
from typing import TYPE_CHECKING, Any

from tokensmith._core import O200K_PATTERN, read_tiktoken
from tokensmith.encoding import Encoding
from tokensmith.errors import InputNotFoundError, UnknownTokenizerError, VocabFormatError

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer
    from tokensmith.io import Format

__all__ = ["load", "load_tiktoken", "load_tiktoken_bpe"]

_FORMS = (
    "a bundled name (o200k_base, cl100k_base, ...), a .tiktoken file (with its .tiktoken.json "
    "sidecar), a tokenizer.json, a model folder, a .model, vocab.json (+ merges.txt), a "
    "vocab.txt, or a tiktoken, tokenizers, sentencepiece or transformers tokenizer object"
)


def load_tiktoken_bpe(path: str | PathLike[str]) -> dict[bytes, int]:
    """Reads a ``.tiktoken`` file (plain or gzipped) into ``{token bytes: rank}``.

    Errors name the file and the 1-based line at fault
    (:class:`~tokensmith.errors.VocabFormatError`).
    """
    return dict(read_tiktoken(path))


def load_tiktoken(
    path: str | PathLike[str],
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
        name or os.path.basename(os.fspath(path)),
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
