"""``tokensmith chat-cost``: how many tokens a chat template adds per turn.

>>> from typer.testing import CliRunner
>>> app = typer.Typer()
>>> _ = app.command()(chat_cost)
>>> result = CliRunner().invoke(app, ["--template", "chatml", "--json"])
>>> import json; json.loads(result.output)["templates"][0]["template"]
'chatml'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tokensmith.chat import BUILTIN_TEMPLATES
from tokensmith.chat.cost import ChatCost, template_cost
from tokensmith.cli.errors import user_errors
from tokensmith.errors import ChatTemplateError

__all__ = ["chat_cost", "sample_conversation"]


def sample_conversation() -> list[dict[str, str]]:
    """A system message and three exchanges, from the real text bundled with the package."""
    from importlib import resources

    text = resources.files("tokensmith").joinpath("data/sample_multilingual.txt")
    lines = [line for line in text.read_text(encoding="utf-8").splitlines() if line.strip()]
    roles = ["system"] + ["user", "assistant"] * 3
    return [{"role": role, "content": lines[i]} for i, role in enumerate(roles)]


def _read_messages(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ChatTemplateError(f"{path}: not JSON ({e})") from None
    if isinstance(data, dict):
        data = data.get("messages")
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise ChatTemplateError(f"{path}: expected a list of messages or {{'messages': [...]}}")
    return data


def _load_encoding(spec: str) -> Any:
    import tokensmith

    return tokensmith.load(spec)


def _as_dict(cost: ChatCost) -> dict[str, Any]:
    return {
        "template": cost.template,
        "messages": cost.messages,
        "content_tokens": cost.content_tokens,
        "total_tokens": cost.total_tokens,
        "template_tokens": cost.template_tokens,
        "per_message": cost.per_message,
        "generation_prompt": cost.generation_prompt,
        "overhead_share": cost.overhead_share,
        "added_tokens": list(cost.added_tokens),
    }


def chat_cost(
    tokenizer: Annotated[
        str,
        typer.Option(
            "--tokenizer", "-t", help="An encoding name or a .tiktoken / tokenizer.json file."
        ),
    ] = "o200k_base",
    template: Annotated[
        list[str] | None,
        typer.Option("--template", help="A built-in template; repeat for more [all]."),
    ] = None,
    messages: Annotated[
        Path | None,
        typer.Option(help="A JSON file with a conversation [a bundled sample of 7 messages]."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Count the tokens each chat template adds around the messages, paid on every request.

    Example: tokensmith chat-cost -t cl100k_base --template chatml --template llama3
    """
    with user_errors():
        enc = _load_encoding(tokenizer)
        conversation = _read_messages(messages) if messages else sample_conversation()
        names = template or sorted(BUILTIN_TEMPLATES)
        costs = [template_cost(enc, name, conversation) for name in names]
    if as_json:
        doc = {"tokenizer": enc.name, "templates": [_as_dict(c) for c in costs]}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"chat template overhead with {enc.name}, {len(conversation)} messages")
    for column in ("template", "content", "total", "template adds", "per message", "gen. prompt"):
        table.add_column(column, justify="left" if column == "template" else "right")
    for c in costs:
        table.add_row(
            c.template,
            f"{c.content_tokens:,}",
            f"{c.total_tokens:,}",
            f"{c.template_tokens:,} ({c.overhead_share:.1%})",
            f"{c.per_message:.1f}",
            str(c.generation_prompt),
        )
    console = Console()
    console.print(table)
    added = sorted({t for c in costs for t in c.added_tokens})
    if added:
        console.print(
            f"{enc.name} lacks {', '.join(added)}: counted as one special token each, as in the "
            "models these templates belong to.",
            highlight=False,
            markup=False,
        )
