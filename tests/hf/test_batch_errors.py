"""``encode_batch`` raises the error of a failing input wherever it is in the batch, on one
thread or several (the streamed path hands out inputs in chunks), as ``encode`` raises it."""

from __future__ import annotations

import json

import pytest
import tokensmith
from tokensmith.errors import TruncationError

VOCAB = {"[UNK]": 0, "a": 1, "b": 2}
JSON = json.dumps(
    {
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "model": {"type": "WordLevel", "vocab": VOCAB, "unk_token": "[UNK]"},
    }
)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("at", [0, 777, 1999])
def test_error_of_one_input_is_raised(threads: int, at: int) -> None:
    tok = tokensmith.Tokenizer.from_str(JSON)
    tok.enable_truncation(2, strategy="only_second")
    # Every pair can lose a token from its second text; the single text at `at` cannot.
    inputs: list[str | tuple[str, str]] = [("a", "a b")] * 2000
    inputs[at] = "a b a"
    with pytest.raises(TruncationError) as batch_error:
        tok.encode_batch(inputs, num_threads=threads)
    with pytest.raises(TruncationError) as single_error:
        tok.encode("a b a")
    assert str(batch_error.value) == str(single_error.value)
    inputs[at] = ("b", "a b")
    assert [e.ids for e in tok.encode_batch(inputs, num_threads=threads)][at] == [2, 1]
