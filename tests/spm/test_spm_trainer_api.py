"""``tokensmith.SentencePieceTrainer.train``: sentencepiece's arguments (keywords and the flag
string), its output files, and its errors for unknown flags."""

from __future__ import annotations

import io

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import DATA
from tokensmith.sentencepiece_trainer import SentencePieceTrainer

CORPUS = DATA / "multilingual.txt"


def test_keywords_and_flag_string_train_the_same_model(tmp_path, lines: list[str]) -> None:
    kwargs = dict(vocab_size=1500, character_coverage=0.98, max_sentencepiece_length=8,
                  user_defined_symbols=["<sep>", "[MASK]"], split_digits=True)
    SentencePieceTrainer.train(input=str(CORPUS), model_prefix=str(tmp_path / "kw"), **kwargs)
    SentencePieceTrainer.Train(
        f"--input={CORPUS} --model_prefix={tmp_path / 'flags'} --vocab_size=1500 "
        "--character_coverage=0.98 --max_sentencepiece_length 8 "
        "--user_defined_symbols=<sep>,[MASK] --split_digits"
    )
    data = (tmp_path / "kw.model").read_bytes()
    assert (tmp_path / "flags.model").read_bytes() == data
    direct = tokensmith.train_unigram(
        files=[str(CORPUS)], vocab_size=1500, character_coverage=0.98, max_piece_length=8,
        user_defined_symbols=["<sep>", "[MASK]"], split_digits=True,
    )
    assert direct.serialized_model_proto() == data
    # sentencepiece loads the file and gives tokensmith's ids.
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "kw.model"))
    ours = tokensmith.SentencePieceProcessor(model_file=str(tmp_path / "kw.model"))
    assert ref.encode(lines[::5]) == ours.encode(lines[::5])
    assert ref.piece_size() == 1500


def test_vocab_file_is_written_as_sentencepiece_writes_it(tmp_path) -> None:
    # sentencepiece's own model and .vocab: tokensmith's .vocab writer on that model must
    # give the same file.
    prefix = tmp_path / "ref"
    spm.SentencePieceTrainer.train(
        input=str(CORPUS), model_prefix=str(prefix), vocab_size=1500, minloglevel=2,
        character_coverage=0.98, num_threads=2,
    )
    from tokensmith.cli.train_unigram import vocab_text

    ours = tokensmith.SentencePieceProcessor(model_file=str(prefix) + ".model")
    assert vocab_text(ours) == (tmp_path / "ref.vocab").read_text(encoding="utf-8")


def test_sentence_iterator_and_model_writer(lines: list[str]) -> None:
    out = io.BytesIO()
    SentencePieceTrainer.train(
        sentence_iterator=iter([line for line in lines if line]), model_writer=out,
        vocab_size=1500, character_coverage=0.98,
    )
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    assert sp.piece_size() == 1500


def test_unknown_flags_are_named_as_sentencepiece_names_them(tmp_path) -> None:
    prefix = str(tmp_path / "m")
    for call in (
        lambda t: t.train(input=str(CORPUS), model_prefix=prefix, vocab_sizee=10),
        lambda t: t.train(f"--input={CORPUS} --model_prefix={prefix} --foo=1"),
    ):
        with pytest.raises(RuntimeError) as theirs:
            call(spm.SentencePieceTrainer)
        with pytest.raises(RuntimeError) as ours:
            call(SentencePieceTrainer)
        assert isinstance(ours.value, tokensmith.errors.SentencePieceOptionError)
        assert str(ours.value) in str(theirs.value)


def test_what_is_not_supported_says_so(tmp_path) -> None:
    prefix = str(tmp_path / "m")
    with pytest.raises(tokensmith.errors.SentencePieceOptionError, match='"trie"'):
        SentencePieceTrainer.train(input=str(CORPUS), model_prefix=prefix, model_type="trie")
    with pytest.raises(tokensmith.UnsupportedFeatureError, match="pad_id"):
        SentencePieceTrainer.train(input=str(CORPUS), model_prefix=prefix, pad_id=3)
    with pytest.raises(tokensmith.errors.SentencePieceOptionError, match="vocab_size"):
        SentencePieceTrainer.train(f"--input={CORPUS} --model_prefix={prefix} --vocab_size=x")
    assert not list(tmp_path.iterdir())
