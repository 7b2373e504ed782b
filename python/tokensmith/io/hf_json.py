"""``tokenizer.json``: HF ``tokenizers``' format, for a byte-level BPE encoding.

The file holds the encoding as HF's pipeline of the same behaviour:

- pre-tokenizer ``Sequence[Split(pat_str, "isolated"), ByteLevel(use_regex=false)]``: split
  by the pattern, then spell bytes in GPT-2's printable alphabet;
- model ``BPE`` with the vocabulary in that alphabet, one merge per multi-byte token in rank
  order, and ``ignore_merges`` (a piece that is a whole token is that token, as in tiktoken);
- decoder ``ByteLevel``; special tokens as ``added_tokens``, and in the model's vocabulary too.

HF ignores an added token's ``id``: it gives the token the model's id for its text, or else
the next id after the vocabulary's size. cl100k's ranks stop at 100255 and its
``<|endoftext|>`` is 100257, so an added token alone would come back as 100256. Listing each
special token in ``model.vocab`` with its id makes HF ``tokenizers`` and transformers keep
tiktoken's ids; the BPE never produces those entries, as they are no merge.

HF runs the ``Split`` regex on Oniguruma, not on tiktoken's engine. Possessive bounded
repeats (``\\p{N}{1,3}+`` in cl100k) mean something else there and are written greedy, which
matches the same text in these patterns. The bundled patterns are checked by the tests; for
another pattern, check the ids on your own text.

:func:`read` also reads GPT-2-style files (a ``ByteLevel`` pre-tokenizer with its built-in
regex, a ``ByteLevel`` post-processor).

Not handled: other HF models, normalizers, other post-processors, ``add_prefix_space``, and
patterns other than the bundled ones (:func:`encoding_obstacle` names the reason;
:func:`tokensmith.load` then gives a :class:`~tokensmith.Tokenizer`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from os import PathLike
from typing import TYPE_CHECKING, Any

from tokensmith._atomic import atomic_write
from tokensmith.errors import InvalidVocabError, VocabFormatError
from tokensmith.io._byte_level import (
    merges_from_ranks,
    ranks_from_merges,
    str_to_token,
    token_to_str,
)

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding

_POSSESSIVE_REPEAT = re.compile(r"(?<!\\)(\{\d+(?:,\d*)?\})\+")


def oniguruma_pattern(pat_str: str) -> str:
    """``pat_str`` as Oniguruma reads it the way tiktoken's engine does.

    >>> oniguruma_pattern(r"\\p{N}{1,3}+|\\s++$")
    '\\\\p{N}{1,3}|\\\\s++$'
    """
    return _POSSESSIVE_REPEAT.sub(r"\1", pat_str)


def merges_of(encoding: Encoding) -> list[tuple[bytes, bytes]]:
    """The encoding's merges: the trainer's record if it has one, else rebuilt from ranks."""
    recorded = getattr(encoding, "_bpe_merges", None)
    if recorded is not None:
        return list(recorded)
    return merges_from_ranks(encoding._mergeable_ranks)


def to_dict(encoding: Encoding) -> dict[str, Any]:
    """The ``tokenizer.json`` content for ``encoding``."""
    ranks = encoding._mergeable_ranks
    vocab = {token_to_str(t): r for t, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    # One name per id: HF's vocabulary cannot give one id two texts (o200k_harmony names
    # 200018 twice), so the name the id decodes to is kept and the alias is left out.
    specials = sorted(
        (
            (text, i)
            for text, i in encoding._special_tokens.items()
            if encoding.decode_single_token_bytes(i) == text.encode()
        ),
        key=lambda kv: kv[1],
    )
    for text, i in specials:
        if vocab.setdefault(text, i) != i:
            raise InvalidVocabError(
                f"special token {text!r} ({i}) is spelled like the ordinary token {vocab[text]}; "
                "tokenizer.json keeps one id per text"
            )
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": s,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for s, i in specials
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": oniguruma_pattern(encoding._pat_str)},
                    "behavior": "Isolated",
                    "invert": False,
                },
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": False,
                },
            ],
        },
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": True,
            "use_regex": False,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": vocab,
            # "a b" strings, which every tokenizers version reads; the byte alphabet has no space.
            "merges": [f"{token_to_str(a)} {token_to_str(b)}" for a, b in merges_of(encoding)],
        },
    }


def write(encoding: Encoding, path: str | PathLike[str]) -> None:
    """Writes ``tokenizer.json`` atomically."""
    text = json.dumps(to_dict(encoding), ensure_ascii=False, indent=2) + "\n"
    atomic_write(path, [text.encode("utf-8")])


def _fail(path: str, message: str) -> VocabFormatError:
    err = VocabFormatError(f"{path}: {message}")
    err.path = path
    return err


def _split_pattern(pre: Any, path: str) -> str:
    """The regex of a ``Sequence[Split, ByteLevel(use_regex=false)]`` pre-tokenizer.

    GPT-2's own form, ``ByteLevel(use_regex=true, add_prefix_space=false)`` alone, splits by
    GPT-2's pattern, which is r50k's.
    """
    if (
        isinstance(pre, dict)
        and pre.get("type") == "ByteLevel"
        and pre.get("use_regex", True)
        and not pre.get("add_prefix_space", False)
    ):
        from tokensmith._core import R50K_PATTERN

        return R50K_PATTERN
    if isinstance(pre, dict) and pre.get("type") == "Sequence":
        steps = pre.get("pretokenizers")
        if (
            isinstance(steps, list)
            and len(steps) == 2
            and isinstance(steps[0], dict)
            and isinstance(steps[1], dict)
            and steps[0].get("type") == "Split"
            and steps[0].get("behavior") == "Isolated"
            and not steps[0].get("invert", False)
            and isinstance(steps[0].get("pattern"), dict)
            and isinstance(steps[0]["pattern"].get("Regex"), str)
            and steps[1].get("type") == "ByteLevel"
            and not steps[1].get("use_regex", True)
            and not steps[1].get("add_prefix_space", False)
        ):
            return str(steps[0]["pattern"]["Regex"])
    raise _fail(
        path,
        "the pre-tokenizer is neither Sequence[Split(regex, Isolated), ByteLevel(use_regex=false, "
        "add_prefix_space=false)] nor GPT-2's ByteLevel(add_prefix_space=false), the byte-level "
        "forms tokensmith reads",
    )


def _parse_merge(m: Any, n: int, path: str) -> tuple[bytes, bytes]:
    if isinstance(m, str):
        pair = m.split(" ")
    elif isinstance(m, list):
        pair = m
    else:
        pair = []
    if len(pair) != 2 or not all(isinstance(p, str) for p in pair):
        raise _fail(path, f"merge {n} ({m!r}) is not a pair of tokens")
    try:
        return str_to_token(pair[0]), str_to_token(pair[1])
    except VocabFormatError as e:  # the message names the merge only when there is an error
        raise VocabFormatError(f"{path}: merge {n}: {e}") from None


def _added_token_obstacle(added: Any) -> str | None:
    if not isinstance(added, dict):
        return f"added token {added!r} is not an object"
    for flag in ("lstrip", "rstrip", "single_word"):
        if added.get(flag):
            return f"added token {added.get('content')!r} sets {flag}"
    if added.get("special") is False:
        return f"added token {added.get('content')!r} is not special"
    return None


def encoding_obstacle(data: Mapping[str, Any]) -> str | None:
    """Why ``tokenizer.json`` content is not exactly a tiktoken-style :class:`Encoding`, or
    ``None`` when it is.

    An :class:`Encoding` drops text its pattern does not match, where HF's ``Split`` keeps it
    as a piece; only the bundled patterns (which match every character) are read as one.
    Padding, truncation, normalizers, post-processors other than ``ByteLevel``, a decoder
    other than ``ByteLevel`` and added tokens that strip spaces have no place in an
    :class:`Encoding` either.

    >>> encoding_obstacle({"model": {"type": "WordPiece"}})
    'the model is WordPiece, not BPE'
    """
    model = data.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE":
        kind = model.get("type") if isinstance(model, dict) else None
        return f"the model is {kind}, not BPE"
    for key in ("continuing_subword_prefix", "end_of_word_suffix", "unk_token", "dropout"):
        if model.get(key) not in (None, ""):
            return f"model.{key}={model[key]!r} is set"
    if model.get("byte_fallback"):
        return "model.byte_fallback is set"
    for key in ("normalizer", "padding", "truncation"):
        if data.get(key) is not None:
            return f"{key} is set"
    post = data.get("post_processor")
    # A ByteLevel post-processor only trims offsets; it changes no id.
    if post is not None and not (isinstance(post, dict) and post.get("type") == "ByteLevel"):
        return "post_processor is set (and is not ByteLevel)"
    decoder = data.get("decoder")
    if not (isinstance(decoder, dict) and decoder.get("type") == "ByteLevel"):
        return "the decoder is not ByteLevel"
    try:
        pattern = tiktoken_pattern(_split_pattern(data.get("pre_tokenizer"), "tokenizer.json"))
    except VocabFormatError as e:
        return str(e).split(": ", 1)[-1]
    if pattern not in _complete_patterns():
        return (
            "the Split regex is not a bundled pattern: HF keeps the text it does not match, "
            "which a tiktoken-style Encoding would drop"
        )
    for added in data.get("added_tokens") or []:
        problem = _added_token_obstacle(added)
        if problem:
            return problem
    return _renumbered(data)


def _renumbered(data: Mapping[str, Any]) -> str | None:
    """Whether HF gives an added token another id than the file's.

    HF ignores an added token's ``id``: a token whose text is in ``model.vocab`` gets that
    id, any other the next one after both the vocabulary's size and the added ids so far.
    """
    vocab = data["model"].get("vocab")
    if not isinstance(vocab, dict):
        return None
    taken = -1
    for added in data.get("added_tokens") or []:
        content = added.get("content")
        if content in vocab:
            got = vocab[content]
        else:
            got = max(len(vocab), taken + 1)
        taken = max(taken, got) if isinstance(got, int) else taken
        if got != added.get("id"):
            return f"added token {content!r} has id {added.get('id')} in the file; HF gives {got}"
    return None


def _complete_patterns() -> tuple[str, ...]:
    """The patterns known to match every character of any text."""
    from tokensmith._core import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN

    return (O200K_PATTERN, CL100K_PATTERN, R50K_PATTERN)


def from_dict(data: Mapping[str, Any], path: str, *, name: str) -> Encoding:
    """Builds an :class:`Encoding` from ``tokenizer.json`` content.

    Raises:
        VocabFormatError: the content is not exactly an :class:`Encoding`
            (see :func:`encoding_obstacle`) or its vocabulary is not in merge order.
    """
    from tokensmith.encoding import Encoding

    problem = encoding_obstacle(data)
    if problem:
        raise _fail(path, f"not a plain byte-level BPE: {problem}")
    model = data["model"]
    pat_str = tiktoken_pattern(_split_pattern(data.get("pre_tokenizer"), path))
    vocab = model.get("vocab")
    merges = model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise _fail(path, "model.vocab must be a map and model.merges a list")
    specials = _specials(data, path)
    special_ids = set(specials.values())
    ids: dict[bytes, int] = {}
    for text, i in vocab.items():
        if not isinstance(i, int):
            raise _fail(path, f"token {text!r} has the id {i!r}, not an integer")
        if i in special_ids:
            continue
        ids[str_to_token(text, where=f"{path}: ")] = i
    parsed = [_parse_merge(m, n, path) for n, m in enumerate(merges, start=1)]
    ranks = ranks_from_merges(parsed, ids, where=f"{path}: ")
    extra = set(ids) - set(ranks)
    if extra:
        example = sorted(extra, key=lambda t: ids[t])[0]
        raise _fail(
            path,
            f"{len(extra)} vocabulary tokens (e.g. {example!r}) are neither bytes, merges nor "
            "added tokens",
        )
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=specials)


def _specials(data: Mapping[str, Any], path: str) -> dict[str, int]:
    specials: dict[str, int] = {}
    for added in data.get("added_tokens") or []:
        if not isinstance(added, dict) or not isinstance(added.get("content"), str):
            raise _fail(path, f"added token {added!r} has no content")
        if not isinstance(added.get("id"), int):
            raise _fail(path, f"added token {added['content']!r} has no integer id")
        specials[added["content"]] = added["id"]
    return specials


def from_ranks(
    outline: Mapping[str, Any],
    ranks: dict[bytes, int],
    other_ids: list[int],
    path: str,
    *,
    name: str,
) -> Encoding | None:
    """The :class:`Encoding` of a ``tokenizer.json`` already parsed (and validated) by the
    core, from its outline (the file without ``model.vocab`` and ``model.merges``) and the
    core's byte-level ranks (the 256 bytes and the merged tokens, ids in merge order), or
    ``None`` when it is not exactly one: :func:`encoding_obstacle` finds something in the
    outline, or a vocabulary entry is neither a byte, a merged token nor an added token.
    The caller checks that HF keeps the added tokens' ids (:func:`_renumbered` needs the
    vocabulary)."""
    from tokensmith.encoding import Encoding

    if encoding_obstacle(outline) is not None:
        return None
    specials = _specials(outline, path)
    special_ids = set(specials.values())
    if any(i not in special_ids for i in other_ids) or any(
        i in special_ids for i in ranks.values()
    ):
        return None
    pat_str = tiktoken_pattern(_split_pattern(outline.get("pre_tokenizer"), path))
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=specials)


def read(path: str | PathLike[str], *, name: str) -> Encoding:
    """Loads a byte-level BPE ``tokenizer.json``."""
    import os

    p = os.fspath(path)
    with open(p, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except (ValueError, RecursionError) as e:
            raise _fail(p, f"not JSON ({e})") from None
    if not isinstance(data, dict):
        raise _fail(p, "not a tokenizer.json object")
    return from_dict(data, p, name=name)


def tiktoken_pattern(pat_str: str) -> str:
    """The bundled pattern that :func:`oniguruma_pattern` turned into ``pat_str``, if any.

    The bundled patterns run on tokensmith's hand-written splitters, so loading gives them back.
    """
    for known in _complete_patterns():
        if oniguruma_pattern(known) == pat_str:
            return known
    return pat_str
