"""``load_tokenizer``: one entry point from whatever the user has to a :class:`TokenizerAdapter`.

Accepted specs, tried in this order:

- an adapter already (returned as is);
- a :class:`tokensmith.Encoding` or ``tiktoken.Encoding``;
- a ``tokenizers.Tokenizer``;
- a ``sentencepiece.SentencePieceProcessor``;
- a bundled encoding name (``"o200k_base"``, ``"cl100k_base"``, ...);
- a path, read by :func:`tokensmith.load` (a ``.tiktoken`` file with its sidecar, a
  ``tokenizer.json``, a folder, a ``.model``, ``vocab.json``, ``vocab.txt``); HF
  ``tokenizers`` runs a ``tokenizer.json`` only when it has a component tokensmith does not.

A ``tokenizer.json`` that pads or truncates is measured with both switched off (the
adapter's ``note`` says so, and reports show it): metrics count the tokenizer's own tokens.

>>> load_tokenizer("cl100k_base").vocab_size
100277
"""

from __future__ import annotations

import os
from os import PathLike
from typing import Any, cast

from tokensmith.errors import UnknownTokenizerError
from tokensmith.eval.adapters.base import TokenizerAdapter
from tokensmith.eval.adapters.hf import HFTokenizerAdapter
from tokensmith.eval.adapters.spm import SentencePieceAdapter, is_sentencepiece_processor
from tokensmith.eval.adapters.tiktoken_like import TiktokenLikeAdapter

TokenizerSpec = TokenizerAdapter | str | PathLike[str] | Any


def _is_adapter(obj: Any) -> bool:
    return isinstance(obj, TokenizerAdapter) and not isinstance(obj, (str, PathLike))


def adapter_for(tok: Any, *, name: str | None = None) -> TokenizerAdapter:
    """The adapter of a tokenizer :func:`tokensmith.load` gave (or of a foreign object that
    it runs as is: a ``tiktoken.Encoding``, a ``tokenizers.Tokenizer`` or a
    ``sentencepiece.SentencePieceProcessor``). An encoding keeps its own name."""
    from tokensmith import Encoding, SentencePieceTokenizer

    if isinstance(tok, SentencePieceTokenizer):
        return SentencePieceAdapter(tok.processor, name=name or "sentencepiece")
    if isinstance(tok, Encoding) or (hasattr(tok, "encode_ordinary") and hasattr(tok, "n_vocab")):
        return TiktokenLikeAdapter(tok)
    if hasattr(tok, "to_str") and hasattr(tok, "encode_batch"):
        return HFTokenizerAdapter(tok, name=name or "tokenizers")
    if is_sentencepiece_processor(tok):
        return SentencePieceAdapter(tok, name=name or "sentencepiece")
    raise UnknownTokenizerError(f"cannot evaluate a {type(tok).__name__}")


def _from_path(path: str, *, pat_str: str | None, name: str | None) -> TokenizerAdapter:
    """A file or folder through :func:`tokensmith.load`; a ``tokenizer.json`` with a component
    tokensmith does not run goes to HF ``tokenizers`` instead."""
    import tokensmith
    from tokensmith.errors import UnsupportedComponentError

    label = name or os.path.basename(os.path.normpath(path))
    try:
        tok = tokensmith.load(path, name=label)
    except UnsupportedComponentError:
        from tokenizers import Tokenizer as HFTokenizer

        return HFTokenizerAdapter(HFTokenizer.from_file(path), name=label)
    if pat_str is not None and isinstance(tok, tokensmith.Encoding):
        tok = tokensmith.Encoding(
            label,
            pat_str=pat_str,
            mergeable_ranks=tok._mergeable_ranks,
            special_tokens=tok._special_tokens,
        )
    return adapter_for(tok, name=label)


def load_tokenizer(
    spec: TokenizerSpec, *, pat_str: str | None = None, name: str | None = None
) -> TokenizerAdapter:
    """Turns a name, a path or a tokenizer object into a :class:`TokenizerAdapter`.

    Args:
        spec: What to load (see the module docstring).
        pat_str: Replaces the split pattern of a ``.tiktoken`` file's sidecar.
        name: A label for reports (defaults to the encoding's name or the file name).

    Raises:
        UnknownTokenizerError: ``spec`` is none of the accepted forms (a ``ValueError``).
        InputNotFoundError: ``spec`` names a file that does not exist.
        MissingDependencyError: the file needs a package that is not installed.
    """
    import tokensmith

    if _is_adapter(spec):
        return cast(TokenizerAdapter, spec)
    if isinstance(spec, (str, PathLike)):
        text = os.fspath(spec)
        if os.path.exists(text):
            return _from_path(text, pat_str=pat_str, name=name)
        return adapter_for(tokensmith.load(text), name=name)
    return adapter_for(spec, name=name)
