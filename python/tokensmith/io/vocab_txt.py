"""``vocab.txt``: BERT's WordPiece vocabulary, one token per line, the line number its id.

The file holds the tokens only. :func:`read` builds the pipeline BERT's tokenizers give such
a file: the ``BertNormalizer`` (lowercasing and accent stripping, unless a
``tokenizer_config.json`` beside the file sets ``do_lower_case: false``), the
``BertPreTokenizer``, ``##`` continuations, ``[UNK]``, and ``[CLS] $A [SEP]`` when both
tokens exist. :func:`write` saves a WordPiece :class:`~tokensmith.Tokenizer` whose pipeline
is exactly that one, and refuses any other, naming the first component that differs.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
>>> _ = open(path, "w").write("[UNK]\\n[CLS]\\n[SEP]\\nhello\\n##s\\n")
>>> read(path).encode("Hellos").ids
[1, 3, 4, 2]
"""

from __future__ import annotations

import json
import os
from os import PathLike
from typing import TYPE_CHECKING, Any

from tokensmith._atomic import atomic_write
from tokensmith.errors import InexpressibleComponentError, VocabFormatError

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["read", "tokenizer_json_text", "write"]

_PREFIX = "##"
_UNK = "[UNK]"
_COMPARED = ("normalizer", "pre_tokenizer", "post_processor", "decoder", "added_tokens",
             "padding", "truncation")  # fmt: skip


def _fail(path: str, message: str, line: int | None = None) -> VocabFormatError:
    where = f"{path}:{line}" if line else path
    err = VocabFormatError(f"{where}: {message}")
    err.path, err.line = path, line
    return err


def _lowercase(path: str) -> bool:
    """``do_lower_case`` from a ``tokenizer_config.json`` beside the file (BERT's default:
    true)."""
    config = os.path.join(os.path.dirname(path), "tokenizer_config.json")
    if not os.path.isfile(config):
        return True
    try:
        with open(config, encoding="utf-8") as f:
            value = json.load(f).get("do_lower_case", True)
    except (ValueError, AttributeError):
        raise _fail(config, "not a JSON object") from None
    if not isinstance(value, bool):
        raise _fail(config, f"do_lower_case is {value!r}, not true or false")
    return value


def tokenizer_json_text(tokens: list[str], *, lowercase: bool) -> str:
    """The ``tokenizer.json`` text BERT's tokenizers give the vocabulary ``tokens``."""
    from tokensmith.train.wordpiece import BERT_SPECIAL_TOKENS, bert_normalizer, wordpiece_json

    present = set(tokens)
    return wordpiece_json(
        tokens,
        specials=[s for s in BERT_SPECIAL_TOKENS if s in present],
        unk_token=_UNK,
        prefix=_PREFIX,
        normalizer=bert_normalizer(lowercase, None),
    )


def read(path: str | PathLike[str]) -> Tokenizer:
    """Loads a ``vocab.txt`` as BERT's WordPiece :class:`~tokensmith.Tokenizer`.

    Raises:
        VocabFormatError: the file is empty, is not UTF-8, repeats a token or lacks
            ``[UNK]`` (the message names the line).
    """
    from tokensmith.hf_tokenizer import Tokenizer

    p = os.fspath(path)
    tokens: list[str] = []
    seen: dict[str, int] = {}
    try:
        with open(p, encoding="utf-8", newline="") as f:
            for n, line in enumerate(f, start=1):
                token = line.rstrip("\r\n")
                if token in seen:
                    raise _fail(p, f"{token!r} repeats line {seen[token]}", n)
                seen[token] = n
                tokens.append(token)
    except UnicodeDecodeError as e:
        raise _fail(p, f"not UTF-8 ({e.reason} at byte {e.start})") from None
    if not tokens:
        raise _fail(p, "the file is empty; a vocab.txt holds one token per line")
    if _UNK not in seen:
        raise _fail(p, f"no {_UNK} token; WordPiece needs one for unknown words")
    return Tokenizer.from_str(tokenizer_json_text(tokens, lowercase=_lowercase(p)))


def _differing(ours: dict[str, Any], data: dict[str, Any]) -> str | None:
    model, want = data.get("model") or {}, ours["model"]
    if model.get("type") != "WordPiece":
        return f"model {model.get('type')} has no vocab.txt equivalent (only WordPiece has)"
    for key in ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word"):
        if model.get(key) != want[key]:
            return f"model.{key}={model.get(key)!r} has no vocab.txt equivalent"
    for key in _COMPARED:
        if data.get(key) != ours.get(key):
            kind = (data.get(key) or {}).get("type") if isinstance(data.get(key), dict) else None
            return f"{key} {kind or json.dumps(data.get(key))[:60]} has no vocab.txt equivalent"
    return None


def vocab_tokens(tokenizer: Tokenizer) -> list[str]:
    """The tokens of a WordPiece tokenizer in id order, as ``vocab.txt`` writes them.

    Raises:
        InexpressibleComponentError: the pipeline is not what ``vocab.txt`` loads as (the
            message names the component), or the ids have gaps.
    """
    data = json.loads(tokenizer.to_str())
    vocab = (data.get("model") or {}).get("vocab")
    if not isinstance(vocab, dict):
        raise InexpressibleComponentError("model has no vocabulary map; vocab.txt needs one")
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise InexpressibleComponentError(
            "model.vocab ids have gaps; vocab.txt ids are line numbers"
        )
    normalizer = data.get("normalizer") or {}
    lowercase = bool(normalizer.get("lowercase", True))
    problem = _differing(json.loads(tokenizer_json_text(tokens, lowercase=lowercase)), data)
    if problem:
        raise InexpressibleComponentError(problem)
    if any("\n" in t or "\r" in t for t in tokens):
        raise InexpressibleComponentError("a token holds a line break, which vocab.txt cannot")
    return tokens


def write(tokenizer: Tokenizer, path: str | PathLike[str]) -> None:
    """Writes ``vocab.txt`` atomically, and ``tokenizer_config.json`` beside it when the
    normalizer keeps case (``do_lower_case: false``)."""
    tokens = vocab_tokens(tokenizer)
    atomic_write(path, ["".join(t + "\n" for t in tokens).encode("utf-8")])
    normalizer = json.loads(tokenizer.to_str()).get("normalizer") or {}
    if not normalizer.get("lowercase", True):
        config = os.path.join(os.path.dirname(os.fspath(path)), "tokenizer_config.json")
        atomic_write(config, [b'{"do_lower_case": false}\n'])
