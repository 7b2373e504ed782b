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

import json
from pathlib import Path

import pytest
import tokensmith
from family_builders import ENGLISH_SPM_MODEL, spm_unigram_model, unigram_style
from hf_parity import (
    assert_code_points_same_as_hf,
    assert_same_as_hf,
    texts_of,
    with_truncation_and_padding,
)

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
    return unigram_style(family, spm_unigram_model(source, out), legacy, byte_fallback, out)


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
    path = unigram_style(
        family, spm_unigram_model(source, tmp_path), False, byte_fallback, tmp_path
    )
    assert_code_points_same_as_hf(path)


def test_truncation_and_padding(
    unigram_json: Path, multilingual_lines: list[str], tmp_path: Path
) -> None:
    path = with_truncation_and_padding(unigram_json, tmp_path, 24)
    assert_same_as_hf(path, texts_of(multilingual_lines), n_pairs=200)


def test_unknown_text_is_its_own_token(multilingual_lines: list[str], tmp_path: Path) -> None:
    """With the English model, Chinese text is unknown: HF names the fused piece by its text."""
    from tokenizers import Tokenizer as HfTokenizer

    path = unigram_style("xlmr", ENGLISH_SPM_MODEL, False, False, tmp_path)
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
