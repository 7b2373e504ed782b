"""Shared helpers of the dataset tests: a tiny byte-level encoding and output comparison."""

from __future__ import annotations

from pathlib import Path

import tokensmith

DATA = Path(__file__).parent.parent / "data"
MULTILINGUAL = DATA / "multilingual.txt"


def byte_encoding() -> tokensmith.Encoding:
    """257 tokens (the 256 bytes and <|endoftext|>): small enough for uint16 shards."""
    return tokensmith.Encoding(
        "bytes257",
        pat_str=tokensmith.CL100K_PATTERN,
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={"<|endoftext|>": 256},
    )


def shard_bytes(out: Path) -> dict[str, bytes]:
    """Every shard file of an output directory, by name (the manifest is left out)."""
    return {p.name: p.read_bytes() for p in sorted(out.glob("shard_*"))}


def lines(path: Path = MULTILINGUAL) -> list[str]:
    """The documents a text file gives in line mode."""
    text = path.read_text(encoding="utf-8")
    return [line.rstrip("\r\n") for line in text.splitlines() if line.rstrip("\r\n")]
