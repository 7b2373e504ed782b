"""``tokensmith train bpe`` at scale: --engine ray and --max-memory give the local merges, and
the summary reports peak RSS."""

from __future__ import annotations

import re
from pathlib import Path

import tokensmith
from datasets_helpers import MULTILINGUAL
from tokensmith.cli.train import train_app
from typer.testing import CliRunner


def _train(tmp_path: Path, name: str, *extra: str) -> tuple[str, dict[bytes, int]]:
    out = tmp_path / f"{name}.tiktoken"
    args = ["bpe", str(MULTILINGUAL), "--vocab-size", "800", "--out", str(out), *extra]
    result = CliRunner().invoke(train_app, args)
    assert result.exit_code == 0, result.output
    return result.output, tokensmith.load(out)._mergeable_ranks


def test_max_memory_cli_gives_the_local_merges_and_reports_peak_rss(tmp_path: Path) -> None:
    output, local = _train(tmp_path, "local")
    assert re.search(r"peak RSS\s+\d+(\.\d)? (MiB|GiB)", output), output
    _, bounded = _train(tmp_path, "bounded", "--max-memory", "100KB")
    assert bounded == local


def test_ray_engine_cli_gives_the_local_merges(ray_cluster, tmp_path: Path) -> None:
    _, local = _train(tmp_path, "local")
    _, remote = _train(tmp_path, "ray", "--engine", "ray")
    assert remote == local


def test_bad_scale_options_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "x.tiktoken"
    for extra in (["--max-memory", "lots"], ["--engine", "spark"]):
        args = ["bpe", str(MULTILINGUAL), "--vocab-size", "300", "--out", str(out), *extra]
        result = CliRunner().invoke(train_app, args)
        assert result.exit_code == 2, result.output
        assert "max_memory" in result.output or "engine" in result.output
