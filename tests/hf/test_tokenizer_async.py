"""The ``async_*`` methods against HF's: the same results as their synchronous twins, and
as HF's, awaited together on one event loop; outside a loop they fail as HF's do.

Two HF quirks are not copied: HF's ``async_encode`` gives offsets in bytes (its ``encode``
gives characters; tokensmith's async offsets are ``encode``'s), and its
``async_encode_batch`` reads any two-item word list as a pair (its ``encode_batch`` does
not), so every line here has more than two words."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import tokenizers
import tokensmith

LINES = (Path(__file__).parents[1] / "data" / "multilingual.txt").read_text("utf-8").splitlines()


def test_async_methods_match_hf(tmp_path: Path) -> None:
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    hf.train_from_iterator(
        LINES, tokenizers.trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False)
    )
    ours = tokensmith.Tokenizer.from_str(hf.to_str())
    lines = [line for line in LINES[::30] if len(line.split()) > 2]

    async def both(tok: object) -> tuple[object, ...]:
        one = tok.async_encode(lines[0], lines[1])  # type: ignore[attr-defined]
        many = tok.async_encode_batch(lines)  # type: ignore[attr-defined]
        words = tok.async_encode_batch([w.split() for w in lines], True, False)  # type: ignore[attr-defined]
        a, b, c = await asyncio.gather(one, many, words)
        text = await tok.async_decode_batch([e.ids for e in b], False)  # type: ignore[attr-defined]
        return (a.ids, [e.ids for e in b], [e.word_ids for e in c], text, a)

    got, want = asyncio.run(both(ours)), asyncio.run(both(hf))
    assert got[:4] == want[:4]
    assert got[4].offsets == hf.encode(lines[0], lines[1]).offsets  # type: ignore[attr-defined]
    assert got[1] == [e.ids for e in ours.encode_batch(lines)]


def test_async_outside_a_loop_fails_as_in_hf() -> None:
    tok = tokensmith.Tokenizer.from_str(
        '{"model": {"type": "WordLevel", "unk_token": "?", "vocab": {"?": 0}}}'
    )
    with pytest.raises(RuntimeError, match="no running event loop"):
        tok.async_encode("a")
