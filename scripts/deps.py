"""Prints the optional-dependency groups of pyproject.toml, one requirement per line.

The Makefile installs test and lint tools from here, so pyproject.toml is the one list.

    python scripts/deps.py test lint
"""

import sys
from pathlib import Path

import tomllib

groups = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
extras = groups["project"]["optional-dependencies"]
required = groups["project"]["dependencies"]
for name in sys.argv[1:]:
    for req in required if name == "runtime" else extras[name]:
        print(req)
