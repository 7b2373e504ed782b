"""Byte-level (GPT-2 style) tokenizer.json files run by tokensmith's HF pipeline.

Three files: the one tokensmith's own byte-level saver writes for a trained encoding
(``Sequence[Split(pattern), ByteLevel(use_regex=false)]``, ``ignore_merges``), and a GPT-2 /
RoBERTa-style one trained by HF itself (``ByteLevel(add_prefix_space=true)`` with GPT-2's
regex, a ``ByteLevel`` post-processor that trims offsets, a ``ByteLevel`` decoder), and the
same with RoBERTa's post-processor (``<s> A </s> </s> B </s>``, trimmed offsets). Ids,
tokens, offsets, word ids, special-token masks and decode are compared with HF
``tokenizers`` on every line, and pairs on 300 of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith


def _own_saver(lines: list[str], out: Path) -> Path:
    enc = tokensmith.train_bpe(lines, vocab_size=3000, special_tokens=["<|endoftext|>"])
    enc.save(out)
    return out


def _hf_gpt2(lines: list[str], out: Path, roberta: bool = False) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=3000,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<s>", "<pad>", "</s>"] if roberta else ["<|endoftext|>"],
    )
    tok.train_from_iterator(lines, trainer)
    if roberta:
        tok.post_processor = processors.RobertaProcessing(
            ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>"))
        )
    tok.save(str(out))
    return out


def _hf_roberta(lines: list[str], out: Path) -> Path:
    return _hf_gpt2(lines, out, roberta=True)


@pytest.fixture(scope="module", params=["tokensmith-saver", "hf-gpt2", "hf-roberta"])
def byte_level_json(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    out = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    make = {"tokensmith-saver": _own_saver, "hf-gpt2": _hf_gpt2, "hf-roberta": _hf_roberta}
    return make[request.param](multilingual_lines, out)


def test_identical_to_hf_tokenizers(byte_level_json: Path, multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(byte_level_json))
    ours = tokensmith.Tokenizer.from_file(byte_level_json)
    texts = [line.rstrip("\n") for line in multilingual_lines]
    texts += ["", " ", "  a  b ", "x\n\n y", "é中😀", "it's 1234567"]
    for text in texts:
        h, t = hf.encode(text), ours.encode(text)
        assert t.ids == h.ids, text
        assert t.tokens == h.tokens, text
        assert t.offsets == h.offsets, text
        assert t.word_ids == h.word_ids, text
        assert t.special_tokens_mask == h.special_tokens_mask, text
        assert ours.decode(t.ids) == hf.decode(h.ids), text
        assert ours.decode(t.ids, skip_special_tokens=False) == hf.decode(
            h.ids, skip_special_tokens=False
        ), text
    for a, b in zip(texts[:300], texts[300:600], strict=True):
        h, t = hf.encode(a, b), ours.encode(a, b)
        assert (t.ids, t.type_ids, t.offsets) == (h.ids, h.type_ids, h.offsets), (a, b)
        h = hf.encode(a, b, add_special_tokens=False)
        t = ours.encode(a, b, add_special_tokens=False)
        assert (t.ids, t.type_ids) == (h.ids, h.type_ids), (a, b)


def test_same_ids_as_the_encoding(multilingual_lines: list[str], tmp_path: Path) -> None:
    path = _own_saver(multilingual_lines, tmp_path / "tokenizer.json")
    enc = tokensmith.load(path)
    assert isinstance(enc, tokensmith.Encoding)
    tok = tokensmith.Tokenizer.from_file(path)
    for line in multilingual_lines[:1000]:
        assert tok.encode(line).ids == enc.encode_ordinary(line), line
