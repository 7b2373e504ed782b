"""``load_tokenizer``: one entry point from whatever the user has to a :class:`TokenizerAdapter`.

Accepted specs, tried in this order:

- an adapter already (returned as is);
- a :class:`tokensmith.Encoding` or ``tiktoken.Encoding``;
- a ``tokenizers.Tokenizer``;
- a ``sentencepiece.SentencePieceProcessor``;
- a bundled encoding name (``"o200k_base"``, ``"cl100k_base"``, ...);
- a path: ``*.tiktoken`` / ``*.tiktoken.gz`` (split with ``pat_str``, o200k's by default),
  ``*.json`` (a ``tokenizer.json``: byte-level BPE files run on tokensmith's own encoder, other
  pipelines on :class:`tokensmith.Tokenizer`, and HF ``tokenizers`` only for a component
  tokensmith does not run), ``*.model`` (:class:`tokensmith.SentencePieceProcessor`).

>>> load_tokenizer("cl100k_base").vocab_size
100277
"""

from __future__ import annotations

import os
from os import PathLike
from typing import Any, cast

from tokensmith.errors import InputNotFoundError, UnknownEncodingError, UnknownTokenizerError
from tokensmith.eval.adapters.base import TokenizerAdapter
from tokensmith.eval.adapters.hf import HFTokenizerAdapter
from tokensmith.eval.adapters.spm import (
    SentencePieceAdapter,
    is_sentencepiece_processor,
    load_sentencepiece,
)
from tokensmith.eval.adapters.tiktoken_like import TiktokenLikeAdapter

TokenizerSpec = TokenizerAdapter | str | PathLike[str] | Any

_FORMS = (
    "a bundled name (o200k_base, cl100k_base, ...), a .tiktoken / tokenizer.json / .model path, "
    "or a tokensmith.Encoding, tiktoken.Encoding, tokenizers.Tokenizer or "
    "SentencePieceProcessor object"
)


def _is_adapter(obj: Any) -> bool:
    return isinstance(obj, TokenizerAdapter) and not isinstance(obj, (str, PathLike))


def _from_path(path: str, *, pat_str: str | None, name: str | None) -> TokenizerAdapter:
    lower = path.lower()
    label = name or os.path.basename(path)
    if lower.endswith((".tiktoken", ".tiktoken.gz")):
        from tokensmith import O200K_PATTERN, load_tiktoken

        enc = load_tiktoken(path, name=label, pat_str=pat_str or O200K_PATTERN)
        return TiktokenLikeAdapter(enc)
    if lower.endswith(".json"):
        return _tokenizer_json(path, label)
    if lower.endswith(".model"):
        return SentencePieceAdapter(load_sentencepiece(path), name=label)
    raise UnknownTokenizerError(
        f"cannot tell what kind of tokenizer {path!r} holds from its name; expected {_FORMS}"
    )


def _tokenizer_json(path: str, label: str) -> TokenizerAdapter:
    """A ``tokenizer.json``, on the fastest engine that gives HF's ids for it.

    1. tokensmith's tiktoken-style encoder, when the file reads as a plain byte-level BPE (the
       loader refuses any component that would change ids);
    2. tokensmith's own :class:`~tokensmith.Tokenizer` (the full HF pipeline in Rust), when it
       supports every component of the file;
    3. HF ``tokenizers`` otherwise (a :class:`~tokensmith.errors.TokenizerJsonError` names the
       component tokensmith lacks).

    Text is encoded without matching added tokens, as for every tiktoken-style encoding.
    """
    from tokensmith import Encoding, Tokenizer
    from tokensmith.errors import TokenizerJsonError, TokensmithError
    from tokensmith.io import load

    try:
        enc = load(path, format="tokenizer.json", name=label)
    except TokensmithError:
        enc = None
    if isinstance(enc, Encoding):
        return TiktokenLikeAdapter(enc)
    try:
        return HFTokenizerAdapter(Tokenizer.from_file(path), name=label)
    except TokenizerJsonError:
        pass
    from tokenizers import Tokenizer as HFTokenizer

    return HFTokenizerAdapter(HFTokenizer.from_file(path), name=label)


def load_tokenizer(
    spec: TokenizerSpec, *, pat_str: str | None = None, name: str | None = None
) -> TokenizerAdapter:
    """Turns a name, a path or a tokenizer object into a :class:`TokenizerAdapter`.

    Args:
        spec: What to load (see the module docstring).
        pat_str: The split pattern for a ``.tiktoken`` file (o200k_base's if not given).
        name: A label for reports (defaults to the encoding's name or the file name).

    Raises:
        UnknownTokenizerError: ``spec`` is none of the accepted forms (a ``ValueError``).
        InputNotFoundError: ``spec`` names a file that does not exist.
        MissingDependencyError: the file needs a package that is not installed.
    """
    if _is_adapter(spec):
        return cast(TokenizerAdapter, spec)
    if isinstance(spec, (str, PathLike)):
        text = os.fspath(spec)
        if os.path.exists(text):
            return _from_path(text, pat_str=pat_str, name=name)
        if isinstance(spec, str) and os.sep not in text and "." not in text:
            from tokensmith import get_encoding

            try:
                return TiktokenLikeAdapter(get_encoding(text))
            except UnknownEncodingError as e:
                raise UnknownTokenizerError(f"{e} A tokenizer spec may be {_FORMS}.") from e
        raise InputNotFoundError(f"no such tokenizer file: {text}")
    if hasattr(spec, "encode_ordinary") and hasattr(spec, "n_vocab"):
        return TiktokenLikeAdapter(spec)
    if hasattr(spec, "to_str") and hasattr(spec, "encode_batch"):
        return HFTokenizerAdapter(spec, name=name or "tokenizers")
    if is_sentencepiece_processor(spec):
        return SentencePieceAdapter(spec, name=name or "sentencepiece")
    raise UnknownTokenizerError(f"cannot evaluate a {type(spec).__name__}; expected {_FORMS}")
