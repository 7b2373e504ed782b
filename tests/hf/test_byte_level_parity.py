"""Byte-level (GPT-2 style) tokenizer.json files run by tokensmith's HF pipeline.

Two files: the one tokensmith's own byte-level saver writes for a trained encoding
(``Sequence[Split(pattern), ByteLevel(use_regex=false)]``, ``ignore_merges``), and a GPT-2 /
RoBERTa-style one trained by HF itself (``ByteLevel(add_prefix_space=true)`` with GPT-2's
regex, a ``ByteLevel`` post-processor that trims offsets, a ``ByteLevel`` decoder). Ids,
tokens, offsets, word ids and decode are compared with HF ``tokenizers`` on every line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith


def _own_saver(lines: list[str], out: Path) -> Path:
    enc = tokensmith.train_bpe(lines, vocab_size=3000, special_tokens=["<|endoftext|>"])
    enc.save(out)
    return out


def _hf_gpt2(lines: list[str], out: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=3000,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    tok.train_from_iterator(lines, trainer)
    tok.save(str(out))
    return out


@pytest.fixture(scope="module", params=["tokensmith-saver", "hf-gpt2"])
def byte_level_json(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    out = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    make = _own_saver if request.param == "tokensmith-saver" else _hf_gpt2
    return make(multilingual_lines, out)


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
        assert ours.decode(t.ids) == hf.decode(h.ids), text


def test_same_ids_as_the_encoding(multilingual_lines: list[str], tmp_path: Path) -> None:
    path = _own_saver(multilingual_lines, tmp_path / "tokenizer.json")
    enc = tokensmith.load(path)
    assert isinstance(enc, tokensmith.Encoding)
    tok = tokensmith.Tokenizer.from_file(path)
    for line in multilingual_lines[:1000]:
        assert tok.encode(line).ids == enc.encode_ordinary(line), line
