"""The encode-dataset command wires the job to the CLI, with exit codes for refusals."""

from __future__ import annotations

from pathlib import Path

import tokensmith
from tokensmith.cli import app
from tokensmith.data import IndexedDataset
from typer.testing import CliRunner

DATA = Path(__file__).resolve().parents[1] / "data"


def test_encode_dataset_command_writes_readable_shards(tmp_path):
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:200]
    src = tmp_path / "docs.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "shards"
    args = ["encode-dataset", str(src), "-t", "o200k_base", "-o", str(out), "--append-eos"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    enc = tokensmith.get_encoding("o200k_base")
    ds = IndexedDataset(str(sorted(out.glob("*.idx"))[0].with_suffix("")))
    kept = [line for line in lines if line.strip()]
    assert len(ds) == len(kept)
    assert ds[0].tolist() == enc.encode_ordinary(kept[0]) + [enc.eot_token]
    # A second job with other options is refused without --overwrite.
    again = CliRunner().invoke(app, [*args[:-1], "--format", "npy"])
    assert again.exit_code == 2


def test_invalid_utf8_stops_or_is_replaced_and_counted(tmp_path):
    src = tmp_path / "bad.txt"
    src.write_bytes(b"fine\ncaf\xe9 ok\n")
    args = ["encode-dataset", str(src), "-t", "cl100k_base", "--format", "npy"]
    strict = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "s")])
    assert strict.exit_code == 2 and "invalid UTF-8 at byte offset 8" in strict.output
    replaced = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "r"), "--replace-invalid-utf8"])
    assert replaced.exit_code == 0, replaced.output
    assert "1 sequences replaced with U+FFFD" in replaced.output
    assert "peak RSS" in replaced.output


def test_json_summary_counts_what_the_shards_hold(tmp_path):
    import json

    lines = [t for t in (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines() if t]
    src = tmp_path / "docs.txt"
    src.write_text("\n".join(lines[:300]) + "\n", encoding="utf-8")
    out = tmp_path / "shards"
    args = ["encode-dataset", str(src), "-t", "cl100k_base", "-o", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    enc = tokensmith.get_encoding("cl100k_base")
    ds = IndexedDataset(str(sorted(out.glob("*.idx"))[0].with_suffix("")))
    assert summary["documents"] == len(ds) == 300
    assert summary["tokens"] == sum(len(enc.encode_ordinary(t)) for t in lines[:300])
