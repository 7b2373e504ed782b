"""A Llama-2-style tokenizer.json (as ``transformers`` converts SentencePiece BPE models):
``Prepend("▁")`` + ``Replace(" ", "▁")`` normalizers and no pre-tokenizer, so a whole line is
one word; BPE with byte fallback and fused unknowns; a ``<s>`` template; and the decoder chain
``Replace("▁", " ")``, ``ByteFallback``, ``Fuse``, ``Strip(" ", 1, 0)``. The vocabulary and
merges come from a Metaspace BPE trained by tokensmith. Compared with HF ``tokenizers`` on
every line of the multilingual text, and on pairs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from hf_families import build


@pytest.fixture(scope="module")
def llama_json(multilingual_lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build("llama2", multilingual_lines, tmp_path_factory.mktemp("llama"))


def test_identical_to_hf_tokenizers(llama_json: Path, multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(llama_json))
    ours = tokensmith.load(llama_json)
    assert isinstance(ours, tokensmith.Tokenizer)
    texts = [line.rstrip("\n") for line in multilingual_lines] + ["", " ", "  a  b ", "é\t中"]
    for text in texts:
        h, t = hf.encode(text), ours.encode(text)
        assert (t.ids, t.tokens, t.offsets) == (h.ids, h.tokens, h.offsets), text
        assert t.special_tokens_mask == h.special_tokens_mask, text
        assert ours.decode(t.ids) == hf.decode(h.ids), text
        assert ours.decode(t.ids, skip_special_tokens=False) == hf.decode(
            h.ids, skip_special_tokens=False
        ), text
    for a, b in zip(texts[:200], texts[200:400], strict=True):
        h, t = hf.encode(a, b), ours.encode(a, b)
        assert (t.ids, t.type_ids, t.offsets) == (h.ids, h.type_ids, h.offsets), (a, b)
