"""``llama2_layout``: a Metaspace BPE ``tokenizer.json`` rewired as Llama 2's.

``transformers`` converts Llama 2's SentencePiece BPE model into a ``tokenizer.json`` with no
pre-tokenizer (a whole line is one word), ``Prepend("▁")`` and ``Replace(" ", "▁")``
normalizers, a template that starts every sequence with ``<s>``, and the decoder chain
``Replace("▁", " ")``, ``ByteFallback``, ``Fuse``, ``Strip(" ", 1, 0)``. This function gives a
trained Metaspace BPE (``train_bpe(kind="metaspace", byte_fallback=True, fuse_unk=True)``) that
layout; its vocabulary, merges and model options are kept as they are.

>>> import tokensmith
>>> tok = tokensmith.train_bpe(["hello world"] * 5, vocab_size=300, kind="metaspace",
...                            special_tokens=["<s>"], byte_fallback=True, fuse_unk=True)
>>> llama = tokensmith.Tokenizer.from_str(json.dumps(llama2_layout(json.loads(tok.to_str()))))
>>> llama.encode("hello world").tokens
['<s>', '▁hello', '▁world']
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["llama2_layout"]


def llama2_layout(doc: dict[str, Any], bos: str = "<s>") -> dict[str, Any]:
    """A copy of the ``tokenizer.json`` document ``doc`` with Llama 2's normalizer,
    pre-tokenizer (none), post-processor and decoder.

    Args:
        doc: A parsed ``tokenizer.json`` whose model vocabulary holds ``bos``.
        bos: The token that starts each sequence.

    Raises:
        KeyError: ``bos`` is not in the model's vocabulary.
    """
    out: dict[str, Any] = json.loads(json.dumps(doc))
    bos_id = out["model"]["vocab"][bos]
    out["normalizer"] = {
        "type": "Sequence",
        "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
        ],
    }
    out["pre_tokenizer"] = None
    out["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
        ],
        "pair": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": bos, "type_id": 1}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}},
    }
    out["decoder"] = {
        "type": "Sequence",
        "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ],
    }
    return out
