"""Calls that used to do something other than what was meant now say so."""

from __future__ import annotations

import warnings

import pytest
import tokensmith
from tokensmith.errors import ArgumentTypeError, InvalidTrainerOptionError
from tokensmith.train.bpe import VocabSizeWarning


def test_file_paths_passed_as_texts_suggest_files(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest\n" * 50)
    with pytest.raises(InvalidTrainerOptionError, match="files="):
        tokensmith.train_bpe([str(corpus)], vocab_size=300)
    with pytest.raises(InvalidTrainerOptionError, match="files="):
        tokensmith.train_unigram([str(corpus)], vocab_size=30)
    # The same path given as files= trains on the file's text.
    enc = tokensmith.train_bpe(files=[str(corpus)], vocab_size=260, min_frequency=1)
    assert enc.decode(enc.encode("lowest")) == "lowest" and enc.n_vocab == 260


def test_texts_that_merely_mention_a_file_still_train(tmp_path):
    (tmp_path / "corpus.txt").write_text("x")
    texts = [str(tmp_path / "corpus.txt"), "plain text, not a path"] * 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VocabSizeWarning)
        enc = tokensmith.train_bpe(texts, vocab_size=270)
    assert enc.n_vocab > 256


def test_an_unreachable_vocab_size_warns_with_the_size_reached():
    with pytest.warns(VocabSizeWarning, match=r"reached 25\d tokens, not vocab_size=32000"):
        enc = tokensmith.train_bpe(["ab ab ab"], vocab_size=32000)
    assert enc.n_vocab < 260
    with warnings.catch_warnings():
        warnings.simplefilter("error", VocabSizeWarning)
        assert tokensmith.train_bpe(["ab ab ab"], vocab_size=257).n_vocab == 257


def test_a_single_string_as_texts_is_an_argument_type_error():
    with pytest.raises(ArgumentTypeError, match="not a single string") as e:
        tokensmith.train_bpe("some text", vocab_size=300)
    assert isinstance(e.value, TypeError)
