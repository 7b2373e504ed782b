"""The tiktoken-shaped API: custom encodings, threads, worst-case inputs, bundled files."""

from __future__ import annotations

import gzip
import hashlib
import inspect
import re
import threading
from pathlib import Path

import numpy as np
import pytest
import tiktoken
import tokensmith
from tokensmith.registry import BUNDLED, vocab_path


def test_bundled_vocab_sha256_matches_tiktoken():
    # The expected sums are read from tiktoken's own source, not copied here.
    import tiktoken_ext.openai_public as public

    source = inspect.getsource(public)
    for filename in {spec.file for spec in BUNDLED.values()}:
        stem = filename.removesuffix(".tiktoken.gz")
        match = re.search(stem + r'\.tiktoken",\s*expected_hash="([0-9a-f]{64})"', source)
        assert match, stem
        data = gzip.decompress(Path(str(vocab_path(filename))).read_bytes())
        assert hashlib.sha256(data).hexdigest() == match.group(1)


def test_custom_encoding_matches_tiktoken():
    ranks = {bytes([b]): b for b in range(256)}
    for i, tok in enumerate([b"ab", b"abab", b" a", b"cd"]):
        ranks[tok] = 256 + i
    kwargs = {"pat_str": r"\s?\w+|\S", "mergeable_ranks": ranks, "special_tokens": {"<|x|>": 300}}
    ours = tokensmith.Encoding("toy", **kwargs)
    ref = tiktoken.Encoding("toy", **kwargs)
    for text in ["ababab cd a", "abab<|x|>cd", "", "  ab!"]:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.n_vocab == ref.n_vocab == 301


def test_load_tiktoken_reads_plain_and_gzip(tmp_path):
    plain = tmp_path / "cl.tiktoken"
    plain.write_bytes(
        gzip.decompress(Path(str(vocab_path("cl100k_base.tiktoken.gz"))).read_bytes())
    )
    enc = tokensmith.load_tiktoken(plain, pat_str=tokensmith.CL100K_PATTERN)
    bundled = tokensmith.get_encoding("cl100k_base")
    text = "Loading any file works: 12345 ünïcödé"
    assert enc.encode_ordinary(text) == bundled.encode_ordinary(text)
    assert tokensmith.load_tiktoken_bpe(plain) == bundled._mergeable_ranks


def test_many_python_threads_share_one_encoding(multilingual_lines):
    enc = tokensmith.get_encoding("o200k_base")
    expected = [enc.encode_ordinary(line) for line in multilingual_lines]
    results: dict[int, list[list[int]]] = {}

    def work(k: int) -> None:
        results[k] = [enc.encode_ordinary(line) for line in multilingual_lines]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(4))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        " " * 1_000_000,
        "\n" * 300_000 + "x",
        "中" * 300_000,
        "1" * 1_000_000,
        "A" * 200_000 + "a",
        "\u0301" * 200_000,
    ],
    ids=["a", "spaces", "newlines", "cjk", "digits", "upper-lower", "marks"],
)
def test_worst_case_inputs_round_trip(name, text):
    # tiktoken itself panics on a megabyte of spaces under o200k_base; we must not.
    enc = tokensmith.get_encoding(name)
    ids = enc.encode_ordinary(text)
    assert enc.decode(ids) == text
    assert enc.count(text) == len(ids)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_long_runs_match_tiktoken(name):
    from tokensmith.reference import tiktoken_encoding

    ours, ref = tokensmith.get_encoding(name), tiktoken_encoding(name)
    for text in ["a" * 20_000, "中文" * 5_000, "ab" * 10_000 + " x", " " * 5_000 + "y"]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_surrogates_follow_tiktoken():
    from tokensmith.reference import tiktoken_encoding

    ours, ref = tokensmith.get_encoding("cl100k_base"), tiktoken_encoding("cl100k_base")
    for text in ["\ud83d\ude00", "a\ud800b", "\udfff", "x\ud83dy\ude00"]:
        assert ours.encode(text) == ref.encode(text)
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
        assert ours.encode_ordinary_batch([text, "ok"]) == ref.encode_ordinary_batch([text, "ok"])


def test_encode_to_numpy_is_uint32():
    arr = tokensmith.get_encoding("o200k_base").encode_to_numpy("hello world")
    assert arr.dtype == np.uint32 and arr.tolist() == tokensmith.get_encoding("o200k_base").encode(
        "hello world"
    )


def test_encode_to_numpy_returns_a_new_array_each_call():
    enc = tokensmith.get_encoding("cl100k_base")
    first = enc.encode_to_numpy("hello world")
    second = enc.encode_to_numpy("goodbye")
    # Each call's array owns its ids: a later call, or writing to one, leaves the other alone.
    assert first.flags.owndata and first.flags.c_contiguous and first.ndim == 1
    second[:] = 0
    assert first.tolist() == enc.encode("hello world")
    empty = enc.encode_to_numpy("")
    assert empty.dtype == np.uint32 and empty.shape == (0,)


def test_list_encoding_names():
    names = tokensmith.list_encoding_names()
    assert {"cl100k_base", "o200k_base"} <= set(names)
    for name in names:
        assert tokensmith.get_encoding(name).name == name


def test_pickling_round_trips():
    import pickle

    bundled = tokensmith.get_encoding("cl100k_base")
    assert pickle.loads(pickle.dumps(bundled)) is bundled
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    custom = tokensmith.Encoding(
        "toy", pat_str=r"\w+|\s+|.", mergeable_ranks=ranks, special_tokens={"<e>": 257}
    )
    back = pickle.loads(pickle.dumps(custom))
    text = "abab ba<e>"
    assert back.encode(text, allowed_special="all") == custom.encode(text, allowed_special="all")
    assert (back.name, back.n_vocab) == ("toy", 258)


def test_encodings_cross_process_boundaries():
    # multiprocessing pickles the encoding into each worker process.
    from concurrent.futures import ProcessPoolExecutor

    enc = tokensmith.get_encoding("o200k_base")
    texts = ["hello world", "中文 text", "x" * 1000]
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(enc.encode_ordinary, texts))
    assert results == [enc.encode_ordinary(t) for t in texts]
