"""Turn the same JSONL corpus into a flat token file four ways, in one run (issue 7).

Method
------
The corpus (``--mb``, default 200 MB of text) is the shared multilingual text and Python code
that ``benchmarks/train.py`` trains on (:func:`train.corpus_lines`), cut into documents of about
4 KB and written as JSONL (``{"text": ...}``); when the shared text is smaller than ``--mb``,
it is used again in another shuffled order until the size is reached. Every job tokenizes each
document with o200k_base, appends ``<|endoftext|>`` and writes one flat uint32 file (nanoGPT's
``train.bin`` layout), so the four outputs must be the same bytes; the report says whether they
are.

- **tokensmith local**: ``encode_dataset(format="nanogpt", append_eos=True, workers=2)``;
- **tokensmith ray**: the same with ``engine="ray"`` on a local Ray cluster of 2 CPUs
  (its start-up is included): Ray Data reads the JSONL on a worker and encodes it on every
  worker, and the tokens come back to the driver, which writes the file;
- **HF datasets + tokenizers**: ``load_dataset("json")``, ``map(batched=True, num_proc=2)``
  with ``Tokenizer.encode_batch`` of an o200k ``tokenizer.json`` (built offline), then the
  ``np.memmap`` loop of nanoGPT's ``prepare.py``;
- **tiktoken + datasets**: nanoGPT's ``prepare.py`` itself: ``map(num_proc=2)`` with
  ``encode_ordinary`` per document, then the same memmap loop.

Each job runs in its own fresh process (``--child``); wall time covers reading the JSONL to the
finished output file (the HF jobs' Arrow cache is built cold, in a fresh directory, and is
counted as temporary disk). Peak memory is sampled every 0.1 s as the sum of PSS (proportional
set size, so shared pages count once) over the job's process and all its descendants (HF's
``num_proc`` workers, Ray's raylet and workers); the job's own ``VmHWM`` is reported too. MB/s
is the documents' UTF-8 bytes over wall time.

Usage::

    python benchmarks/encode_dataset.py --mb 20            # a quick run
    python benchmarks/encode_dataset.py --write            # 200 MB, appended to RESULTS.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from _common import (
    DOC_BYTES,
    MB,
    RESULTS_FILE,
    cpu_model,
    git_revision,
    package_version,
    publish,
    tiktoken_encoding,
)
from _peers import hf_tokenizer_json
from train import corpus_lines, peak_rss_mib

ENCODING = "o200k_base"
JOBS = ("tokensmith-local", "tokensmith-ray", "hf-datasets-tokenizers", "tiktoken-datasets")
WORK_DIR = Path(tempfile.gettempdir()) / "tokensmith-bench" / "encode_dataset"

NUM_PROC = 2


# ------------------------------------------------------------------------------------------------
# The corpus
# ------------------------------------------------------------------------------------------------


def build_jsonl(mb: float, seed: int) -> tuple[Path, int, int]:
    """Writes the JSONL corpus once (reused after); returns (path, documents, text bytes)."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    path = WORK_DIR / f"docs-{mb:g}MB-{seed}.jsonl"
    facts = path.with_suffix(".facts.json")
    if path.exists() and facts.exists():
        known = json.loads(facts.read_text())
        return path, known["documents"], known["text_bytes"]
    budget, size, docs, rounds = int(mb * MB), 0, 0, 0
    partial = path.with_name(path.name + ".tmp")
    with partial.open("w", encoding="utf-8") as f:
        while size < budget:
            lines = corpus_lines(seed + rounds)
            rounds += 1
            doc: list[str] = []
            doc_size = 0
            for line in lines:
                doc.append(line)
                doc_size += len(line.encode("utf-8")) + 1
                if doc_size >= DOC_BYTES:
                    text = "\n".join(doc)
                    f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
                    size += len(text.encode("utf-8"))
                    docs += 1
                    doc, doc_size = [], 0
                    if size >= budget:
                        break
    os.replace(partial, path)
    facts.write_text(json.dumps({"documents": docs, "text_bytes": size, "passes": rounds}))
    return path, docs, size


# ------------------------------------------------------------------------------------------------
# Children: one job each
# ------------------------------------------------------------------------------------------------


def job_tokensmith(src: Path, out: Path, engine: str) -> Path:
    from tokensmith.datasets import encode_dataset

    # One shard: the flat file the other jobs write.
    encode_dataset([src], tokenizer=ENCODING, out_dir=out, format="nanogpt", append_eos=True,
                   shard_size=2**40, workers=NUM_PROC, engine=engine, progress=False)  # fmt: skip
    if engine == "ray":
        import ray

        ray.shutdown()
    (shard,) = out.glob("shard_*.bin")
    return shard


def write_memmap(dset: Any, out: Path) -> Path:
    """nanoGPT ``prepare.py``'s writing loop: concatenate ``ids`` into one memmap."""
    import numpy as np

    arr_len = int(np.sum(dset["len"], dtype=np.uint64))
    path = out / "train.bin"
    arr = np.memmap(path, dtype=np.uint32, mode="w+", shape=(arr_len,))
    total_batches = min(1024, len(dset))
    idx = 0
    for batch_idx in range(total_batches):
        batch = dset.shard(num_shards=total_batches, index=batch_idx, contiguous=True)
        arr_batch = np.concatenate(batch.with_format("numpy")["ids"])
        arr[idx : idx + len(arr_batch)] = arr_batch
        idx += len(arr_batch)
    arr.flush()
    return path


def load_json(src: Path, cache: Path) -> Any:
    import datasets

    datasets.disable_progress_bars()
    return datasets.load_dataset("json", data_files=str(src), split="train", cache_dir=str(cache))


def job_hf(src: Path, out: Path, cache: Path) -> Path:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(hf_tokenizer_json(ENCODING)))
    eot = tiktoken_encoding(ENCODING).eot_token

    def process(batch: dict[str, list[str]]) -> dict[str, list[Any]]:
        ids = [e.ids + [eot] for e in tok.encode_batch(batch["text"])]
        return {"ids": ids, "len": [len(x) for x in ids]}

    dset = load_json(src, cache).map(
        process, batched=True, num_proc=NUM_PROC, remove_columns=["text"]
    )
    return write_memmap(dset, out)


def job_tiktoken(src: Path, out: Path, cache: Path) -> Path:
    enc = tiktoken_encoding(ENCODING)

    def process(example: dict[str, str]) -> dict[str, Any]:
        ids = enc.encode_ordinary(example["text"])
        ids.append(enc.eot_token)
        return {"ids": ids, "len": len(ids)}

    dset = load_json(src, cache).map(process, num_proc=NUM_PROC, remove_columns=["text"])
    return write_memmap(dset, out)


def child(name: str, src: Path, out: Path) -> None:
    cache = out / "hf-cache"
    start = time.perf_counter()
    if name == "tokensmith-local":
        result = job_tokensmith(src, out / "shards", "local")
    elif name == "tokensmith-ray":
        result = job_tokensmith(src, out / "shards", "ray")
    elif name == "hf-datasets-tokenizers":
        result = job_hf(src, out, cache)
    else:
        result = job_tiktoken(src, out, cache)
    wall = time.perf_counter() - start
    temp = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) if cache.exists() else 0
    print(json.dumps({"wall": wall, "output": str(result), "temp_bytes": temp,
                      "vmhwm_mib": peak_rss_mib()}))  # fmt: skip


# ------------------------------------------------------------------------------------------------
# The parent: memory of a process tree, one child at a time
# ------------------------------------------------------------------------------------------------


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, from ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def pss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class TreeMemory(threading.Thread):
    """Samples the summed PSS of a process tree until stopped; keeps the peak."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root, self.peak, self.done = root, 0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, sum(pss_bytes(p) for p in descendants(self.root)))
            self.done.wait(0.1)


def run_child(name: str, src: Path) -> dict[str, Any]:
    out = WORK_DIR / f"out-{name}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, RAYON_NUM_THREADS=str(NUM_PROC), TOKENIZERS_PARALLELISM="true")
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    cmd = [sys.executable, __file__, "--child", name, "--src", str(src), "--out", str(out)]
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, env=env)
        sampler = TreeMemory(proc.pid)
        sampler.start()
        proc.wait()
        sampler.done.set()
        sampler.join()
        stdout.seek(0)
        stderr.seek(0)
        if proc.returncode != 0:
            tail = stderr.read().decode(errors="replace").strip().splitlines()[-3:]
            return {"error": " | ".join(tail) or f"exit code {proc.returncode}"}
        report: dict[str, Any] = json.loads(stdout.read().decode().strip().splitlines()[-1])
    output = Path(report["output"])
    report["output_bytes"] = output.stat().st_size
    report["sha256"] = sha256_file(output)
    report["tree_pss_mib"] = sampler.peak / 2**20
    shutil.rmtree(out / "hf-cache", ignore_errors=True)
    return report


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def markdown(
    results: dict[str, dict[str, Any]], args: argparse.Namespace, facts: tuple[Path, int, int]
) -> str:
    src, docs, text_bytes = facts
    names = ("tokensmith", "ray", "datasets", "tokenizers", "tiktoken", "pyarrow", "numpy")
    versions = ", ".join(f"{d} {package_version(d) or 'missing'}" for d in names)
    lines = [
        f"## encode_dataset.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}",
        f"- versions: {versions}",
        f"- corpus: {src.name}, {docs:,} documents, {text_bytes / MB:.1f} MB of text "
        f"({src.stat().st_size / MB:.1f} MB JSONL); {ENCODING} + <|endoftext|>, uint32 flat "
        f"output; {NUM_PROC} processes/threads per job, each job in its own process",
        "",
        "| job | wall | MB/s | peak PSS (tree) | own VmHWM | output | temp disk | same bytes "
        "| tokensmith local × |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    ours = results.get("tokensmith-local", {})
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | failed: {r['error']} | | | | | | | |")
            continue
        same = "yes" if r["sha256"] == ours.get("sha256") else "NO"
        speed = f"{r['wall'] / ours['wall']:.2f}×" if "wall" in ours else ""
        lines.append(
            f"| {name} | {r['wall']:.1f} s | {text_bytes / MB / r['wall']:.1f} | "
            f"{r['tree_pss_mib']:.0f} MiB | {r['vmhwm_mib']:.0f} MiB | "
            f"{r['output_bytes'] / MB:.1f} MB | {r['temp_bytes'] / MB:.0f} MB | {same} | {speed} |"
        )
    lines += ["", "`tokensmith local ×`: the job's wall time over tokensmith local's."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=200.0, help="text in the corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", nargs="*", default=list(JOBS), choices=JOBS)
    parser.add_argument("--write", action="store_true", help=f"append to {RESULTS_FILE.name}")
    parser.add_argument("--child", choices=JOBS, help=argparse.SUPPRESS)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.src, args.out)
        return
    facts = build_jsonl(args.mb, args.seed)
    hf_tokenizer_json(ENCODING)  # built once, outside the timed jobs
    results = {}
    for name in args.jobs:
        print(f"running {name} on {facts[0].name} ...", file=sys.stderr, flush=True)
        results[name] = run_child(name, facts[0])
        print(f"  {results[name]}", file=sys.stderr, flush=True)
    publish(markdown(results, args, facts), args.write)



if __name__ == "__main__":
    main()
