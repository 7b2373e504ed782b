"""The compare, show and quickstart commands, run in-process through typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from html_checks import decode_png, parse_report
from tokensmith.cli import app
from tokensmith.report import validate_report_json
from typer.testing import CliRunner, Result

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("hello world\n\nThe year 2024.\n", encoding="utf-8")
    par = tmp_path / "parallel"
    par.mkdir()
    (par / "de.tsv").write_text("Open file\tDatei öffnen\nSave\tSpeichern\n", encoding="utf-8")
    (par / "sw.tsv").write_text("", encoding="utf-8")
    return tmp_path


def test_compare_writes_json_and_html_and_reports_languages_without_data(
    corpus_dir: Path,
) -> None:
    out = corpus_dir / "out"
    result = run(
        "compare",
        "o200k_base",
        "cl100k_base",
        "--corpus",
        str(corpus_dir / "notes.txt"),
        "--parallel",
        str(corpus_dir / "parallel"),
        "--out",
        str(out),
        "--no-sweep",
    )
    assert result.exit_code == 0, result.output
    assert "o200k_base" in result.stdout and "cl100k_base" in result.stdout
    assert "no data for sw" in " ".join(result.output.split())
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert validate_report_json(doc) == []
    assert set(doc["results"]["o200k_base"]) == {"notes.txt", "parallel"}
    assert set(doc["results"]["o200k_base"]["parallel"]) == {"en", "de", "sw"}
    assert doc["missing"]["parallel"] == ["sw"]
    images, _ = parse_report((out / "report.html").read_text(encoding="utf-8"))
    assert images
    for src in images:
        decode_png(src)


def test_compare_json_to_stdout_and_to_a_file(corpus_dir: Path) -> None:
    notes = str(corpus_dir / "notes.txt")
    out = str(corpus_dir / "out")
    result = run("compare", "cl100k_base", "-c", notes, "-o", out, "--json", "-", "--no-sweep")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert validate_report_json(doc) == []
    assert doc["results"]["cl100k_base"]["notes.txt"]["all"]["n_texts"] == 2.0
    target = corpus_dir / "r.json"
    result = run("compare", "cl100k_base", "-c", notes, "-o", out, "--json", str(target))
    # report.html is there from the first run.
    assert result.exit_code == 2 and "--overwrite" in result.output
    result = run(
        "compare", "cl100k_base", "-c", notes, "-o", out, "--json", str(target), "--overwrite"
    )
    assert result.exit_code == 0, result.output
    assert validate_report_json(json.loads(target.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "no_such_tokenizer", "-c", "{notes}"], "no_such_tokenizer"),
        (["compare", "o200k_base", "-c", "{dir}/missing.txt"], "no such corpus file"),
        (["compare", "o200k_base", "-c", "{dir}/empty.txt"], "holds no text"),
        (["compare", "o200k_base", "-p", "{dir}/nowhere"], "no such parallel corpus"),
        (["compare", "o200k_base"], "at least one --corpus"),
        (["compare", "{dir}/tok.tiktoken", "-c", "{notes}"], "no such tokenizer file"),
        (["show", "hi", "-t", "no_such_tokenizer"], "no_such_tokenizer"),
    ],
)
def test_bad_input_exits_2_with_a_message(corpus_dir: Path, args: list[str], message: str) -> None:
    (corpus_dir / "empty.txt").write_text("\n  \n", encoding="utf-8")
    filled = [a.format(dir=corpus_dir, notes=corpus_dir / "notes.txt") for a in args]
    if filled[0] == "compare":
        # Not the working directory, where an earlier report would stop the run first.
        filled += ["-o", str(corpus_dir / "report-out")]
    result = runner.invoke(app, filled)
    assert result.exit_code == 2, result.output
    assert "error:" in result.stderr
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


def test_show_explains_why_letters_cannot_be_counted() -> None:
    result = run("show", "strawberry", "-t", "cl100k_base")
    assert result.exit_code == 0, result.output
    assert "3 tokens for 10 characters" in result.stdout
    assert "'str'" in result.stdout and "'berry'" in result.stdout
    assert "'r' occurs 3 times" in " ".join(result.stdout.split())


def test_show_json() -> None:
    result = run("show", "strawberry", "-t", "cl100k_base", "-t", "o200k_base", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    cl = doc["tokenizers"]["cl100k_base"]
    assert cl["n_tokens"] == 3
    assert [p["text"] for p in cl["pieces"]] == ["str", "aw", "berry"]
    assert [p["ids"] for p in cl["pieces"]] == [[496], [675], [15717]]


def test_quickstart_trains_compares_and_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = run("quickstart", "--out", str(out), "--vocab-size", "3000", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert validate_report_json(doc) == []
    assert list(doc["tokenizers"]) == [
        "bpe-3000 (trained)",
        "unigram-3000 (trained)",
        "o200k_base",
        "cl100k_base",
    ]
    assert doc["tokenizers"]["bpe-3000 (trained)"]["vocab_size"] == 3000
    assert doc["tokenizers"]["unigram-3000 (trained)"]["vocab_size"] == 3000
    parallel = doc["results"]["o200k_base"]["parallel sample"]
    assert len(parallel) == 16  # English and the 15 bundled languages
    assert any("Unigram" in note for note in doc["notes"])
    # The trained tokenizers are saved, and read back they give the ids the report measured.
    import sentencepiece
    from tokenizers import Tokenizer

    text = "Quickstart tokenizers, read back: ¿qué tal? 東京"
    bpe = Tokenizer.from_file(str(out / "bpe.json"))
    assert bpe.get_vocab_size() == 3000
    assert tokensmith.load(out / "bpe.json").encode(text) == bpe.encode(text).ids
    spm = sentencepiece.SentencePieceProcessor(model_file=str(out / "unigram.model"))
    assert spm.get_piece_size() == 3000
    ours = tokensmith.SentencePieceProcessor(model_file=str(out / "unigram.model"))
    assert ours.encode(text) == spm.encode(text)
    images, _ = parse_report((out / "report.html").read_text(encoding="utf-8"))
    assert len(images) == 4
    for src in images:
        decode_png(src)


def test_help_lists_every_command_with_an_example() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in ("speed", "encode", "quickstart", "compare", "show", "chat-cost"):
        assert command in result.stdout
    for command in ("quickstart", "compare", "show", "encode", "chat-cost"):
        sub = run(command, "--help")
        assert sub.exit_code == 0
        assert "Example: tokensmith " + command in " ".join(sub.stdout.split()), command
