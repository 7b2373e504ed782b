"""The job manifest: what a run was asked to do, and which shards it has finished.

``manifest.json`` in the output directory is rewritten atomically after every finished shard.
It is the only record of progress: a shard file that the manifest does not list is treated
as unfinished and written again. Its ``job`` part (inputs with sizes and mtimes, tokenizer,
format, options) decides whether a rerun resumes (same job) or is refused (another job).

>>> job = {"format": "npy"}
>>> m = Manifest(job=job)
>>> m.add_shard(ShardRecord(0, 0, 2, 10, {"shard_00000.tokens.npy": "ab"}))
>>> Manifest.from_json(m.to_json()).next_document
2
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tokensmith._atomic import atomic_write
from tokensmith.errors import DatasetFormatError, InvalidArgumentError

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class ShardRecord:
    """One finished shard: its number, documents ``[first_document, +documents)``, tokens
    written (BOS/EOS included), the SHA-256 of each file, and the UTF-8 bytes of its text."""

    index: int
    first_document: int
    documents: int
    tokens: int
    sha256: dict[str, str]
    text_bytes: int = 0


@dataclass
class Manifest:
    job: dict[str, Any]
    shards: list[ShardRecord] = field(default_factory=list)
    complete: bool = False
    summary: dict[str, Any] | None = None

    @property
    def next_document(self) -> int:
        """The global index of the first document no finished shard holds."""
        if not self.shards:
            return 0
        last = self.shards[-1]
        return last.first_document + last.documents

    def add_shard(self, record: ShardRecord) -> None:
        self.shards.append(record)

    def to_json(self) -> str:
        body = {
            "tokensmith_manifest": MANIFEST_VERSION,
            "job": self.job,
            "shards": [asdict(s) for s in self.shards],
            "complete": self.complete,
            "summary": self.summary,
        }
        return json.dumps(body, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "manifest") -> Manifest:
        try:
            body = json.loads(text)
            if body.get("tokensmith_manifest") != MANIFEST_VERSION:
                raise InvalidArgumentError("not a tokensmith manifest of version 1")
            shards = [ShardRecord(**s) for s in body["shards"]]
            return cls(body["job"], shards, bool(body["complete"]), body.get("summary"))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise DatasetFormatError(f"{where}: unreadable manifest ({e})") from e

    def save(self, out_dir: Path) -> None:
        atomic_write(out_dir / MANIFEST_NAME, [self.to_json().encode("utf-8")])


def load_manifest(out_dir: Path) -> Manifest | None:
    path = out_dir / MANIFEST_NAME
    if not path.exists():
        return None
    return Manifest.from_json(path.read_text(encoding="utf-8"), os.fspath(path))


def sha256_file(path: Path) -> str:
    """The hex SHA-256 of a file's bytes, read in 1 MiB blocks (recorded per shard)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()
