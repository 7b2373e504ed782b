"""T5-, ALBERT- and XLM-R-style Unigram tokenizer.json files, built offline by ``transformers``'
own slow-to-fast converters from SentencePiece models, compared with HF ``tokenizers``.

The models are the committed English ``test_model.model`` (so that most non-Latin text is
unknown: fused unknown pieces; T5 and XLM-R only, as it has no ``[CLS]``) and a Unigram
model trained here with ``sentencepiece`` on the
multilingual text, once with byte fallback. The converters give a ``Precompiled`` charsmap
(T5, XLM-R) or ALBERT's Replace/NFKD/StripAccents/Lowercase chain, then ``Strip`` and a regex
``Replace``, the ``Metaspace`` pre-tokenizer (``prepend_scheme`` "first" or "always"),
``Unigram`` and a template. Every line of the multilingual text, pairs, truncation with
padding, and decode are compared.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import tokensmith
from hf_parity import (
    assert_code_points_same_as_hf,
    assert_same_as_hf,
    texts_of,
    with_truncation_and_padding,
)

DATA = Path(__file__).parent.parent / "data"
EXTRA_IDS = 5


class _SlowStub:
    """What the converters read from a slow tokenizer, answered from the .model file."""

    def __init__(self, vocab_file: Path, legacy: bool) -> None:
        self.vocab_file = str(vocab_file)
        self._extra_ids = EXTRA_IDS
        self.keep_accents = False
        self.do_lower_case = True
        self.legacy = legacy
        self.special_tokens: list[str] = []
        # Filled from the converter's own vocabulary (XLM-R's ids are shifted, T5 adds ids).
        self.ids: dict[str, int] = {}

    def convert_tokens_to_ids(self, token: str) -> int:
        return self.ids[token]


def _train_multilingual(out: Path, byte_fallback: bool) -> Path:
    import sentencepiece as spm

    prefix = out / ("multi_bf" if byte_fallback else "multi")
    spm.SentencePieceTrainer.train(
        input=str(DATA / "multilingual.txt"),
        model_prefix=str(prefix),
        model_type="unigram",
        vocab_size=2000,
        character_coverage=0.98,
        byte_fallback=byte_fallback,
        control_symbols=["[CLS]", "[SEP]", "<mask>"],
        minloglevel=2,
    )
    return prefix.with_suffix(".model")


def _convert(family: str, model: Path, legacy: bool, byte_fallback: bool, out: Path) -> Path:
    converters = importlib.import_module("transformers.convert_slow_tokenizer")
    base = {
        "t5": converters.T5Converter,
        "albert": converters.AlbertConverter,
        "xlmr": converters.XLMRobertaConverter,
    }[family]
    converter = type("Converter", (base,), {"handle_byte_fallback": byte_fallback})
    stub = _SlowStub(model, legacy)
    conv = converter(stub)
    stub.ids = {piece: i for i, (piece, _) in enumerate(conv.vocab(conv.proto))}
    tok = conv.converted()
    path = out / f"{family}.json"
    tok.save(str(path))
    return path


# ALBERT's template needs [CLS] and [SEP], which the committed English model lacks.
CASES = [
    ("t5", "test_model", True, False),
    ("xlmr", "test_model", False, False),
    ("t5", "multi", False, False),
    ("xlmr", "multi-bf", True, True),
    ("albert", "multi", True, False),
]


@pytest.fixture(scope="module", params=CASES, ids=["-".join(map(str, c)) for c in CASES])
def unigram_json(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    family, source, legacy, byte_fallback = request.param
    out = tmp_path_factory.mktemp(f"unigram-{family}-{source}")
    return _convert(family, _model(source, out), legacy, byte_fallback, out)


def _model(source: str, out: Path) -> Path:
    if source == "test_model":
        return DATA / "spm" / "test_model.model"
    return _train_multilingual(out, byte_fallback=source == "multi-bf")


def test_file_has_the_unigram_pipeline(unigram_json: Path) -> None:
    doc = json.loads(unigram_json.read_text(encoding="utf-8"))
    assert doc["model"]["type"] == "Unigram"
    assert doc["pre_tokenizer"]["type"] == "Metaspace"
    kinds = [n["type"] for n in doc["normalizer"]["normalizers"]]
    assert "Replace" in kinds
    if "albert" not in unigram_json.name:
        assert kinds[0] == "Precompiled"


def test_identical_to_hf_tokenizers(unigram_json: Path, multilingual_lines: list[str]) -> None:
    assert_same_as_hf(unigram_json, texts_of(multilingual_lines, ("<unk> </s>",)))


@pytest.mark.parametrize(
    ("family", "source", "byte_fallback"),
    [("t5", "test_model", False), ("xlmr", "multi-bf", True)],
)
def test_every_code_point(family: str, source: str, byte_fallback: bool, tmp_path: Path) -> None:
    """The charsmap, the grapheme walk and unknown/byte-fallback pieces on all of Unicode
    (two of the cases: the others share their charsmap; ALBERT's NFKD chain is swept by the
    BERT tests)."""
    path = _convert(family, _model(source, tmp_path), False, byte_fallback, tmp_path)
    assert_code_points_same_as_hf(path)


def test_truncation_and_padding(
    unigram_json: Path, multilingual_lines: list[str], tmp_path: Path
) -> None:
    path = with_truncation_and_padding(unigram_json, tmp_path, 24)
    assert_same_as_hf(path, texts_of(multilingual_lines), n_pairs=200)


def test_unknown_text_is_its_own_token(multilingual_lines: list[str], tmp_path: Path) -> None:
    """With the English model, Chinese text is unknown: HF names the fused piece by its text."""
    from tokenizers import Tokenizer as HfTokenizer

    path = _convert("xlmr", DATA / "spm" / "test_model.model", False, False, tmp_path)
    ours = tokensmith.Tokenizer.from_file(path)
    enc = ours.encode("ab 中文字 cd", add_special_tokens=False)
    unk = ours.token_to_id("<unk>")
    assert unk in enc.ids
    at = enc.ids.index(unk)
    assert enc.tokens[at] == "中文字"
    assert (
        enc.tokens
        == HfTokenizer.from_file(str(path)).encode("ab 中文字 cd", add_special_tokens=False).tokens
    )
