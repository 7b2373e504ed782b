"""The two ``.model`` files shipped in the sentencepiece sources (``tests/data/spm/README.md``):
ids, pieces, decode and n-best identical to sentencepiece on every line of their texts, and
saved back byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import EXTRA

SPM_DATA = Path(__file__).parent.parent / "data" / "spm"
MODELS = {
    "test_model.model": ["botchan.txt"],
    "test_ja_model.model": ["wagahaiwa_nekodearu_head.txt", "botchan.txt"],
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def shipped(request):
    path = SPM_DATA / request.param
    texts = [SPM_DATA / name for name in MODELS[request.param]]
    lines = [line for t in texts for line in t.read_text(encoding="utf-8").splitlines()]
    lines += (SPM_DATA.parent / "multilingual.txt").read_text("utf-8").splitlines()[::4] + EXTRA
    return (
        path,
        tokensmith.SentencePieceProcessor(model_file=path),
        spm.SentencePieceProcessor(model_file=str(path)),
        lines,
    )


def test_ids_pieces_and_decode_on_every_line(shipped):
    _, ours, ref, lines = shipped
    bad = []
    for line in lines:
        ids = ref.encode(line)
        got = (ours.encode(line), ours.encode(line, out_type=str), ours.decode(ids))
        want = (ids, ref.encode(line, out_type=str), ref.decode(ids))
        if got != want:
            bad.append(line)
    assert bad == []


def test_nbest_equals_sentencepiece(shipped):
    _, ours, ref, lines = shipped
    for line in lines[::15]:
        assert ours.nbest_encode_as_ids(line, 8) == ref.nbest_encode_as_ids(line, 8), line


def test_saved_file_is_byte_identical(shipped, tmp_path):
    path, ours, _, _ = shipped
    ours.save(tmp_path / "copy.model")
    assert (tmp_path / "copy.model").read_bytes() == path.read_bytes()
    tok = tokensmith.load(path)
    assert tok.encode("I am a cat.").ids == ours.encode("I am a cat.")
