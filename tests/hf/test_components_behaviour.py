"""The component helpers (``normalize_str``, ``pre_tokenize_str``, ``decode``,
``num_special_tokens_to_add``), run by the Rust core, against HF's on the committed
multilingual text; and the ``Tokenizer`` slots: setting a component changes ``to_str()``
and the ids exactly as in HF."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()
SAMPLE = LINES[::9]


def both(module: str, name: str, *args: Any) -> tuple[Any, Any]:
    hf = getattr(importlib.import_module(f"tokenizers.{module}"), name)(*args)
    ours = getattr(importlib.import_module(f"tokensmith.{module}"), name)(*args)
    return ours, hf


NORMALIZERS = [
    ("BertNormalizer",), ("BertNormalizer", False, False, True, False), ("ByteLevel",),
    ("Lowercase",), ("NFC",), ("NFD",), ("NFKC",), ("NFKD",), ("Nmt",), ("StripAccents",),
    ("Prepend", "▁"), ("Replace", " ", "▁"), ("Strip",), ("Strip", False, True),
]  # fmt: skip


@pytest.mark.parametrize("spec", NORMALIZERS, ids=lambda s: "-".join(map(str, s)))
def test_normalize_str(spec: tuple[Any, ...]) -> None:
    ours, hf = both("normalizers", *spec)
    for line in SAMPLE:
        assert ours.normalize_str(line) == hf.normalize_str(line), line


def test_normalizer_sequence_and_regex() -> None:
    ours = tokensmith.normalizers.Sequence(
        [
            tokensmith.normalizers.NFKD(),
            tokensmith.normalizers.Replace(tokensmith.Regex(r"\s+"), "_"),
        ]
    )
    hf = tokenizers.normalizers.Sequence(
        [
            tokenizers.normalizers.NFKD(),
            tokenizers.normalizers.Replace(tokenizers.Regex(r"\s+"), "_"),
        ]
    )
    for line in SAMPLE:
        assert ours.normalize_str(line) == hf.normalize_str(line)


PRE_TOKENIZERS = [
    ("BertPreTokenizer",), ("ByteLevel",), ("ByteLevel", False, True, False),
    ("CharDelimiterSplit", " "), ("Digits",), ("Digits", True), ("FixedLength", 3),
    ("Metaspace",), ("Metaspace", "▁", "never", False), ("Punctuation",),
    ("Punctuation", "merged_with_next"), ("Split", " ", "merged_with_previous"),
    ("UnicodeScripts",), ("Whitespace",), ("WhitespaceSplit",),
]  # fmt: skip


@pytest.mark.parametrize("spec", PRE_TOKENIZERS, ids=lambda s: "-".join(map(str, s)))
def test_pre_tokenize_str(spec: tuple[Any, ...]) -> None:
    ours, hf = both("pre_tokenizers", *spec)
    for line in SAMPLE:
        assert ours.pre_tokenize_str(line) == hf.pre_tokenize_str(line), line


def test_byte_level_alphabet() -> None:
    assert sorted(tokensmith.pre_tokenizers.ByteLevel.alphabet()) == sorted(
        tokenizers.pre_tokenizers.ByteLevel.alphabet()
    )


def hf_tokens(line: str) -> dict[str, list[str]]:
    """Token lists from HF tokenizers for the decoders to join."""
    bl = tokenizers.pre_tokenizers.ByteLevel().pre_tokenize_str(line)
    ms = tokenizers.pre_tokenizers.Metaspace().pre_tokenize_str(line)
    words = [w for w, _ in tokenizers.pre_tokenizers.Whitespace().pre_tokenize_str(line)]
    pieces = [w[:2] if i % 2 else "##" + w for i, w in enumerate(words)]
    raw = [f"<0x{b:02X}>" for b in line.encode()[:40]]
    return {"byte_level": [t for t, _ in bl], "metaspace": [t for t, _ in ms],
            "words": words, "pieces": pieces, "bytes": raw}  # fmt: skip


DECODERS = [
    (("ByteLevel",), "byte_level"), (("Metaspace",), "metaspace"),
    (("Metaspace", "▁", "never", True), "metaspace"), (("WordPiece",), "pieces"),
    (("WordPiece", "##", False), "pieces"), (("BPEDecoder", "s"), "words"),
    (("ByteFallback",), "bytes"), (("Fuse",), "words"), (("Strip", "▁", 1, 0), "metaspace"),
    (("Replace", "e", "E"), "words"), (("CTC",), "words"), (("CTC", "<pad>", "t", False), "words"),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "kind"), DECODERS, ids=lambda s: "-".join(map(str, s)))
def test_decode(spec: tuple[Any, ...], kind: str) -> None:
    ours, hf = both("decoders", *spec)
    for line in SAMPLE:
        tokens = hf_tokens(line)[kind]
        assert ours.decode(tokens) == hf.decode(tokens), tokens


def test_decoder_sequence() -> None:
    ours = tokensmith.decoders.Sequence(
        [tokensmith.decoders.ByteFallback(), tokensmith.decoders.Fuse()]
    )
    hf = tokenizers.decoders.Sequence(
        [tokenizers.decoders.ByteFallback(), tokenizers.decoders.Fuse()]
    )
    for line in SAMPLE:
        tokens = hf_tokens(line)["bytes"] + ["x"]
        assert ours.decode(tokens) == hf.decode(tokens)


PROCESSORS = [
    ("BertProcessing", ("[SEP]", 102), ("[CLS]", 101)),
    ("RobertaProcessing", ("</s>", 2), ("<s>", 0)),
    ("ByteLevel",),
    ("TemplateProcessing", "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1",
     [("[CLS]", 1), ("[SEP]", 2)]),
    ("TemplateProcessing", "<s> $A", "<s> $A <s> <s> $B",
     [{"id": "<s>", "ids": [7, 8], "tokens": ["<", "s>"]}]),
]  # fmt: skip


@pytest.mark.parametrize("spec", PROCESSORS, ids=lambda s: s[0])
def test_num_special_tokens_to_add(spec: tuple[Any, ...]) -> None:
    ours, hf = both("processors", *spec)
    for pair in (False, True):
        assert ours.num_special_tokens_to_add(pair) == hf.num_special_tokens_to_add(pair)


def test_model_tokenize_and_lookup() -> None:
    vocab = {"[UNK]": 0, "hi": 1, "##s": 2, "h": 3, "##i": 4}
    ours = tokensmith.models.WordPiece(vocab)
    hf = tokenizers.models.WordPiece(vocab)
    for word in ["his", "hi", "hiss", "xyz"]:
        a, b = ours.tokenize(word), hf.tokenize(word)
        assert [(t.id, t.value, t.offsets) for t in a] == [(t.id, t.value, t.offsets) for t in b]
    assert [ours.token_to_id(t) for t in vocab] == [hf.token_to_id(t) for t in vocab]
    assert [ours.id_to_token(i) for i in range(6)] == [hf.id_to_token(i) for i in range(6)]


def pair() -> tuple[tokensmith.Tokenizer, tokenizers.Tokenizer]:
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}
    words = sorted({w.lower() for line in LINES[:300] for w in line.split()})
    for w in words:
        vocab.setdefault(w, len(vocab))
    ours = tokensmith.Tokenizer(tokensmith.models.WordLevel(vocab, unk_token="[UNK]"))
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    return ours, hf


def same(ours: tokensmith.Tokenizer, hf: tokenizers.Tokenizer) -> None:
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())
    for line in SAMPLE:
        a, b = ours.encode(line, line[:20]), hf.encode(line, line[:20])
        assert (a.ids, a.tokens, a.offsets, a.type_ids) == (b.ids, b.tokens, b.offsets, b.type_ids)
        assert ours.decode(a.ids) == hf.decode(b.ids)


def test_tokenizer_from_model_and_slots() -> None:
    ours, hf = pair()
    same(ours, hf)
    for slot, module, spec in [
        ("normalizer", "normalizers", ("BertNormalizer",)),
        ("pre_tokenizer", "pre_tokenizers", ("WhitespaceSplit",)),
        ("post_processor", "processors", ("BertProcessing", ("[SEP]", 2), ("[CLS]", 1))),
        ("decoder", "decoders", ("WordPiece",)),
    ]:
        a, b = both(module, *spec)
        setattr(ours, slot, a)
        setattr(hf, slot, b)
        same(ours, hf)
        assert json.loads(getattr(ours, slot).__getstate__()) == json.loads(
            getattr(hf, slot).__getstate__()
        )
    # A component read from a slot is live, as in HF.
    ours.normalizer.lowercase = False
    hf.normalizer.lowercase = False
    same(ours, hf)
    ours.pre_tokenizer = tokensmith.pre_tokenizers.Sequence(
        [tokensmith.pre_tokenizers.Whitespace()]
    )
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([tokenizers.pre_tokenizers.Whitespace()])
    same(ours, hf)
    ours.normalizer = None
    hf.normalizer = None
    same(ours, hf)
    ours.model = tokensmith.models.WordLevel(
        {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, unk_token="[UNK]"
    )
    hf.model = tokenizers.models.WordLevel(
        {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, unk_token="[UNK]"
    )
    same(ours, hf)


def test_slots_keep_added_tokens_truncation_and_padding() -> None:
    ours, hf = pair()
    for t in (ours, hf):
        t.add_special_tokens(["<x>"])
        t.enable_truncation(6)
        t.enable_padding(pad_id=0, pad_token="[UNK]", length=8)
    ours.pre_tokenizer = tokensmith.pre_tokenizers.Whitespace()
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    same(ours, hf)


def test_slot_refuses_a_component_of_another_family() -> None:
    ours, _ = pair()
    with pytest.raises(tokensmith.errors.ComponentTypeError, match="Tokenizer.normalizer"):
        ours.normalizer = tokensmith.pre_tokenizers.Whitespace()  # type: ignore[assignment]
    with pytest.raises(TypeError, match="Tokenizer.model"):
        ours.model = None  # type: ignore[assignment]


def test_unloadable_model_fails_at_first_use_as_in_hf() -> None:
    ours = tokensmith.Tokenizer(tokensmith.models.WordLevel())
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel())
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())
    with pytest.raises(tokensmith.TokenizerJsonError, match="unk_token"):
        ours.encode("a")
    with pytest.raises(Exception, match="Missing"):
        hf.encode("a")


@pytest.mark.parametrize("prefix", [None, "px"])
def test_model_save_writes_hf_files(prefix: str | None, tmp_path: Path) -> None:
    vocab = {"[UNK]": 0, "a": 1, "b": 2, "ab": 3, "é": 4, "##b": 5}
    cases = [
        ("BPE", (vocab, [("a", "b")])),
        ("WordPiece", (vocab,)),
        ("WordLevel", (vocab, "[UNK]")),
        ("Unigram", ([("[UNK]", 0.0), ("é", -1.5), ("a", -2.25)], 0)),
    ]
    for name, args in cases:
        ours = getattr(tokensmith.models, name)(*args)
        hf = getattr(tokenizers.models, name)(*args)
        mine, theirs = tmp_path / f"ours-{name}", tmp_path / f"hf-{name}"
        mine.mkdir()
        theirs.mkdir()
        a = ours.save(str(mine), prefix)
        b = hf.save(str(theirs), prefix)
        assert [Path(p).name for p in a] == [Path(p).name for p in b]
        for p, q in zip(a, b, strict=True):
            assert Path(p).read_bytes() == Path(q).read_bytes(), p
