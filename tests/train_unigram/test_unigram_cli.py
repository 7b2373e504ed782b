"""``tokensmith train unigram``: trains from files, writes the .vocab (and the .model when the
writer is present), reports progress and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from tokensmith.cli import app
from typer.testing import CliRunner

DATA = Path(__file__).parent.parent / "data"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["train", "unigram", *args])
    return result.exit_code, result.stdout, result.stderr


def test_trains_and_writes_the_vocab(tmp_path: Path) -> None:
    out = tmp_path / "m.model"
    code, stdout, stderr = _run(
        str(DATA / "multilingual.txt"), "--vocab-size", "3000", "--out", str(out), "--json"
    )
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    same = tokensmith.train_unigram(lines, vocab_size=3000)
    vocab = (tmp_path / "m.vocab").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == 3000
    assert vocab[:3] == ["<unk>\t0", "<s>\t0", "</s>\t0"]
    piece, score = vocab[100].split("\t")
    assert piece == same.id_to_piece(100)
    assert float(score) == pytest.approx(same.get_score(100), rel=1e-5)
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["pieces"] == 3000 and summary["lines"] == len(lines)
    assert summary["written"] == [str(tmp_path / "m.vocab"), str(out)]
    # sentencepiece loads the written .model and segments as the trained model does.
    ref = spm.SentencePieceProcessor(model_file=str(out))
    assert ref.encode(lines[:300]) == [same.encode(x) for x in lines[:300]]


def test_bad_input_exits_2_with_the_reason(tmp_path: Path) -> None:
    code, _, stderr = _run(
        str(tmp_path / "missing.txt"), "--vocab-size", "100", "--out", str(tmp_path / "m.model")
    )
    assert code == 2 and "missing.txt" in stderr
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("a b c\n", encoding="utf-8")
    code, _, stderr = _run(str(corpus), "--vocab-size", "5000", "--out", str(tmp_path / "m.model"))
    assert code == 2 and "vocab_size=5000" in stderr
    assert not (tmp_path / "m.vocab").exists()


def test_normalization_and_tsv_options(tmp_path: Path) -> None:
    tsv = tmp_path / "words.tsv"
    tsv.write_text("Hello\t50\nWORLD\t30\nhelp\t5\n", encoding="utf-8")
    out = tmp_path / "m.model"
    args = ["--vocab-size", "14", "--out", str(out), "--input-format", "tsv"]
    code, _, stderr = _run(str(tsv), *args, "--normalization-rule-name", "nmt_nfkc_cf")
    assert code == 0, stderr
    ref = spm.SentencePieceProcessor(model_file=str(out))
    # Case folding is in the saved charsmap: sentencepiece lowercases as it loads it.
    assert ref.normalize("HeLLo Ｗorld") == "▁hello▁world"
    tsv.write_text("Hello\tfifty\n", encoding="utf-8")
    code, _, stderr = _run(str(tsv), *args, "--overwrite")
    assert code == 2 and "words.tsv:1" in stderr and "fifty" in stderr
