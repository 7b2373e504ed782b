"""The ``Nmt`` normalizer and the ``tokenizer.json`` HF's ``SentencePieceUnigramTokenizer``
writes (``Nmt``, ``NFKC``, a regex ``Replace``, ``Metaspace``, Unigram), against HF on the
committed multilingual text."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import tokenizers
import tokensmith
from tokenizers import SentencePieceUnigramTokenizer
from tokensmith import normalizers

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()

# Every character Nmt touches, between letters, plus NUL and U+3000 that it leaves alone.
NMT_PROBES = "".join(
    f"a{chr(c)}b"
    for c in [*range(0x00, 0x21), 0x7F, 0x85, 0x8F, 0x9F, 0xA0, 0x1680, 0x2000, 0x200B,
              0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2581, 0x3000, 0xFEFF, 0xFFFD]
)  # fmt: skip


def test_nmt_normalize_str_matches_hf() -> None:
    ours, hf = normalizers.Nmt(), tokenizers.normalizers.Nmt()
    assert ours.normalize_str(NMT_PROBES) == hf.normalize_str(NMT_PROBES)
    assert ours.normalize_str(NMT_PROBES) != NMT_PROBES
    for line in LINES:
        assert ours.normalize_str(line) == hf.normalize_str(line)


def test_nmt_offsets_in_a_tokenizer_match_hf() -> None:
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel({"<unk>": 0}, unk_token="<unk>"))
    hf.normalizer = tokenizers.normalizers.Nmt()
    hf.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    ours = tokensmith.Tokenizer.from_str(hf.to_str())
    for line in [NMT_PROBES, *LINES[::7]]:
        assert ours.encode(line).offsets == hf.encode(line).offsets


def close(a: object, b: object) -> bool:
    """Equal JSON, floats within 1e-12 relative: HF's JSON reader parses some Unigram scores
    one unit in the last place off the file's text (and writes that back); tokensmith keeps
    the file's value."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    return a == b


@pytest.fixture(scope="module")
def unigram_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = LINES[::6]
    chars = len(set("".join(lines)))
    trainer = SentencePieceUnigramTokenizer()
    trainer.train_from_iterator(
        lines,
        vocab_size=chars + 400,
        show_progress=False,
        unk_token="<unk>",
        special_tokens=["<unk>"],
    )
    path = tmp_path_factory.mktemp("spm_unigram") / "tokenizer.json"
    trainer.save(str(path))
    return path


def test_sentencepiece_unigram_file_matches_hf(unigram_json: Path) -> None:
    hf = tokenizers.Tokenizer.from_file(str(unigram_json))
    ours = tokensmith.Tokenizer.from_file(unigram_json)
    assert ours.normalizer is not None
    assert [n.to_json()["type"] for n in ours.normalizer] == ["Nmt", "NFKC", "Replace"]
    for slot in ("normalizer", "pre_tokenizer", "model", "decoder", "post_processor"):
        mine, theirs = getattr(ours, slot), getattr(hf, slot)
        assert (mine is None) == (theirs is None), slot
        if mine is not None:
            assert close(json.loads(mine.__getstate__()), json.loads(theirs.__getstate__()))
    for line in [*LINES, NMT_PROBES]:
        a, b = ours.encode(line), hf.encode(line)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets), line
        assert ours.decode(a.ids) == hf.decode(b.ids)


def test_unigram_file_without_unk_id_fails_where_hf_fails(tmp_path: Path) -> None:
    """HF's default ``SentencePieceUnigramTokenizer`` has no unknown token: the file loads,
    and a text fails only where HF fails (a character outside the training text)."""
    trainer = SentencePieceUnigramTokenizer()
    lines = LINES[::6]
    trainer.train_from_iterator(
        lines, vocab_size=len(set("".join(lines))) + 400, show_progress=False
    )
    path = tmp_path / "tokenizer.json"
    trainer.save(str(path))
    assert json.loads(path.read_text("utf-8"))["model"]["unk_id"] is None
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    failed = 0
    for line in [*LINES, "☃☃ snow", "plain words"]:
        try:
            b = hf.encode(line)
        except Exception:
            failed += 1
            with pytest.raises(tokensmith.TokensmithError, match="unk_id"):
                ours.encode(line)
            continue
        a = ours.encode(line)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets), line
    assert 0 < failed < len(LINES) // 2
    with pytest.raises(tokensmith.TokensmithError, match="unk_id"):
        ours.encode_batch(["plain words", "☃"])
