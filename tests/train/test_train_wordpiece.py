"""WordPiece training: the vocabulary equals HF ``WordPieceTrainer``'s on the committed
multilingual text, and the trained tokenizer.json runs identically in HF ``tokenizers``,
``transformers`` and tokensmith; likelihood scoring; the CLI.

HF numbers the ``##x`` variants in random hash order (see ``test_families_parity.py``), so
the parity test reads that order from HF's own vocabulary and passes it as
``variant_order``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from tokensmith.cli import app
from typer.testing import CliRunner

DATA = Path(__file__).parent.parent / "data"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _hf_trained(lines: list[str], vocab_size: int, **options: Any) -> Any:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(
        lowercase=options.pop("lowercase", True), strip_accents=options.pop("strip_accents", None)
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False, **options
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def _variants(vocab: dict[str, int]) -> list[str]:
    """HF's ``##x`` tokens (one character after the prefix) in id order."""
    by_id = sorted(vocab, key=vocab.__getitem__)
    return [t for t in by_id if t.startswith("##") and len(t) == 3]


@pytest.mark.parametrize(
    ("vocab_size", "options"),
    [
        (8000, {}),
        (5000, {"min_frequency": 3, "lowercase": False}),
        (6000, {"initial_alphabet": ["☃", "Ω"], "strip_accents": True, "lowercase": False}),
    ],
)
def test_vocab_and_encodings_identical_to_hf(
    multilingual_lines: list[str], vocab_size: int, options: dict[str, Any]
) -> None:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    hf = _hf_trained(multilingual_lines, vocab_size, **dict(options))
    hf_vocab = hf.get_vocab()
    ours = tokensmith.train_wordpiece(
        multilingual_lines,
        vocab_size=vocab_size,
        variant_order=_variants(hf_vocab),
        **options,
    )
    assert len(hf_vocab) == vocab_size
    assert ours.get_vocab() == hf_vocab
    doc = json.loads(ours.to_str())
    assert doc["model"]["type"] == "WordPiece"
    assert doc["normalizer"] == json.loads(hf.to_str())["normalizer"]
    loaded = Tokenizer.from_str(ours.to_str())
    fast = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_str(ours.to_str()))
    for line in multilingual_lines:
        mine = ours.encode(line)
        theirs = loaded.encode(line)
        assert mine.ids == theirs.ids, line
        assert mine.tokens == theirs.tokens, line
        assert mine.offsets == [tuple(o) for o in theirs.offsets], line
        assert fast(line)["input_ids"] == mine.ids, line
        # The HF-trained tokenizer (no post-processor) cuts the same pieces.
        assert ours.encode(line, add_special_tokens=False).ids == hf.encode(line).ids, line
        assert ours.decode(mine.ids) == loaded.decode(theirs.ids), line
    assert mine.tokens[0] == "[CLS]" and mine.tokens[-1] == "[SEP]"


def test_likelihood_merge_order_on_a_toy_corpus() -> None:
    """Derived by hand. Words: "ab" x6, "cd" x2, "ce" x1, i.e. a ##b, c ##d, c ##e.
    Symbol counts: a 6, ##b 6, c 3, ##d 2, ##e 1. Frequency merges by pair count:
    (a, ##b) 6, (c, ##d) 2, (c, ##e) 1. Likelihood scores count(ab) / (count(a) count(b)):
    (a, ##b) 6/36, (c, ##d) 2/6, (c, ##e) 1/3; (c, ##d) and (c, ##e) tie and the smaller
    ids win (##d before ##e), so "cd" first. Then c is left once: (c, ##e) 1/(1*1) = 1
    beats 6/36, so "ce", then "ab"."""
    texts = ["ab ab ab ab ab ab cd cd ce"]
    # 5 specials + alphabet a b c d e + variants ##b ##d ##e = 13; three merges.
    freq = tokensmith.train_wordpiece(texts, vocab_size=16)
    lik = tokensmith.train_wordpiece(texts, vocab_size=16, scoring="likelihood")

    def learned(tok: tokensmith.Tokenizer) -> list[str]:
        vocab = tok.get_vocab()
        return sorted(vocab, key=vocab.__getitem__)[13:]

    assert learned(freq) == ["ab", "cd", "ce"]
    assert learned(lik) == ["cd", "ce", "ab"]


def test_likelihood_differs_on_real_text_and_round_trips(multilingual_lines: list[str]) -> None:
    from tokenizers import Tokenizer

    freq = tokensmith.train_wordpiece(multilingual_lines, vocab_size=4000)
    lik = tokensmith.train_wordpiece(multilingual_lines, vocab_size=4000, scoring="likelihood")
    assert lik.get_vocab_size() == freq.get_vocab_size() == 4000
    changed = set(lik.get_vocab()) ^ set(freq.get_vocab())
    assert len(changed) > 100
    hf = Tokenizer.from_str(lik.to_str())
    for line in multilingual_lines:
        # Every word is spelt by its pieces (words over 100 characters are [UNK], as in HF).
        words = hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(line))
        expected = "".join(w if len(w) <= 100 else "[UNK]" for w, _ in words)
        enc = lik.encode(line, add_special_tokens=False)
        assert "".join(t.removeprefix("##") for t in enc.tokens) == expected, line
        assert enc.ids == hf.encode(line, add_special_tokens=False).ids, line


def test_options_are_checked() -> None:
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="scoring"):
        tokensmith.train_wordpiece(["a b"], vocab_size=10, scoring="best")  # type: ignore[arg-type]
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="continuing_subword_prefix"):
        tokensmith.train_wordpiece(["a b"], vocab_size=10, continuing_subword_prefix="")
    with pytest.raises(tokensmith.InvalidTrainerOptionError, match="vocab_size"):
        tokensmith.train_wordpiece(["abc"], vocab_size=6)
    with pytest.raises(tokensmith.EmptyCorpusError):
        tokensmith.train_wordpiece(["  ", ""], vocab_size=100)


def test_cli_trains_and_writes_tokenizer_json(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    out = tmp_path / "wp" / "tokenizer.json"
    args = ["train", "wordpiece", str(DATA / "multilingual.txt"), "--vocab-size", "3000",
            "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "trained a WordPiece tokenizer: 3,000 tokens from 1 files, 5,280 lines" in result.output
    saved = tokensmith.Tokenizer.from_file(str(out))
    same = tokensmith.train_wordpiece(multilingual_lines, vocab_size=3000)
    assert saved.get_vocab() == same.get_vocab()
    bad = CliRunner().invoke(app, [*args, "--scoring", "best"])
    assert bad.exit_code == 2 and "scoring='best' is not known" in bad.output


def test_cli_normalizer_alphabet_and_prefix_options(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """--no-lowercase --strip-accents --initial-alphabet --prefix reach the trainer: the saved
    file equals the API's with the same options (the API is parity-tested against HF above)."""
    out = tmp_path / "tokenizer.json"
    args = ["train", "wordpiece", str(DATA / "multilingual.txt"), "--vocab-size", "3000",
            "--out", str(out), "--no-lowercase", "--strip-accents", "--initial-alphabet", "☃Ω",
            "--prefix", "@@"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    saved = tokensmith.Tokenizer.from_file(str(out))
    same = tokensmith.train_wordpiece(
        multilingual_lines, vocab_size=3000, lowercase=False, strip_accents=True,
        initial_alphabet=["☃", "Ω"], continuing_subword_prefix="@@",
    )
    assert saved.get_vocab() == same.get_vocab()
    assert "☃" in saved.get_vocab() and "Ω" in saved.get_vocab()
    assert not any(t.startswith("##") for t in saved.get_vocab())
    tokens = saved.encode("Café Über", add_special_tokens=False).tokens
    assert "".join(t.removeprefix("@@") for t in tokens) == "CafeUber"  # no accents, case kept
