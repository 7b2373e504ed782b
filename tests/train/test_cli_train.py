"""``tokensmith train bpe``: trains from files, saves every format, and reports bad input."""

from __future__ import annotations

import gzip
from pathlib import Path

import tokensmith
from tokensmith.cli.train import train_app
from typer.testing import CliRunner

DATA = Path(__file__).parent.parent / "data"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(train_app, ["bpe", *args])
    return result.exit_code, result.output


def test_trains_and_writes_tokenizer_json(tmp_path: Path, multilingual_lines: list[str]) -> None:
    out = tmp_path / "tok.json"
    code, output = _run(
        str(DATA / "multilingual.txt"),
        "--vocab-size", "500",
        "--out", str(out),
        "--special-token", "<|endoftext|>",
        "-s", "<|pad|>",
    )  # fmt: skip
    assert code == 0, output
    assert "trained 'tok': 500 tokens from 1 files, 5,280 lines" in output
    assert f"wrote {out}" in output
    enc = tokensmith.load(out)
    same = tokensmith.train_bpe(
        multilingual_lines, vocab_size=500, special_tokens=["<|endoftext|>", "<|pad|>"]
    )
    assert enc._mergeable_ranks == same._mergeable_ranks
    assert enc._special_tokens == {"<|endoftext|>": 498, "<|pad|>": 499}


def test_directory_gets_every_format_and_pattern_by_name(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "a.txt.gz", "wb") as f:
        f.write((DATA / "code.txt").read_bytes())
    out = tmp_path / "mytok"
    code, output = _run(
        str(tmp_path / "*.gz"), "--vocab-size", "300", "--out", str(out), "--pattern", "cl100k"
    )
    assert code == 0, output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "merges.txt",
        "mytok.tiktoken",
        "mytok.tiktoken.json",
        "tokenizer.json",
        "tokensmith.json",
        "vocab.json",
    ]
    encs = [tokensmith.load(out / n) for n in ("tokenizer.json", "mytok.tiktoken")]
    encs.append(tokensmith.load(out))
    for enc in encs:
        assert enc.n_vocab == 300 and enc._pat_str == tokensmith.CL100K_PATTERN
        assert enc._mergeable_ranks == encs[0]._mergeable_ranks


def test_invalid_utf8_is_counted_or_stops_strict(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 caf\xe9\n" * 3)
    code, output = _run(str(tmp_path / "bad.txt"), "-v", "258", "-o", str(tmp_path / "t.json"))
    assert code == 0, output
    assert "replaced 6 invalid UTF-8 sequences" in output
    code, output = _run(
        str(tmp_path / "bad.txt"), "-v", "258", "-o", str(tmp_path / "u.json"), "--strict-utf8"
    )
    assert code == 2
    assert "bad.txt:1: invalid UTF-8 at byte offset 3" in output
    assert not (tmp_path / "u.json").exists()


def test_missing_file_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    code, output = _run(str(tmp_path / "nope.txt"), "-v", "300", "-o", str(tmp_path / "t.json"))
    assert code == 2
    assert "nope.txt: no such file" in output
    assert list(tmp_path.iterdir()) == []


def test_vocab_size_too_small_for_specials(tmp_path: Path) -> None:
    code, output = _run(
        str(DATA / "code.txt"), "-v", "256", "-o", str(tmp_path / "t.json"), "-s", "<s>"
    )
    assert code == 2
    assert "vocab_size >= 257" in output


def test_registered_as_tokensmith_train(tmp_path: Path) -> None:
    from tokensmith.cli import app

    out = tmp_path / "t.tiktoken"
    args = ["train", "bpe", str(DATA / "code.txt"), "--vocab-size", "300", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert tokensmith.load(out).n_vocab == 300


def test_kind_char_and_metaspace_write_tokenizer_json(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    metaspace_options = ["--byte-fallback", "--split-digits", "groups"]
    for kind, extra in (("char", []), ("metaspace", metaspace_options)):
        code, output = _run(
            str(DATA / "multilingual.txt"),
            "--kind", kind,
            "--vocab-size", "4000",
            "--limit-alphabet", "700",
            "--out", str(tmp_path / kind),
            *extra,
        )  # fmt: skip
        assert code == 0, output
        assert f"wrote {tmp_path / kind / 'tokenizer.json'}" in output
        loaded = tokensmith.load(tmp_path / kind / "tokenizer.json")
        assert isinstance(loaded, tokensmith.Tokenizer)
        options = {"byte_fallback": True, "split_digits": "groups"} if extra else {}
        same = tokensmith.train_bpe(
            multilingual_lines, kind=kind, vocab_size=4000, limit_alphabet=700, **options
        )
        assert loaded.to_str() == same.to_str()


def test_base_extends_a_bundled_vocabulary(tmp_path: Path) -> None:
    out = tmp_path / "ext.tiktoken"
    code, output = _run(
        str(DATA / "code.txt"), "--base", "cl100k_base", "--vocab-size", "100300",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    ext = tokensmith.load(out)
    assert isinstance(ext, tokensmith.Encoding)
    base = tokensmith.get_encoding("cl100k_base")
    assert ext.n_vocab == 100300
    assert ext._mergeable_ranks.items() >= base._mergeable_ranks.items()


def test_kind_options_are_checked(tmp_path: Path) -> None:
    code, output = _run(
        str(DATA / "code.txt"), "--kind", "word", "--vocab-size", "300", "--out", str(tmp_path)
    )
    assert code == 2 and "--kind word" in output
    code, output = _run(
        str(DATA / "code.txt"), "--kind", "char", "--base", "cl100k_base",
        "--vocab-size", "300", "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 2 and "--base is for --kind byte" in output
    assert list(tmp_path.iterdir()) == []


def test_json_summary(tmp_path: Path) -> None:
    import json

    out = tmp_path / "tok.json"
    result = CliRunner().invoke(
        train_app,
        ["bpe", str(DATA / "multilingual.txt"), "-v", "400", "-o", str(out), "--json"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    text = (DATA / "multilingual.txt").read_bytes()
    assert summary["vocab_size"] == tokensmith.load(out).n_vocab == 400
    assert summary["lines"] == text.count(b"\n") and summary["bytes"] == len(text)
    assert summary["written"] == [str(out)] and summary["peak_rss_bytes"] > 0
