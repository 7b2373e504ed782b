"""``template_cost`` and ``tokensmith chat-cost``: counts checked against a direct count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from tokensmith.chat.cost import template_cost
from tokensmith.cli import app
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def messages() -> list[dict[str, str]]:
    lines = [t for t in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines() if t]
    roles = ["system", "user", "assistant", "user", "assistant"]
    return [{"role": r, "content": lines[200 + i]} for i, r in enumerate(roles)]


def test_chatml_cost_equals_a_count_by_hand(messages: list[dict[str, str]]) -> None:
    enc = tokensmith.get_encoding("cl100k_base")
    cost = template_cost(enc, "chatml", messages)
    # Each message renders as <|im_start|> ROLE\nCONTENT <|im_end|> \n; the two control tokens
    # are one token each and cut the text, so the rest is encoded piece by piece.
    by_hand = sum(
        2 + len(enc.encode_ordinary(m["role"] + "\n" + m["content"])) + len(enc.encode("\n"))
        for m in messages
    )
    assert cost.total_tokens == by_hand
    assert cost.content_tokens == sum(len(enc.encode_ordinary(m["content"])) for m in messages)
    assert cost.generation_prompt == 1 + len(enc.encode_ordinary("assistant\n"))
    assert cost.added_tokens == ("<|im_start|>", "<|im_end|>")
    assert cost.per_message == pytest.approx(cost.template_tokens / len(messages))


def test_cli_json_matches_the_library(tmp_path: Path, messages: list[dict[str, str]]) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["chat-cost", "-t", "o200k_base", "--messages", str(path), "--json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    enc = tokensmith.get_encoding("o200k_base")
    assert [t["template"] for t in doc["templates"]] == [
        "chatml",
        "gemma",
        "llama2",
        "llama3",
        "mistral",
    ]
    for row in doc["templates"]:
        cost = template_cost(enc, row["template"], messages)
        assert row["total_tokens"] == cost.total_tokens
        assert row["template_tokens"] == cost.total_tokens - cost.content_tokens


def test_cli_errors_exit_2_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for args, message in [
        # The whole path, unbroken: error messages are never wrapped, whatever their length.
        (["--messages", str(bad)], f"{bad}: not JSON"),
        (["--template", "vicuna"], "unknown chat template 'vicuna'"),
        (["-t", "o300k_base"], "o300k_base"),
    ]:
        result = CliRunner().invoke(app, ["chat-cost", *args])
        assert result.exit_code == 2
        assert message in result.output
