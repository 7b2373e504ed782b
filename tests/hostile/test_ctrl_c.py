"""Ctrl-C reaches Python during long Rust loops: batch encoding (to lists or to a numpy
buffer, one thread or several) and the counting pass of training see a pending SIGINT between
chunks of work and raise KeyboardInterrupt, instead of finishing a run of a minute first.
(``encode_dataset`` encodes in batches of at most 4 MiB of text, with Python between them.)

Each case runs in a child process on the same text repeated (the list holds one string many
times, so it costs no memory), long enough that finishing it would take far longer than the
bound the test allows after the signal.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_helpers import DATA, PYTHON_DIR

SCRIPT = """
import sys, time, tokensmith
text = open({corpus!r}, encoding="utf-8").read()[:2000]
texts = [text] * 400_000
enc = tokensmith.get_encoding("cl100k_base")
calls = {{
    "batch-1": lambda: enc.encode_ordinary_batch(texts, num_threads=1),
    "batch-2": lambda: enc.encode_batch(texts, num_threads=2),
    "numpy": lambda: enc.encode_ordinary_batch_to_numpy(texts, num_threads=2),
    "train": lambda: tokensmith.train_bpe(texts, vocab_size=400),
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


@pytest.mark.parametrize("case", ["batch-1", "batch-2", "numpy", "train"])
def test_ctrl_c_interrupts_a_long_rust_loop(case: str) -> None:
    script = SCRIPT.format(corpus=str(DATA / "multilingual.txt"), case=case)
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
