"""Peak memory of loading an encoding and encoding 100 MB of text, one library per process.

Method
------
The text (``--mb``, default 100 MB) is the shared corpus's real text (the training benchmark's
lines: translations, manuals and Python code, shuffled with a fixed seed), repeated until it is
long enough, written once to a file. Each library runs in its own fresh process (``--child``),
which in order:

1. loads the encoding (``--encoding``, default o200k_base) and notes its RSS;
2. encodes a 1 MB sample of the text and reports a sha256 of the ids, which the parent checks
   against tiktoken's before it believes any figure;
3. reads the text file and notes its RSS (Python holds the text as a ``str``, 1 to 4 bytes a
   character, the same for everyone);
4. encodes the whole text: ``--mode whole`` in one call with numpy output
   (tokensmith ``encode_to_numpy``, gigatoken ``Tokenizer.encode``); ``--mode batches`` as
   batches of lines of about 4 MB each, list output on 2 threads (tokensmith
   ``encode_ordinary_batch``, gigatoken ``encode_batch_list``), each batch's ids dropped
   before the next (the lists of lines are built up front, a second copy of the text that
   both libraries' peaks include);
5. reports its peak RSS (``VmHWM``), which the parent prints with the two RSS notes, so the
   encoder's own share (peak minus the RSS after reading the text) can be read off.

Usage::

    python benchmarks/encode_memory.py                 # both modes, tokensmith and gigatoken
    python benchmarks/encode_memory.py --mb 10 --write # appended to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from array import array
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import MB, cpu_model, git_revision, package_version, publish, tiktoken_encoding
from _peers import PEERS_BY_NAME
from train import WORK_DIR, corpus_lines, peak_rss_mib

LIBRARIES = ("tokensmith", "gigatoken")
MODES = ("whole", "batches")
SAMPLE_BYTES = 1_000_000
BATCH_BYTES = 4_000_000
TEXT_DIR = WORK_DIR.parent / "memory"


def build_text(mb: float, seed: int = 0) -> Path:
    """Writes ``mb`` MB of the shared corpus's lines (repeated as needed) once, and reuses it."""
    TEXT_DIR.mkdir(parents=True, exist_ok=True)
    path = TEXT_DIR / f"text-{mb:g}MB-{seed}.txt"
    if path.exists():
        return path
    lines = corpus_lines(seed)
    budget, size, kept = int(mb * MB), 0, []
    while size < budget:
        for line in lines:
            kept.append(line)
            size += len(line.encode("utf-8")) + 1
            if size >= budget:
                break
    partial = path.with_suffix(".partial")
    partial.write_text("\n".join(kept) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


def sample_of(path: Path) -> str:
    """The first lines of the text, about ``SAMPLE_BYTES`` of them."""
    with path.open("rb") as f:
        head = f.read(SAMPLE_BYTES)
    return head[: head.rfind(b"\n") + 1].decode("utf-8")


def digest(ids: Any) -> str:
    return hashlib.sha256(array("I", [int(i) for i in ids]).tobytes()).hexdigest()


def rss_mib() -> float:
    """This process's resident set now (``VmRSS``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def batches(text: str) -> list[list[str]]:
    """The text's lines (newline kept) in batches of about ``BATCH_BYTES``."""
    out: list[list[str]] = [[]]
    size = 0
    for line in text.splitlines(keepends=True):
        out[-1].append(line)
        size += len(line)
        if size >= BATCH_BYTES:
            out.append([])
            size = 0
    return [b for b in out if b]


def child(name: str, encoding: str, path: Path, mode: str) -> None:
    """Loads, checks, reads and encodes (see the module docs); prints a JSON report."""
    peer = PEERS_BY_NAME[name].load(encoding)
    after_load = rss_mib()
    sample = digest(peer.encode(sample_of(path)))
    text = path.read_text(encoding="utf-8")
    after_text = rss_mib()
    start = time.perf_counter()
    if mode == "whole":
        assert peer.numpy is not None
        n_tokens = len(peer.numpy(text))
    else:
        assert peer.batch is not None
        n_tokens = 0
        for batch in batches(text):
            n_tokens += sum(len(ids) for ids in peer.batch(batch, 2))
    report = {
        "seconds": time.perf_counter() - start,
        "tokens": n_tokens,
        "sample": sample,
        "after_load": after_load,
        "after_text": after_text,
        "peak": peak_rss_mib(),
    }
    print(json.dumps(report))


def run_child(name: str, encoding: str, path: Path, mode: str) -> dict[str, Any]:
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    cmd = [sys.executable, __file__, "--child", name, "--encoding", encoding]
    cmd += ["--text", str(path), "--modes", mode]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:]
        return {"error": " ".join(tail) or f"exit code {proc.returncode}"}
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def markdown(
    rows: list[tuple[str, str, dict[str, Any]]], args: argparse.Namespace, path: Path
) -> str:
    versions = ", ".join(
        f"{d} {package_version(d) or 'missing'}" for d in ("tokensmith", "gigatoken")
    )
    lines = [
        f"## encode_memory.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}",
        f"- versions: {versions}",
        f"- text: {path.stat().st_size / MB:.1f} MB ({path.name}), {args.encoding}, each library "
        "in its own process; ids of a 1 MB sample equal tiktoken's for every row shown",
        "",
        "| library | mode | RSS after load | after reading text | peak RSS | peak − text | "
        "seconds | tokens |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, mode, r in rows:
        if "error" in r:
            lines.append(f"| {name} | {mode} | failed: {r['error']} | | | | | |")
            continue
        lines.append(
            f"| {name} | {mode} | {r['after_load']:.0f} MiB | {r['after_text']:.0f} MiB | "
            f"{r['peak']:.0f} MiB | {r['peak'] - r['after_text']:.0f} MiB | "
            f"{r['seconds']:.1f} | {r['tokens']:,} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=100.0, help="text size")
    parser.add_argument("--encoding", default="o200k_base")
    parser.add_argument("--libraries", nargs="*", default=list(LIBRARIES), choices=LIBRARIES)
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    parser.add_argument("--write", action="store_true", help="append to RESULTS.md")
    parser.add_argument("--child", choices=LIBRARIES, help=argparse.SUPPRESS)
    parser.add_argument("--text", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.encoding, args.text, args.modes[0])
        return
    path = build_text(args.mb)
    expected = digest(tiktoken_encoding(args.encoding).encode_ordinary(sample_of(path)))
    rows = []
    for mode in args.modes:
        for name in args.libraries:
            print(f"{name}, {mode} ...", file=sys.stderr, flush=True)
            report = run_child(name, args.encoding, path, mode)
            if "error" not in report and report["sample"] != expected:
                report = {"error": "ids of the sample differ from tiktoken's"}
            rows.append((name, mode, report))
    publish(markdown(rows, args, path), args.write)


if __name__ == "__main__":
    main()
