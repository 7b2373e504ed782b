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

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from os import PathLike
from typing import Any

from tokensmith.conversion.pipeline_diff import field_differences, merge_differences
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
    special and added tokens, the merges (of BPE models: ``None`` when equal, else those
    ``removed``, ``added`` and ``reordered``, see
    :func:`~tokensmith.conversion.pipeline_diff.merge_differences`) and the normalizer (a
    list of differing fields, empty when equal)."""
    from tokensmith.load import load

    left, right = load(a), load(b)
    report: VerifyReport = verify_pair(left, right, files)
    out = report.to_dict()
    out["fingerprints"] = [fingerprint(left, files=files), fingerprint(right, files=files)]
    out["same"] = out["fingerprints"][0] == out["fingerprints"][1]
    pipe_a, pipe_b = _pipeline(left), _pipeline(right)
    out["merges"] = merge_differences(pipe_a["merges"], pipe_b["merges"])
    out["normalizer"] = field_differences(pipe_a["normalizer"], pipe_b["normalizer"], "normalizer")
    return out


def _pipeline(tok: Encoding | Tokenizer) -> dict[str, Any]:
    """The merges (as ``"a b"`` strings, ``None`` for a model without) and the normalizer
    (its ``tokenizer.json`` object, or a ``.model``'s normalizer spec) of a tokenizer."""
    from tokensmith.conversion.spm_json import bpe_merges, normalizer_spec
    from tokensmith.io import hf_json
    from tokensmith.sentencepiece_backend import SentencePieceTokenizer

    if isinstance(tok, SentencePieceTokenizer):
        spec = normalizer_spec(tok.processor.serialized_model_proto())
        spec["charsmap"] = base64.b64encode(spec["charsmap"]).decode("ascii")
        bpe = tok.processor._model.model_type() == "bpe"
        merges = [" ".join(m) for m in bpe_merges(tok.processor.pieces())] if bpe else None
        return {"merges": merges, "normalizer": spec}
    doc = hf_json.to_dict(tok) if isinstance(tok, Encoding) else json.loads(tok.to_str())
    found = (doc.get("model") or {}).get("merges")
    merges = (
        [m if isinstance(m, str) else " ".join(m) for m in found] if found is not None else None
    )
    return {"merges": merges, "normalizer": doc.get("normalizer")}
