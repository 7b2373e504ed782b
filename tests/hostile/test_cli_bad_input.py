"""Every command of the CLI, given bad input, exits with 2 (usage) or 1 (failure) and a
message, never a traceback."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
import typer
from tokensmith.cli import app
from typer.testing import CliRunner

DATA = Path(__file__).parent.parent / "data"
CORPUS = str(DATA / "code.txt")
MISSING = "/nonexistent/corpus.txt"

CASES = [
    ["quickstart", "--no-such-option"],
    ["compare", "no-such-tokenizer", "--corpus", CORPUS],
    ["compare", "o200k_base", "--corpus", MISSING],
    ["show", "strawberry", "-t", "no-such-tokenizer"],
    ["chat-cost", "-t", "no-such-tokenizer"],
    ["chat-cost", "-t", "cl100k_base", "--template", "{{ 1 / 0 }}"],
    ["encode-dataset", MISSING, "-t", "o200k_base", "-o", "{tmp}/shards"],
    ["encode-dataset", CORPUS, "-t", "no-such-tokenizer", "-o", "{tmp}/shards"],
    ["speed", "--rounds", "-1"],
    ["encode", "hello", "-e", "no-such-encoding"],
    ["train", "bpe", MISSING, "-v", "300", "-o", "{tmp}/x.json"],
    ["train", "bpe", CORPUS, "-v", "many", "-o", "{tmp}/x.json"],
    ["train", "bpe", CORPUS, "-v", "300", "-o", "{tmp}/x.model"],
    ["train", "bpe", CORPUS, "-v", "300", "-o", "{tmp}/x.json", "--pattern", "(unclosed"],
    ["train", "unigram", MISSING, "-v", "30", "-o", "{tmp}/x.model"],
    ["train", "unigram", CORPUS, "-v", "30", "-o", "{tmp}/x.model", "--input-format", "csv"],
    ["train", "wordpiece", MISSING, "-v", "100", "-o", "{tmp}/wp"],
    ["convert", "no-such-tokenizer", "{tmp}/out.json"],
    ["convert", "cl100k_base", "{tmp}/out.unknown-format"],
    ["convert", "{tmp}/corrupt.json", "{tmp}/out.tiktoken"],
    ["fingerprint", "no-such-tokenizer"],
    ["fingerprint", "{tmp}/corrupt.json"],
    ["diff", "no-such-tokenizer", "cl100k_base"],
    ["diff", "cl100k_base", "{tmp}/corrupt.json"],
    ["serve", "--port", "99999"],
    ["serve", "--host", "0.0.0.0"],
    ["serve", "--dir", "/nonexistent/folder"],
    ["serve", "no-such-tokenizer"],
]


def _command_names(group: click.Command, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    names = set()
    for name, command in getattr(group, "commands", {}).items():
        if getattr(command, "commands", None):
            names |= _command_names(command, (*prefix, name))
        else:
            names.add((*prefix, name))
    return names


def test_every_command_has_a_bad_input_case():
    commands = _command_names(typer.main.get_group(app))
    assert {("serve",), ("train", "bpe"), ("train", "unigram")} <= commands
    covered = {tuple(args[:2]) if args[0] == "train" else (args[0],) for args in CASES}
    assert commands - covered == set()


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a[:3]))
def test_bad_input_gives_an_exit_code_and_no_traceback(tmp_path, args):
    (tmp_path / "corrupt.json").write_text('{"model": {"type": "BPE", "vocab": [', "utf-8")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(app, argv)
    # An exception the command did not handle would print a traceback in a real run.
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception),
        result.output,
    )
    assert result.exit_code in (1, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.output.strip(), "a failure must say what went wrong"
