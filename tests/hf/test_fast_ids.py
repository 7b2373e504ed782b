"""Byte-level BPE files whose ids come from the byte-level engine, with tokens and offsets
computed only when read: every field still equals HF ``tokenizers``'.

Files are trained here by HF itself on the committed multilingual text (GPT-2 style:
``ByteLevel`` with GPT-2's regex and no prefix space): with a ``ByteLevel`` post-processor, with
a template that adds ``<|bos|>``/``<|eos|>``, with ``ignore_merges``, and with added tokens; and
the Llama-3- and Qwen2-style files of the family tests (``Split`` + ``ByteLevel``; NFC for
Qwen2). Small hand-made files check the two cases where merging from bytes and a whole-token
match differ, and a merge order the engine cannot follow (the file then takes the character
pipeline).
"""

from __future__ import annotations

import json
import pickle
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from family_builders import regex_bpe_style
from hf_parity import (
    assert_batches_same,
    assert_same_as_hf,
    assert_texts_same,
    assert_tokens_first_same,
    fields,
    texts_of,
    with_truncation_and_padding,
)
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

SPECIALS = ["<|endoftext|>", "<|bos|>", "<|eos|>"]


def _train(lines: list[str], *, template: bool = False, ignore_merges: bool = False) -> Tokenizer:
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=3000,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=SPECIALS,
    )
    tok.train_from_iterator(lines, trainer)
    if template:
        bos, eos = tok.token_to_id("<|bos|>"), tok.token_to_id("<|eos|>")
        tok.post_processor = processors.TemplateProcessing(
            single="<|bos|> $A <|eos|>",
            pair="<|bos|> $A <|eos|> $B:1 <|eos|>:1",
            special_tokens=[("<|bos|>", bos), ("<|eos|>", eos)],
        )
    return tok


VARIANTS = ["plain", "template", "ignore-merges", "added-tokens", "llama3", "qwen2"]


@pytest.fixture(scope="module", params=VARIANTS)
def fast_json(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    kind = request.param
    if kind in ("llama3", "qwen2"):
        # Split(pattern) + ByteLevel; Llama-3: ignore_merges and a <|begin_of_text|> template;
        # Qwen2: NFC (texts not in NFC are composed before the engine runs)
        return regex_bpe_style(kind, tmp_path_factory.mktemp(kind))
    tok = _train(
        multilingual_lines, template=kind == "template", ignore_merges=kind == "ignore-merges"
    )
    if kind == "added-tokens":
        tok.add_special_tokens(["<|user|>"])
        tok.add_tokens([AddedToken("<think>", normalized=False, lstrip=True)])
    out = tmp_path_factory.mktemp(kind) / "tokenizer.json"
    tok.save(str(out))
    return out


def _texts(lines: list[str]) -> list[str]:
    extra = ("<|user|> hi<|endoftext|>x", "a   <think>  b", "<|bos|><|eos|>", "x" * 300)
    return texts_of(lines[:400], extra)


def test_the_engine_gives_the_ids(fast_json: Path) -> None:
    assert tokensmith.Tokenizer.from_file(fast_json)._core.fast_ids


def test_every_field_equals_hf(fast_json: Path, multilingual_lines: list[str]) -> None:
    # fields() reads ids first: each result computes its tokens and offsets afterwards
    assert_same_as_hf(fast_json, _texts(multilingual_lines), n_pairs=150)


def test_tokens_read_before_ids(fast_json: Path, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(fast_json)
    hf = Tokenizer.from_file(str(fast_json))
    assert_tokens_first_same(ours, hf, _texts(multilingual_lines)[:100])


def test_batch_equals_hf(fast_json: Path, multilingual_lines: list[str]) -> None:
    ours = tokensmith.Tokenizer.from_file(fast_json)
    hf = Tokenizer.from_file(str(fast_json))
    texts = _texts(multilingual_lines)
    assert_batches_same(ours, hf, texts, list(zip(texts[:100], texts[100:200], strict=True)))


def test_truncation_and_padding_equal_hf(
    fast_json: Path, multilingual_lines: list[str], tmp_path: Path
) -> None:
    configured = with_truncation_and_padding(fast_json, tmp_path, length=24)
    assert_same_as_hf(configured, _texts(multilingual_lines)[:200], n_pairs=50)


def test_set_after_loading(fast_json: Path, multilingual_lines: list[str]) -> None:
    """Truncation and padding switched on by the API send calls to the character pipeline."""
    ours = tokensmith.Tokenizer.from_file(fast_json)
    hf = Tokenizer.from_file(str(fast_json))
    for tok in (ours, hf):
        tok.enable_truncation(max_length=16, stride=2)
        tok.enable_padding(length=20)
    assert_texts_same(ours, hf, _texts(multilingual_lines)[:150])


def test_result_methods_on_ids_alone(fast_json: Path) -> None:
    """pad, truncate, pickle and == first compute what the ids-only result lacks."""
    ours = tokensmith.Tokenizer.from_file(fast_json)
    hf = Tokenizer.from_file(str(fast_json))
    text = "Tokenizers split text into pieces, 12345 of them."
    a, b = ours.encode(text), hf.encode(text)
    a.truncate(5, stride=1)
    b.truncate(5, stride=1)
    a.pad(9, pad_id=0, pad_token="<|endoftext|>")
    b.pad(9, pad_id=0, pad_token="<|endoftext|>")
    assert fields(a) == fields(b)
    assert [fields(o) for o in a.overflowing] == [fields(o) for o in b.overflowing]
    fresh = ours.encode(text)
    assert pickle.loads(pickle.dumps(fresh)) == ours.encode(text)
    assert fresh == fresh
    assert fresh != a


# --------------------------------------------------------------------------------------------------
# Hand-made files
# --------------------------------------------------------------------------------------------------


def _hand_made(tmp: Path, tokens: list[str], merges: list[tuple[str, str]], **bpe: Any) -> Path:
    """A byte-level file with every byte's token (ids 0-255), then ``tokens``."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    for t in tokens:
        vocab[t] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, **bpe))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    path = tmp / "tokenizer.json"
    tok.save(str(path))
    json.loads(path.read_text("utf-8"))  # HF wrote a file it can read back
    return path


HAND_TEXTS = ["ab", "ba", "abc", "cab", "bcab", "abab ba cba", "aaab", "c a b"]


@pytest.mark.parametrize("ignore_merges", [False, True])
def test_a_token_no_merge_makes(tmp_path: Path, ignore_merges: bool) -> None:
    """ "ba" is a token but no merge makes it: merged from its bytes it stays two tokens; with
    ``ignore_merges`` a word that is the token is the token."""
    path = _hand_made(tmp_path, ["ab", "ba"], [("a", "b")], ignore_merges=ignore_merges)
    ours = tokensmith.Tokenizer.from_file(path)
    assert ours._core.fast_ids
    assert_texts_same(ours, Tokenizer.from_file(str(path)), HAND_TEXTS)


def test_merges_out_of_id_order_take_the_character_pipeline(tmp_path: Path) -> None:
    """Merge 0 makes the larger id: the engine, which merges the lowest id first, would merge
    "bc" before "ab" in "abc"; HF merges "ab" first. Such a file is not given to the engine."""
    path = _hand_made(tmp_path, ["bc", "ab"], [("a", "b"), ("b", "c")])
    ours = tokensmith.Tokenizer.from_file(path)
    assert not ours._core.fast_ids
    hf = Tokenizer.from_file(str(path))
    assert hf.encode("abc").tokens == ["ab", "c"]
    assert_texts_same(ours, hf, HAND_TEXTS)


def test_a_normalized_added_token_takes_the_character_pipeline(
    fast_json: Path, multilingual_lines: list[str]
) -> None:
    ours = tokensmith.Tokenizer.from_file(fast_json)
    hf = Tokenizer.from_file(str(fast_json))
    for tok in (ours, hf):
        tok.add_tokens(["the lamp"])  # normalized=True by default
    assert_texts_same(ours, hf, _texts(multilingual_lines)[:150] + ["the lamp is the lamp"])


def test_texts_not_in_nfc_are_composed_first(tmp_path: Path, multilingual_lines: list[str]) -> None:
    """Qwen2-style (NFC): decomposed text, alone, in pairs, in batches and between added tokens,
    gives HF's ids and, read afterwards, HF's tokens and offsets."""
    path = regex_bpe_style("qwen2", tmp_path)
    ours = tokensmith.Tokenizer.from_file(path)
    hf = Tokenizer.from_file(str(path))
    for tok in (ours, hf):
        tok.add_special_tokens(["<|user|>"])
    decomposed = [unicodedata.normalize("NFD", x) for x in multilingual_lines[:300]]
    decomposed = [x for x in decomposed if not unicodedata.is_normalized("NFC", x)]
    assert len(decomposed) >= 50
    mixed = [f"{a}<|user|>{b}" for a, b in zip(decomposed, reversed(decomposed), strict=True)]
    # U+1DF9, a mark since Unicode 10, is a starter in the Unicode 9 tables of HF's NFC: it
    # keeps the acute after it from composing with the "a".
    odd = ["e\u0301<|user|>\u1100\u1161\u11a8", "\u0301", "A\u030a\u0327", "a\u1df9\u0301 x"]
    texts = decomposed + mixed + odd
    for add in (True, False):
        got = [ours.encode(t, add_special_tokens=add).ids for t in texts]
        assert got == [hf.encode(t, add_special_tokens=add).ids for t in texts]
    pairs = list(zip(texts[:40], texts[40:80], strict=True))
    assert [ours.encode(*p).ids for p in pairs] == [hf.encode(*p).ids for p in pairs]
    for inputs in (texts, pairs):
        got = ours.encode_batch(inputs)  # type: ignore[arg-type]
        want = hf.encode_batch(inputs)
        assert [e.ids for e in got] == [e.ids for e in want]
        assert [fields(e) for e in got] == [fields(e) for e in want]
