"""Samples the committed test text from ../shared/corpus (run once; the output is committed).

Writes, deterministically:
- tests/data/multilingual.txt: translations from every parallel/LANG.tsv.gz (40 per language),
  and running prose from every docs/LANG.txt.gz (200 lines per language).
- tests/data/parallel/LANG.tsv: 40 English<TAB>translation pairs per language.
- tests/data/code.txt: Python source from the CPython standard library (about 300 KB).

Usage: python scripts/sample_testdata.py [--corpus ../shared/corpus]
"""

from __future__ import annotations

import argparse
import gzip
import random
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data"


def sample_lines(lines: list[str], k: int, rng: random.Random) -> list[str]:
    picked = sorted(rng.sample(range(len(lines)), min(k, len(lines))))
    return [lines[i] for i in picked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    args = parser.parse_args()
    rng = random.Random(20261130)
    (OUT / "parallel").mkdir(parents=True, exist_ok=True)
    multilingual: list[str] = []
    for path in sorted((args.corpus / "parallel").glob("*.tsv.gz")):
        lang = path.name.removesuffix(".tsv.gz")
        rows = [r for r in gzip.open(path, "rt", encoding="utf-8").read().splitlines() if "\t" in r]
        picked = sample_lines(rows, 40, rng)
        (OUT / "parallel" / f"{lang}.tsv").write_text("\n".join(picked) + "\n", encoding="utf-8")
        multilingual += [r.split("\t", 1)[1] for r in picked]
    for path in sorted((args.corpus / "docs").glob("*.txt.gz")):
        lines = [
            x for x in gzip.open(path, "rt", encoding="utf-8").read().splitlines() if x.strip()
        ]
        start = rng.randrange(0, max(1, len(lines) - 200))
        multilingual += lines[start : start + 200]
    (OUT / "multilingual.txt").write_text("\n".join(multilingual) + "\n", encoding="utf-8")

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.glob("*.py"))
    code: list[str] = []
    size = 0
    for p in rng.sample(files, len(files)):
        text = p.read_text(encoding="utf-8", errors="replace")
        if size + len(text) > 300_000:
            continue
        code.append(f"# ---- {p.name}\n{text}")
        size += len(text)
    (OUT / "code.txt").write_text("".join(code), encoding="utf-8")


if __name__ == "__main__":
    main()
