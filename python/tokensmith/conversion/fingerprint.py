"""Fingerprints and diffs: what a tokenizer does, as a short digest, and where two differ.

A fingerprint hashes the tokenizer's behaviour over a canonical form that every format
carries, not its file:

- the vocabulary, text -> id (byte-level tokens in GPT-2's alphabet, as ``tokenizer.json``
  spells them), special tokens included;
- the ids it gives on the probe set, with each *marker* of the vocabulary in it (a token
  spelled ``<...>`` or ``[...]``, e.g. ``<|endoftext|>``, ``<s>``, ``[CLS]``);
- the ids it gives on each vocabulary token's own text;
- optionally, its ids on the user's files.

Which tokens a format marks special is left out: a ``.model`` marks its control pieces, a
``tokenizer.json`` converted from it holds them as plain vocabulary, and both give the same
ids. The same tokenizer as ``.tiktoken``, ``tokenizer.json``, vocab + merges or ``.model``
has one fingerprint; removing one merge (the merged token's own text no longer encodes to
it), changing a normalizer flag (the probe set's ids change), or renumbering one special
token (the vocabulary changes) changes it.

>>> import tokensmith
>>> fingerprint(tokensmith.get_encoding("cl100k_base"))[:4]
'ts2:'

Not handled: two tokenizers whose only difference shows on texts outside the probe set,
the vocabulary's own texts and the given files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from os import PathLike
from typing import Any

from tokensmith.conversion.probes import probe_texts
from tokensmith.conversion.verify import VerifyReport, _file_texts, token_sets, verify_pair
from tokensmith.encoding import Encoding
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.io._byte_level import CHAR_TO_BYTE, str_to_token

__all__ = ["diff", "fingerprint"]

_VERSION = "ts2"
# A vocabulary entry that reads as a marker rather than text: <...> or [...].
_MARKER = re.compile(r"<[^<>\s]+>|\[[^\[\]\s]+\]")


def _surface(token: str, byte_level: bool) -> str | None:
    """The text a vocabulary entry stands for, or None if it is no whole UTF-8 text."""
    if byte_level:
        try:
            return str_to_token(token).decode("utf-8")
        except (UnicodeDecodeError, ValueError):
            return None
    return token.replace("\u2581", " ").removeprefix("##") or None


def _ids(tok: Encoding | Tokenizer, texts: list[str]) -> list[list[int]]:
    if isinstance(tok, Encoding):
        return tok.encode_batch(texts, allowed_special="all")
    return [list(r.ids) for r in tok.encode_batch(texts)]


def behaviour(
    tok: Encoding | Tokenizer, files: Sequence[str | PathLike[str]] = ()
) -> dict[str, Any]:
    """What :func:`fingerprint` hashes, as plain data."""
    vocab = token_sets(tok)[0]
    markers = [t for t in vocab if _MARKER.fullmatch(t)]
    byte_level = all(all(c in CHAR_TO_BYTE for c in t) for t in vocab if not _MARKER.fullmatch(t))
    surfaces = sorted({s for t in vocab if (s := _surface(t, byte_level)) is not None})
    texts = probe_texts(markers) + [t for _, t in _file_texts(files)]
    return {
        "vocabulary": sorted(vocab.items(), key=lambda kv: (kv[1], kv[0])),
        "probe_ids": _ids(tok, texts),
        "vocabulary_text_ids": _ids(tok, surfaces),
    }


def fingerprint(tok: Any, *, files: Sequence[str | PathLike[str]] = ()) -> str:
    """A short stable digest of what ``tok`` does (anything :func:`tokensmith.load` takes).

    Args:
        tok: The tokenizer.
        files: Text files whose lines' ids are hashed too.
    """
    from tokensmith.load import load

    data = json.dumps(behaviour(load(tok), files), ensure_ascii=False, separators=(",", ":"))
    return f"{_VERSION}:{hashlib.sha256(data.encode('utf-8')).hexdigest()[:16]}"


def diff(a: Any, b: Any, *, files: Sequence[str | PathLike[str]] = ()) -> dict[str, Any]:
    """Where two tokenizers differ: the first texts (with their tokens), the vocabulary,
    special and added tokens, the merges (of BPE models) and the normalizer."""
    from tokensmith.load import load

    left, right = load(a), load(b)
    report: VerifyReport = verify_pair(left, right, files)
    out = report.to_dict()
    out["fingerprints"] = [fingerprint(left, files=files), fingerprint(right, files=files)]
    out["same"] = out["fingerprints"][0] == out["fingerprints"][1]
    pipe_a, pipe_b = _pipeline(left), _pipeline(right)
    out["merges"] = _merge_difference(pipe_a.get("merges"), pipe_b.get("merges"))
    out["normalizer"] = (
        None
        if pipe_a.get("normalizer") == pipe_b.get("normalizer")
        else {"a": pipe_a.get("normalizer"), "b": pipe_b.get("normalizer")}
    )
    return out


def _pipeline(tok: Encoding | Tokenizer) -> dict[str, Any]:
    """The merges (as ``"a b"`` strings) and normalizer of a tokenizer, where it has them."""
    from tokensmith.io import hf_json
    from tokensmith.sentencepiece_backend import SentencePieceTokenizer

    if isinstance(tok, Encoding):
        doc = hf_json.to_dict(tok)
    elif isinstance(tok, SentencePieceTokenizer):
        return {"normalizer": tok.processor.normalize(" Ａ\u00e9 ")}
    else:
        doc = json.loads(tok.to_str())
    merges = (doc.get("model") or {}).get("merges")
    as_text = [m if isinstance(m, str) else " ".join(m) for m in merges] if merges else None
    return {"merges": as_text, "normalizer": doc.get("normalizer")}


def _merge_difference(a: list[str] | None, b: list[str] | None) -> dict[str, Any] | None:
    if a == b:
        return None
    sa, sb = set(a or []), set(b or [])
    pairs = zip(a or [], b or [], strict=False)
    first = next((i for i, (x, y) in enumerate(pairs) if x != y), None)
    return {
        "only_in_a": sorted(sa - sb)[:20],
        "only_in_b": sorted(sb - sa)[:20],
        "first_different_rank": first,
    }
