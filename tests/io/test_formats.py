"""Saving and loading: each format round-trips, and tiktoken / HF tokenizers read our files
and give the same ids as tokensmith on every line of the committed multilingual text.

transformers is not among the test dependencies, so ``PreTrainedTokenizerFast`` is not
tested here; it reads ``tokenizer.json`` through the same ``tokenizers`` library.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import tokensmith
from tokensmith import _atomic
from tokensmith.errors import (
    InputNotFoundError,
    InvalidVocabError,
    UnknownFormatError,
    VocabFormatError,
)
from tokensmith.io import hf_json
from tokensmith.io._byte_level import merges_from_ranks

SPECIALS = ["<|endoftext|>", "<|pad|>"]


@pytest.fixture(scope="module", params=["o200k", "cl100k", "r50k"])
def trained(request: pytest.FixtureRequest, multilingual_lines: list[str]) -> tokensmith.Encoding:
    pattern = {
        "o200k": tokensmith.O200K_PATTERN,
        "cl100k": tokensmith.CL100K_PATTERN,
        "r50k": tokensmith.R50K_PATTERN,
    }[request.param]
    return tokensmith.train_bpe(
        multilingual_lines,
        vocab_size=2000,
        pat_str=pattern,
        special_tokens=SPECIALS,
        name=f"trained_{request.param}",
    )


def _same_vocab(a: tokensmith.Encoding, b: tokensmith.Encoding) -> None:
    assert a._mergeable_ranks == b._mergeable_ranks
    assert a._special_tokens == b._special_tokens
    assert a._pat_str == b._pat_str


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("out", ["v.tiktoken", "tokenizer.json", "vocab_dir"])
def test_round_trip(trained: tokensmith.Encoding, tmp_path: Path, out: str) -> None:
    path = tmp_path / out
    trained.save(path)
    loaded = tokensmith.load(path)
    _same_vocab(trained, loaded)
    assert loaded.name in (trained.name, out.split(".")[0])


def test_tiktoken_sidecar_keeps_name(trained: tokensmith.Encoding, tmp_path: Path) -> None:
    tokensmith.save(trained, tmp_path / "x.tiktoken")
    side = json.loads((tmp_path / "x.tiktoken.json").read_text(encoding="utf-8"))
    assert side["name"] == trained.name
    assert side["special_tokens"] == {"<|endoftext|>": 1998, "<|pad|>": 1999}
    assert tokensmith.load(tmp_path / "x.tiktoken").name == trained.name
    assert tokensmith.load(tmp_path / "x.tiktoken.json").name == trained.name


def test_bundled_encoding_round_trips_through_tiktoken_file(tmp_path: Path) -> None:
    enc = tokensmith.get_encoding("cl100k_base")
    enc.save(tmp_path / "cl.tiktoken")
    _same_vocab(enc, tokensmith.load(tmp_path / "cl.tiktoken"))


def test_recorded_merges_equal_merges_rebuilt_from_ranks(trained: tokensmith.Encoding) -> None:
    assert trained._bpe_merges is not None
    assert merges_from_ranks(trained._mergeable_ranks) == trained._bpe_merges


def test_merges_from_ranks_exact() -> None:
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"ab": 256, b"bc": 257, b"abc": 258, b"cab": 259})
    assert merges_from_ranks(ranks) == [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"c", b"ab")]


def test_unreachable_token_cannot_be_a_merge_list(tmp_path: Path) -> None:
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"abc"] = 256  # no "ab" or "bc" below it
    enc = tokensmith.Encoding(
        "x", pat_str=tokensmith.R50K_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    with pytest.raises(InvalidVocabError, match="abc"):
        enc.save(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


# ---------------------------------------------------------------- parity with the references


def test_tiktoken_reads_our_file(
    trained: tokensmith.Encoding,
    tmp_path: Path,
    multilingual_lines: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tiktoken  # noqa: F401
    import tiktoken.load

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # never cache a temporary path
    path = tmp_path / "t.tiktoken"
    trained.save(path)
    side = json.loads((tmp_path / "t.tiktoken.json").read_text(encoding="utf-8"))
    ref = tiktoken.Encoding(
        side["name"],
        pat_str=side["pat_str"],
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)),
        special_tokens=side["special_tokens"],
    )
    for line in multilingual_lines:
        assert ref.encode_ordinary(line) == trained.encode_ordinary(line), line
    text = "a<|endoftext|>b<|pad|>"
    assert ref.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")


def test_hf_tokenizers_read_our_tokenizer_json(
    trained: tokensmith.Encoding, tmp_path: Path, multilingual_lines: list[str]
) -> None:
    import tokenizers

    path = tmp_path / "tokenizer.json"
    trained.save(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = trained.encode_ordinary_batch(multilingual_lines, num_threads=1)
    theirs = [e.ids for e in hf.encode_batch(multilingual_lines)]
    for line, a, b in zip(multilingual_lines, ours, theirs, strict=True):
        assert a == b, line
    assert hf.decode(ours[3]) == multilingual_lines[3]
    text = "x<|endoftext|> y<|pad|>"
    assert hf.encode(text).ids == trained.encode(text, allowed_special="all")


def test_hf_tokenizers_read_our_vocab_and_merges(
    trained: tokensmith.Encoding, tmp_path: Path, multilingual_lines: list[str]
) -> None:
    import tokenizers
    from tokenizers import Regex, models, pre_tokenizers

    trained.save(tmp_path / "gpt2")
    model = models.BPE.from_file(
        str(tmp_path / "gpt2" / "vocab.json"), str(tmp_path / "gpt2" / "merges.txt")
    )
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_json.oniguruma_pattern(trained._pat_str)), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    theirs = [e.ids for e in hf.encode_batch(multilingual_lines)]
    assert theirs == trained.encode_ordinary_batch(multilingual_lines, num_threads=1)


def test_load_gpt2_style_directory_without_sidecar(
    trained: tokensmith.Encoding, tmp_path: Path
) -> None:
    trained.save(tmp_path / "d")
    os.unlink(tmp_path / "d" / "tokensmith.json")
    loaded = tokensmith.load(tmp_path / "d")
    assert loaded._mergeable_ranks == trained._mergeable_ranks
    assert loaded._special_tokens == trained._special_tokens
    assert loaded._pat_str == tokensmith.R50K_PATTERN


# ---------------------------------------------------------------- errors and atomicity


def test_unknown_suffix_names_the_formats(trained: tokensmith.Encoding, tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError, match=r"\.tiktoken"):
        trained.save(tmp_path / "x.bin")


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="nope.json"):
        tokensmith.load(tmp_path / "nope.json")


def test_tokenizer_json_of_another_model_loads_as_a_tokenizer(tmp_path: Path) -> None:
    path = tmp_path / "wp.json"
    model = {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hi": 1}}
    path.write_text(json.dumps({"model": model}), encoding="utf-8")
    tok = tokensmith.load(path)
    assert isinstance(tok, tokensmith.Tokenizer)
    assert tok.encode("hi").ids == [1]
    del model["unk_token"]
    path.write_text(json.dumps({"model": model}), encoding="utf-8")
    with pytest.raises(tokensmith.TokenizerJsonError) as info:
        tokensmith.load(path)
    assert info.value.json_path == "model.unk_token"


def test_merges_out_of_id_order_load_as_a_tokenizer(
    trained: tokensmith.Encoding, tmp_path: Path
) -> None:
    """An Encoding needs ids in merge order; HF runs the merge list as it is, and so does the
    Tokenizer that load() gives (HF's ids are checked in tests/conversion)."""
    path = tmp_path / "t.json"
    trained.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    merges = data["model"]["merges"]
    merges[0], merges[1] = merges[1], merges[0]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert isinstance(tokensmith.load(path), tokensmith.Tokenizer)
    with pytest.raises(VocabFormatError, match="merge order"):
        hf_json.read(path, name="t")


def test_failed_write_leaves_no_partial_file(tmp_path: Path) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"first half\n"
        raise KeyboardInterrupt  # as Ctrl-C would, midway

    with pytest.raises(KeyboardInterrupt):
        _atomic.atomic_write(tmp_path / "out.tiktoken", chunks())
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_the_old_file(
    trained: tokensmith.Encoding, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text("old", encoding="utf-8")

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        trained.save(path, overwrite=True)
    assert path.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokenizer.json"]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_bundled_encoding_as_tokenizer_json(
    name: str, tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """Merges rebuilt from tiktoken's ranks give tiktoken's ids in HF tokenizers."""
    import tokenizers

    enc = tokensmith.get_encoding(name)
    enc.save(tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    theirs = [e.ids for e in hf.encode_batch(multilingual_lines)]
    assert theirs == enc.encode_ordinary_batch(multilingual_lines, num_threads=1)
    _same_vocab(enc, tokensmith.load(tmp_path / "tokenizer.json"))


def test_gpt2_style_tokenizer_json_loads_with_r50k_pattern(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """HF's ByteLevel(use_regex=true) splits as r50k does: same ids after loading."""
    import tokenizers

    enc = tokensmith.train_bpe(multilingual_lines, vocab_size=1000, pat_str=tokensmith.R50K_PATTERN)
    path = tmp_path / "gpt2.json"
    data = hf_json.to_dict(enc)
    data["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False,
                             "trim_offsets": True, "use_regex": True}  # fmt: skip
    data["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True,
                              "trim_offsets": False, "use_regex": True}  # fmt: skip
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = tokensmith.load(path)
    _same_vocab(enc, loaded)
    hf = tokenizers.Tokenizer.from_file(str(path))
    theirs = [e.ids for e in hf.encode_batch(multilingual_lines)]
    assert theirs == loaded.encode_ordinary_batch(multilingual_lines, num_threads=1)


def test_load_tokenizer_json_trained_by_hf(tmp_path: Path, multilingual_lines: list[str]) -> None:
    """A file written by HF tokenizers itself (HF's ids, HF's merges) loads with HF's ids."""
    import tokenizers
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE())
    pattern = hf_json.oniguruma_pattern(tokensmith.CL100K_PATTERN)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=800,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    hf.train_from_iterator(multilingual_lines, trainer)
    path = tmp_path / "hf.json"
    hf.save(str(path))
    enc = tokensmith.load(path)
    assert enc._pat_str == tokensmith.CL100K_PATTERN
    assert enc._special_tokens == {"<|endoftext|>": 0}
    theirs = [e.ids for e in hf.encode_batch(multilingual_lines)]
    assert theirs == enc.encode_ordinary_batch(multilingual_lines, num_threads=1)
