"""``decoders.DecodeStream`` against HF's: step by step over the ids of the multilingual
text, on byte-level BPE (multi-byte characters span tokens), Metaspace BPE with byte
fallback and WordPiece files."""

from __future__ import annotations

from pathlib import Path

import pytest
import tokenizers
import tokensmith
from family_fixture import Family, family_fixture

LINES = (Path(__file__).parents[1] / "data" / "multilingual.txt").read_text("utf-8").splitlines()

family_json = family_fixture(["bert", "gpt2", "llama2"])


@pytest.mark.parametrize("skip", [False, True])
def test_decode_stream_matches_hf(family_json: Family, skip: bool) -> None:
    ours = tokensmith.Tokenizer.from_file(family_json.path)
    hf = tokenizers.Tokenizer.from_file(str(family_json.path))
    pieces = 0
    for line in LINES[::60]:
        ids = hf.encode(line).ids
        a = tokensmith.decoders.DecodeStream(skip_special_tokens=skip)
        b = tokenizers.decoders.DecodeStream(skip_special_tokens=skip)
        got = [a.step(ours, i) for i in ids]
        assert got == [b.step(hf, i) for i in ids], line
        pieces += sum(piece is not None for piece in got)
    assert pieces > 100
    # Ids given up front are context, not output.
    ids = hf.encode(LINES[1]).ids
    a = tokensmith.decoders.DecodeStream(ids[:3], skip)
    b = tokenizers.decoders.DecodeStream(ids[:3], skip)
    assert [a.step(ours, i) for i in ids[3:]] == [b.step(hf, i) for i in ids[3:]]
