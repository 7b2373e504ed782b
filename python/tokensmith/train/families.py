"""Character-level BPE families: Sennrich ``</w>`` words and SentencePiece-style Metaspace.

:func:`tokensmith.train_bpe` calls :func:`train_char_family` for ``kind="char"`` and
``kind="metaspace"``. The corpus is cut by the HF pre-tokenizer that the saved file will
name (run by tokensmith's Rust pipeline), the merges are learned by the same merge loop as
byte-level training, and the result is a :class:`~tokensmith.Tokenizer` over an HF
``tokenizer.json`` (``Tokenizer.save`` writes it; HF ``tokenizers`` and ``transformers``
load it).

>>> import tokensmith
>>> tok = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=30, kind="char")
>>> tok.encode("lower").tokens
['lower</w>']
>>> tok.decode(tok.encode("low lowest").ids)
'low lowest'
>>> sp = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=300, kind="metaspace",
...                           byte_fallback=True)
>>> sp.encode("lowé").tokens
['▁low', '<0xC3>', '<0xA9>']
>>> sp.decode(sp.encode("lowé").ids)
'lowé'

Not handled: normalizers (the text is used as given), and Parquet input (see
:mod:`tokensmith.corpus`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from tokensmith._core import train_bpe_chars
from tokensmith.errors import InvalidTrainerOptionError
from tokensmith.hf_tokenizer import Tokenizer

Kind = Literal["char", "metaspace"]
Digits = Literal["individual", "groups"]
PrependScheme = Literal["always", "first", "never"]

#: SentencePiece's byte tokens, in byte order, as HF's byte fallback spells them.
BYTE_TOKENS = [f"<0x{b:02X}>" for b in range(256)]


def digits_pre_tokenizer(split_digits: Digits) -> dict[str, Any]:
    """The HF pre-tokenizer that cuts digits: each alone, or in groups of at most 3.

    >>> digits_pre_tokenizer("groups")["pattern"]
    {'Regex': '\\\\p{N}{1,3}'}
    """
    if split_digits == "individual":
        return {"type": "Digits", "individual_digits": True}
    if split_digits == "groups":
        return {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}"}, "behavior": "Isolated",
                "invert": False}
    raise InvalidTrainerOptionError(
        f'split_digits={split_digits!r} is not known; use None, "individual" or "groups"'
    )


def _sequence(first: dict[str, Any], split_digits: Digits | None) -> dict[str, Any]:
    if split_digits is None:
        return first
    return {"type": "Sequence", "pretokenizers": [first, digits_pre_tokenizer(split_digits)]}


def _metaspace(replacement: str, prepend_scheme: PrependScheme) -> dict[str, Any]:
    if len(replacement) != 1:
        raise InvalidTrainerOptionError(
            f"replacement={replacement!r} must be a single character"
        )
    if prepend_scheme not in ("always", "first", "never"):
        raise InvalidTrainerOptionError(
            f'prepend_scheme={prepend_scheme!r} is not known; use "always", "first" or "never"'
        )
    return {"type": "Metaspace", "replacement": replacement, "prepend_scheme": prepend_scheme,
            "split": True}


def _char_decoder(prefix: str | None, suffix: str | None) -> dict[str, Any] | None:
    if prefix and suffix:
        # Glue "##" pieces first, then drop the suffix (a BPEDecoder would double the spaces).
        return {"type": "Sequence", "decoders": [
            {"type": "WordPiece", "prefix": prefix, "cleanup": False},
            {"type": "Replace", "pattern": {"String": suffix}, "content": ""},
        ]}
    if prefix:
        return {"type": "WordPiece", "prefix": prefix, "cleanup": False}
    if suffix:
        return {"type": "BPEDecoder", "suffix": suffix}
    return None


def special_added_tokens(vocab: Sequence[str], specials: Sequence[str]) -> list[dict[str, Any]]:
    """The ``added_tokens`` entries of a trained file's special tokens (ids: positions).

    >>> special_added_tokens(["a", "[UNK]"], ["[UNK]"])[0]["id"]
    1
    """
    return [
        {"id": vocab.index(s), "content": s, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for s in specials
    ]


def tokenizer_json(
    vocab: Sequence[str],
    merges: Sequence[tuple[str, str]],
    *,
    specials: Sequence[str],
    model: dict[str, Any],
    pre_tokenizer: dict[str, Any],
    decoder: dict[str, Any] | None,
) -> str:
    """The text of an HF ``tokenizer.json`` for a trained BPE (ids are list positions)."""
    added = special_added_tokens(vocab, specials)
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, **model,
                  "vocab": {t: i for i, t in enumerate(vocab)},
                  "merges": [list(m) for m in merges]},
    }
    return json.dumps(doc, ensure_ascii=False)


def train_char_family(
    texts: Iterable[str],
    *,
    kind: Kind,
    vocab_size: int,
    min_frequency: int,
    special_tokens: Sequence[str],
    max_token_length: int | None,
    compat: Literal["hf", "ranks"],
    limit_alphabet: int | None,
    initial_alphabet: Iterable[str],
    split_digits: Digits | None,
    unk_token: str | None,
    fuse_unk: bool,
    end_of_word_suffix: str | None,
    continuing_subword_prefix: str | None,
    pre_tokenizer: Literal["whitespace", "whitespace_split"],
    replacement: str,
    prepend_scheme: PrependScheme,
    byte_fallback: bool,
    progress: Callable[[int], object] | None,
) -> Tokenizer:
    """Trains one character-level family; the options are :func:`tokensmith.train_bpe`'s."""
    specials = list(special_tokens)
    if unk_token is not None and unk_token not in specials:
        specials.insert(0, unk_token)
    alphabet = [c for chunk in initial_alphabet for c in chunk]
    if limit_alphabet is not None and limit_alphabet < 1:
        raise InvalidTrainerOptionError(f"limit_alphabet={limit_alphabet!r} must be >= 1")
    reserved: list[str] = []
    if kind == "char":
        end_of_word_suffix = "</w>" if end_of_word_suffix is None else end_of_word_suffix or None
        continuing_subword_prefix = continuing_subword_prefix or None
        if pre_tokenizer not in ("whitespace", "whitespace_split"):
            raise InvalidTrainerOptionError(
                f'pre_tokenizer={pre_tokenizer!r} is not known; use "whitespace" or '
                '"whitespace_split"'
            )
        base = {"type": "Whitespace" if pre_tokenizer == "whitespace" else "WhitespaceSplit"}
        pre = _sequence(base, split_digits)
        decoder = _char_decoder(continuing_subword_prefix, end_of_word_suffix)
        model: dict[str, Any] = {
            "unk_token": unk_token, "continuing_subword_prefix": continuing_subword_prefix,
            "end_of_word_suffix": end_of_word_suffix, "fuse_unk": fuse_unk,
            "byte_fallback": False, "ignore_merges": False,
        }
    elif kind == "metaspace":
        if end_of_word_suffix or continuing_subword_prefix:
            raise InvalidTrainerOptionError(
                'kind="metaspace" marks words with the replacement character; '
                "end_of_word_suffix and continuing_subword_prefix are for kind=\"char\""
            )
        meta = _metaspace(replacement, prepend_scheme)
        pre = _sequence(meta, split_digits)
        meta_decoder = dict(meta)
        decoder = (
            {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, meta_decoder]}
            if byte_fallback else meta_decoder
        )
        reserved = BYTE_TOKENS if byte_fallback else []
        model = {
            "unk_token": unk_token, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": fuse_unk,
            "byte_fallback": byte_fallback, "ignore_merges": False,
        }
    else:
        raise InvalidTrainerOptionError(
            f'kind={kind!r} is not known; use "byte", "char" or "metaspace"'
        )
    vocab, merges = train_bpe_chars(
        texts,
        pre_tokenizer=json.dumps(pre),
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials,
        reserved=reserved,
        limit_alphabet=limit_alphabet,
        initial_alphabet=alphabet,
        max_token_length=max_token_length,
        continuing_subword_prefix=continuing_subword_prefix,
        end_of_word_suffix=end_of_word_suffix,
        compat=compat,
        progress=progress,
    )
    text = tokenizer_json(
        vocab, merges, specials=specials, model=model, pre_tokenizer=pre, decoder=decoder
    )
    return Tokenizer.from_str(text)
