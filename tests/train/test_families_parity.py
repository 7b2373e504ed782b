"""Character-level and Metaspace BPE training: every merge compared with HF ``BpeTrainer``.

HF gives the suffixed/prefixed variants of alphabet characters (``a</w>``, ``##a``) ids in
its hash map's iteration order, which changes from run to run, and ties between pairs of
equal count go to the smaller ids; so HF itself learns different merges from run to run
once a suffix or prefix is set. These tests read the variants' order from HF's trained
vocabulary and give it to tokensmith's trainer (``variant_order``), then compare every merge
and every id. Metaspace training has no variants and goes through the public API as is.

``limit_alphabet`` drops the least frequent characters; among equally frequent ones HF's
choice is again hash-ordered, so the limits tested are ones where no tie sits at the cut
(found by counting the characters of HF's own pre-tokenized words).
"""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest
import tokensmith
from tokensmith._core import train_bpe_chars


def _hf_train(lines: list[str], pre: Any, vocab_size: int, **options: Any) -> dict[str, Any]:
    """HF's trained tokenizer.json (as a dict)."""
    from tokenizers import Tokenizer, models, trainers

    model_options = {
        k: options[k] for k in ("end_of_word_suffix", "continuing_subword_prefix") if k in options
    }
    tok = Tokenizer(models.BPE(unk_token="<unk>", **model_options))
    tok.pre_tokenizer = pre
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>"], show_progress=False, **options
    )
    tok.train_from_iterator(lines, trainer)
    doc: dict[str, Any] = json.loads(tok.to_str())
    return doc


def _by_id(vocab: dict[str, int]) -> list[str]:
    return [t for t, _ in sorted(vocab.items(), key=lambda item: item[1])]


def _variants(vocab: dict[str, int], prefix: str | None, suffix: str | None) -> list[str]:
    """HF's variant tokens in id order: one character with the prefix and/or suffix."""
    out = []
    for token in _by_id(vocab):
        base = token
        if prefix and base.startswith(prefix):
            base = base[len(prefix) :]
        if suffix and base.endswith(suffix):
            base = base[: -len(suffix)]
        if len(base) == 1 and base != token:
            out.append(token)
    return out


def _merges(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in doc["model"]["merges"]]


def _first_difference(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"merge {i}: tokensmith {x!r}, HF {y!r}"
    return f"lengths differ: tokensmith {len(a)}, HF {len(b)}"


def _char_pre_tokenizers() -> dict[str, Any]:
    from tokenizers import pre_tokenizers as pt

    return {
        "whitespace": pt.Whitespace(),
        "whitespace_split": pt.WhitespaceSplit(),
        "whitespace+digits": pt.Sequence([pt.Whitespace(), pt.Digits(individual_digits=True)]),
    }


@pytest.mark.parametrize(
    ("pre_name", "vocab_size", "options"),
    [
        ("whitespace", 12000, {"end_of_word_suffix": "</w>"}),
        ("whitespace_split", 12000, {"end_of_word_suffix": "</w>", "min_frequency": 2}),
        ("whitespace", 14000, {"end_of_word_suffix": "</w>", "continuing_subword_prefix": "##"}),
        ("whitespace+digits", 12000, {"end_of_word_suffix": "</w>", "max_token_length": 6}),
        ("whitespace", 9000, {"continuing_subword_prefix": "##", "initial_alphabet": ["☃", "Ω"]}),
    ],
)
def test_char_merges_identical_to_hf(
    multilingual_lines: list[str], pre_name: str, vocab_size: int, options: dict[str, Any]
) -> None:
    doc = _hf_train(multilingual_lines, _char_pre_tokenizers()[pre_name], vocab_size, **options)
    expected = _merges(doc)
    order = _variants(
        doc["model"]["vocab"],
        options.get("continuing_subword_prefix"),
        options.get("end_of_word_suffix"),
    )
    assert order, "the variants are what this test pins down"
    vocab, merges = train_bpe_chars(
        multilingual_lines,
        pre_tokenizer=json.dumps(doc["pre_tokenizer"]),
        vocab_size=vocab_size,
        special_tokens=["<unk>"],
        variant_order=order,
        **options,
    )
    assert len(expected) > 1000
    assert merges == expected, _first_difference(merges, expected)
    assert vocab == _by_id(doc["model"]["vocab"])


def _untied_limit(lines: list[str], pre: Any, at_most: int) -> int:
    """The largest alphabet limit <= at_most with no tie in character counts at the cut."""
    counts: collections.Counter[str] = collections.Counter()
    for line in lines:
        for word, _ in pre.pre_tokenize_str(line):
            counts.update(word)
    ranked = sorted(counts.values(), reverse=True)
    return next(n for n in range(at_most, 0, -1) if ranked[n - 1] != ranked[n])


@pytest.mark.parametrize(
    ("vocab_size", "options"),
    [
        (9000, {}),
        (9000, {"min_frequency": 3, "max_token_length": 4}),
        (8000, {"initial_alphabet": ["☃", "Æ", "ǅ"]}),
        (3000, {"limit_alphabet": 1000}),
        (6000, {"split_digits": "groups"}),
        (6000, {"split_digits": "individual", "prepend_scheme": "first"}),
    ],
)
def test_metaspace_merges_identical_to_hf(
    multilingual_lines: list[str], vocab_size: int, options: dict[str, Any]
) -> None:
    from tokenizers import Regex
    from tokenizers import pre_tokenizers as pt

    options = dict(options)
    meta = pt.Metaspace(prepend_scheme=options.get("prepend_scheme", "always"))
    digits = options.pop("split_digits", None)
    pre = {
        None: meta,
        "groups": pt.Sequence([meta, pt.Split(Regex(r"\p{N}{1,3}"), behavior="isolated")]),
        "individual": pt.Sequence([meta, pt.Digits(individual_digits=True)]),
    }[digits]
    if "limit_alphabet" in options:
        limit = options["limit_alphabet"]
        options["limit_alphabet"] = _untied_limit(multilingual_lines, pre, limit)
    hf_options = {k: v for k, v in options.items() if k != "prepend_scheme"}
    doc = _hf_train(multilingual_lines, pre, vocab_size, **hf_options)
    tok = tokensmith.train_bpe(
        multilingual_lines,
        kind="metaspace",
        vocab_size=vocab_size,
        split_digits=digits,
        **{"min_frequency": 0, **options},
    )
    ours = json.loads(tok.to_str())
    assert ours["pre_tokenizer"] == doc["pre_tokenizer"]
    merges = _merges(ours)
    expected = _merges(doc)
    assert len(expected) > 1000
    assert merges == expected, _first_difference(merges, expected)
    assert ours["model"]["vocab"] == doc["model"]["vocab"]


def test_byte_fallback_reserves_bytes_and_keeps_hf_merges(multilingual_lines: list[str]) -> None:
    from tokenizers import pre_tokenizers as pt

    # HF's trainer has no byte tokens: trained 256 tokens smaller, it learns the same merges.
    doc = _hf_train(multilingual_lines, pt.Metaspace(), 4000)
    tok = tokensmith.train_bpe(
        multilingual_lines, kind="metaspace", vocab_size=4256, byte_fallback=True, min_frequency=0
    )
    ours = json.loads(tok.to_str())
    assert _merges(ours) == _merges(doc)
    vocab = _by_id(ours["model"]["vocab"])
    assert vocab[:3] == ["<unk>", "<0x00>", "<0x01>"] and vocab[256] == "<0xFF>"
    assert len(vocab) == 4256


def test_seed_low_lower_with_end_of_word_suffix() -> None:
    """Seed 004's corpus (low x5, lower x2) with HF's suffix convention (``w</w>`` is one
    symbol, where the seed writes ``</w>`` apart). Derived by hand: (l, o) is seen 7 times,
    then (lo, w</w>) 5; then three pairs tie at 2 and the smallest ids win: e < l < o < r < w
    in code point order, then the variants, then learned tokens."""
    from tokenizers import pre_tokenizers as pt

    words = ["low"] * 5 + ["lower"] * 2
    tok = tokensmith.train_bpe(
        words, kind="char", vocab_size=12, unk_token=None, min_frequency=0
    )
    merges = _merges(json.loads(tok.to_str()))
    assert merges == [
        ("l", "o"),
        ("lo", "w</w>"),
        ("e", "r</w>"),
        ("w", "er</w>"),
        ("lo", "wer</w>"),
    ]
    hf = _hf_train(words, pt.Whitespace(), 13, end_of_word_suffix="</w>")
    assert _merges(hf) == merges
    # Merges apply in the order learned: "lower" ends as one token, "low" too.
    assert tok.encode("lower low").tokens == ["lower</w>", "low</w>"]
