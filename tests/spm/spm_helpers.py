"""Helpers for ``tests/spm``: models that the ``sentencepiece`` package trains inside the
tests from the committed multilingual text (82 languages), once per session.

Each model is written to memory (``model_writer=BytesIO``); nothing touches the disk.
"""

from __future__ import annotations

import io
from pathlib import Path

import sentencepiece as spm
import tokensmith

DATA = Path(__file__).parent.parent / "data"

# Lines the corpus lacks: whitespace runs, tabs, characters outside the vocabulary, NFKC cases.
EXTRA = [
    "",
    " ",
    "   leading and   inner   and trailing   ",
    "tab\tseparated\tvalues\n",
    "𠀋𠀋𠀋 rare 𪚥 chars 🤖🤖 and emoji",
    "ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ ① ㍿ ﬁ",
    "digits 1234567890 3.14159",
    "\u200b zero width \u00a0 nbsp",
    "ﾟ◡ﾟ ☃ ⁇ ▁ already escaped ▁▁",
    "user<sep>defined [MASK] singing ＡＢＣ <sep><sep> [MASK",
]

CONFIGS = {
    "unigram_identity": dict(model_type="unigram", normalization_rule_name="identity"),
    "unigram_nmt_nfkc": dict(model_type="unigram"),
    "unigram_nfkc_cf": dict(model_type="unigram", normalization_rule_name="nfkc_cf"),
    "unigram_byte_fallback": dict(model_type="unigram", byte_fallback=True),
    "unigram_split_digits": dict(model_type="unigram", split_digits=True),
    "unigram_ws_suffix": dict(model_type="unigram", treat_whitespace_as_suffix=True),
    "unigram_keep_spaces": dict(
        model_type="unigram",
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        add_dummy_prefix=False,
    ),
    "unigram_user_defined": dict(
        model_type="unigram", user_defined_symbols=["<sep>", "[MASK]", "ing", "ＡＢ"]
    ),
    "bpe_nmt_nfkc": dict(model_type="bpe"),
    "bpe_user_defined": dict(
        model_type="bpe", user_defined_symbols=["<sep>", "[MASK]", "ing", "ＡＢ"]
    ),
    "bpe_ws_suffix": dict(model_type="bpe", treat_whitespace_as_suffix=True),
    "bpe_keep_spaces_dummy": dict(model_type="bpe", remove_extra_whitespaces=False),
    "bpe_byte_fallback_identity": dict(
        model_type="bpe", byte_fallback=True, normalization_rule_name="identity"
    ),
    "char_nmt_nfkc": dict(model_type="char"),
    "char_user_defined_byte_fallback": dict(
        model_type="char", byte_fallback=True, user_defined_symbols=["<sep>", "[MASK]", "ing"]
    ),
    "word_nmt_nfkc": dict(model_type="word"),
    "word_ws_suffix_byte_fallback": dict(
        model_type="word", treat_whitespace_as_suffix=True, byte_fallback=True
    ),
}
UNIGRAM = sorted(name for name in CONFIGS if name.startswith("unigram"))
BPE = sorted(name for name in CONFIGS if name.startswith("bpe"))
# char and word models: one segmentation per text, so no sampling and no n-best lists.
SPLIT = sorted(name for name in CONFIGS if name.startswith(("char", "word")))


_TRAINED: dict[str, bytes] = {}


def trained(name: str) -> bytes:
    """The ``.model`` bytes of config ``name``, trained once per session."""
    if name not in _TRAINED:
        corpus = (DATA / "multilingual.txt").read_text("utf-8").splitlines()
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter([line for line in corpus if line]),
            model_writer=out,
            vocab_size=2000,
            num_threads=2,
            character_coverage=0.99,
            minloglevel=2,
            **CONFIGS[name],
        )
        _TRAINED[name] = out.getvalue()
    return _TRAINED[name]


def pair(name: str) -> tuple[tokensmith.SentencePieceProcessor, spm.SentencePieceProcessor]:
    proto = trained(name)
    return tokensmith.SentencePieceProcessor(model_proto=proto), spm.SentencePieceProcessor(
        model_proto=proto
    )
