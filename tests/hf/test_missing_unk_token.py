"""A WordLevel, WordPiece or BPE file whose ``unk_token`` is not in its vocabulary loads, as in
HF, and a text fails only where HF's fails: at a word that needs the unknown token, with a
:class:`~tokensmith.TokenizerJsonError` whose ``json_path`` is ``model.unk_token``. Every
other text gives HF's ids, tokens and offsets. The files are trained by HF on part of the
committed multilingual text and run on all of it, so both outcomes occur."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()


def hf_file(kind: str, tmp_path: Path) -> Path:
    """An HF-trained file without its unknown token in the vocabulary."""
    lib = tokenizers
    if kind == "WordLevel":
        tok = lib.Tokenizer(lib.models.WordLevel(unk_token="[UNK]"))
        trainer: Any = lib.trainers.WordLevelTrainer(vocab_size=3000, show_progress=False)
    elif kind == "BPE":
        tok = lib.Tokenizer(lib.models.BPE(unk_token="[UNK]"))
        trainer = lib.trainers.BpeTrainer(vocab_size=400, show_progress=False)
    else:
        tok = lib.Tokenizer(lib.models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=12))
        trainer = lib.trainers.WordPieceTrainer(vocab_size=400, show_progress=False)
    tok.normalizer = lib.normalizers.Lowercase()
    tok.pre_tokenizer = lib.pre_tokenizers.Whitespace()
    tok.train_from_iterator(LINES[:300], trainer)
    assert tok.token_to_id("[UNK]") is None
    path = tmp_path / f"{kind}.json"
    tok.save(str(path))
    return path


@pytest.mark.parametrize("kind", ["WordLevel", "WordPiece", "BPE"])
def test_fails_only_where_hf_fails(kind: str, tmp_path: Path) -> None:
    path = hf_file(kind, tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    outcomes = set()
    for line in LINES[::3]:
        try:
            theirs = hf.encode(line)
        except Exception as e:
            assert "Missing [UNK] token" in str(e) or "unk" in str(e).lower()
            with pytest.raises(tokensmith.TokenizerJsonError, match="needs the unknown") as err:
                ours.encode(line)
            assert err.value.json_path == "model.unk_token"
            outcomes.add("failed")
            continue
        mine = ours.encode(line)
        assert (mine.ids, mine.tokens) == (theirs.ids, theirs.tokens), line
        assert mine.offsets == [tuple(o) for o in theirs.offsets], line
        outcomes.add("encoded")
    assert outcomes == {"encoded", "failed"}


def encodes(hf: Any, text: str) -> bool:
    try:
        hf.encode(text)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("kind", ["WordLevel", "WordPiece", "BPE"])
def test_a_batch_with_one_unknown_word_fails(kind: str, tmp_path: Path) -> None:
    path = hf_file(kind, tmp_path)
    ours = tokensmith.Tokenizer.from_file(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    text = " ".join([w for w in LINES[0].split() if encodes(hf, w)][:5])
    assert text
    ids = [e.ids for e in ours.encode_batch([text, text])]
    assert ids == [hf.encode(text).ids] * 2
    with pytest.raises(tokensmith.TokenizerJsonError, match="model.unk_token"):
        ours.encode_batch([text, "☃☃☃"])


def test_components_model_without_unk_token() -> None:
    model = tokensmith.models.WordPiece({"a": 0, "##b": 1}, unk_token="[UNK]")
    assert [t.value for t in model.tokenize("ab")] == ["a", "##b"]
    with pytest.raises(tokensmith.TokenizerJsonError, match="model.unk_token"):
        model.tokenize("abc")
    hf = tokenizers.models.WordPiece({"a": 0, "##b": 1}, unk_token="[UNK]")
    assert [t.value for t in hf.tokenize("ab")] == ["a", "##b"]
    with pytest.raises(Exception, match="Missing"):
        hf.tokenize("abc")


def test_components_bpe_without_unk_token() -> None:
    vocab, merges = {"a": 0, "b": 1, "ab": 2}, [("a", "b")]
    model = tokensmith.models.BPE(vocab, merges, unk_token="[UNK]")
    assert [t.value for t in model.tokenize("abab")] == ["ab", "ab"]
    with pytest.raises(tokensmith.TokenizerJsonError, match="model.unk_token"):
        model.tokenize("abc")
    hf = tokenizers.models.BPE(vocab, merges, unk_token="[UNK]")
    assert [t.value for t in hf.tokenize("abab")] == ["ab", "ab"]
    with pytest.raises(Exception, match="not found in the vocabulary"):
        hf.tokenize("abc")
