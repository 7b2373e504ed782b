"""The ``tokenizer.json`` HF's ``SentencePieceBPETokenizer`` writes (``NFKC``, ``Metaspace``,
a BPE model with ``<unk>``), trained by HF on the committed multilingual text: tokensmith gives
HF's ids, tokens, offsets and decoded text on every line, with and without added specials."""

from __future__ import annotations

from pathlib import Path

import pytest
import tokenizers
import tokensmith
from tokenizers import SentencePieceBPETokenizer

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()
# Lines that start or end with spaces, runs of spaces, an unknown character and the specials.
EDGES = ["  leading", "trailing  ", "a   b", "", " ", "☃ snow ☃", "<s>x</s> <unk>"]


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "fuse_unk"])
def bpe_json(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    trainer = SentencePieceBPETokenizer(fuse_unk=request.param)
    trainer.train_from_iterator(
        LINES[::3],
        vocab_size=1500,
        min_frequency=2,
        show_progress=False,
        special_tokens=["<unk>", "<s>", "</s>"],
        limit_alphabet=300,
    )
    path = tmp_path_factory.mktemp("spm_bpe") / "tokenizer.json"
    trainer.save(str(path))
    return path


def test_sentencepiece_bpe_file_matches_hf(bpe_json: Path) -> None:
    hf = tokenizers.Tokenizer.from_file(str(bpe_json))
    ours = tokensmith.Tokenizer.from_file(bpe_json)
    assert ours.get_vocab() == hf.get_vocab()
    unknown = 0
    for line in [*LINES, *EDGES]:
        a, b = ours.encode(line), hf.encode(line)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets), line
        assert ours.decode(a.ids) == hf.decode(b.ids), line
        assert ours.decode(a.ids, skip_special_tokens=False) == hf.decode(
            b.ids, skip_special_tokens=False
        ), line
        unknown += b.ids.count(hf.token_to_id("<unk>"))
    # limit_alphabet drops rare characters, so the text exercises the unknown token.
    assert unknown > 0


def test_sentencepiece_bpe_file_batches_and_pairs_match_hf(bpe_json: Path) -> None:
    hf = tokenizers.Tokenizer.from_file(str(bpe_json))
    ours = tokensmith.Tokenizer.from_file(bpe_json)
    batch = LINES[:64]
    assert [e.ids for e in ours.encode_batch(batch)] == [e.ids for e in hf.encode_batch(batch)]
    for first, second in zip(LINES[:40:2], LINES[1:40:2], strict=True):
        a, b = ours.encode(first, second), hf.encode(first, second)
        assert (a.ids, a.type_ids, a.offsets) == (b.ids, b.type_ids, b.offsets)
