"""Fertility and continued words on a tokenizer whose splits are known by hand."""

from __future__ import annotations

import pytest
import tokensmith.eval as ev
from eval_helpers import read_lines, toy_encoding
from tokensmith.reference import tiktoken_encoding


def test_whole_words_have_fertility_one() -> None:
    # toy: "hello world" -> [hello][ world]: 2 tokens, 2 words, none split.
    data = ev.tokenize(toy_encoding(), ["hello world"])
    assert ev.fertility(data) == 1.0
    assert ev.continued_words(data) == 0.0


def test_a_split_word_is_continued() -> None:
    # "hello worlds" -> [hello][ world][s]: 3 tokens over 2 words; "worlds" has 2 tokens.
    data = ev.tokenize(toy_encoding(), ["hello worlds"])
    assert ev.fertility(data) == 1.5
    assert ev.continued_words(data) == 0.5


def test_spaceless_script_counts_characters() -> None:
    # "解析 hello": units 解 / 析 / hello. toy has no CJK merges, so 解 and 析 are 3 byte
    # tokens each; " hello" is [ ][hello] (no " h" merge). 8 tokens over 3 units; the space
    # token touches no unit, so only 解 and 析 are continued.
    data = ev.tokenize(toy_encoding(), ["解析 hello"])
    assert ev.fertility(data) == pytest.approx(8 / 3)
    assert ev.continued_words(data) == pytest.approx(2 / 3)
    # Forcing whitespace words: 2 words ("解析", "hello"), one continued.
    assert ev.fertility(data, units="words") == 4.0
    assert ev.continued_words(data, units="words") == 0.5
    # Forcing characters: 7 characters.
    assert ev.fertility(data, units="chars") == pytest.approx(8 / 7)


def test_words_do_not_leak_across_texts() -> None:
    # Two texts joined internally: "hello" ends one text, "world" starts the next.
    data = ev.tokenize(toy_encoding(), ["hello", "world"])
    # "world" without a leading space is w|or|l|d: 4 tokens, continued.
    assert ev.fertility(data) == 2.5
    assert ev.continued_words(data) == 0.5


def test_continued_words_match_per_word_counts_from_tiktoken() -> None:
    # Independent check: encode each text with tiktoken, map every token to the byte range
    # it covers, and count the tokens touching each whitespace word, in plain Python.
    lines = [line for line in read_lines("multilingual.txt")[:200] if line.isascii()]
    ref = tiktoken_encoding("cl100k_base")
    words = split = tokens = 0
    for line in lines:
        ids = ref.encode_ordinary(line)
        tokens += len(ids)
        bounds, at = [], 0
        for t in ids:
            n = len(ref.decode_single_token_bytes(t))
            bounds.append((at, at + n))
            at += n
        pos = 0
        for word in line.split():
            start = line.index(word, pos)
            end = start + len(word)
            pos = end
            touching = sum(1 for s, e in bounds if s < end and e > start)
            words += 1
            split += touching > 1
    data = ev.tokenize("cl100k_base", lines)
    assert ev.fertility(data, units="words") == pytest.approx(tokens / words)
    assert ev.continued_words(data, units="words") == pytest.approx(split / words)


def test_empty_of_words_is_nan() -> None:
    data = ev.tokenize(toy_encoding(), ["   \n"])
    assert ev.fertility(data) != ev.fertility(data)  # NaN
